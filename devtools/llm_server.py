"""A scriptable OpenAI-compatible HTTP server for tests and benchmarks (standard library only).

It serves ``POST /v1/chat/completions`` (non-streaming, with ``usage``), ``POST /v1/embeddings``
(deterministic vectors from a hash of each text; ``float`` or ``base64``) and ``GET /v1/models``
on 127.0.0.1, from a ``ThreadingHTTPServer`` in a background thread.

Script it per test with :meth:`FakeLLMServer.script`:

- ``responder(request_json) -> str``: the reply text of a chat call (default: a JSON object
  ``{"echo": <first user message>}`` when JSON mode is asked for, else ``"echo: ..."``);
- ``plan={n: fault}``: a fault on the n-th POST (1-based, chat and embeddings counted together);
- ``rates={fault: p}`` with ``seed``: each POST draws one fault with these probabilities;
- ``latency`` (seconds per call), ``retry_after`` (the header sent with 429/503),
  ``hang_seconds``, ``models`` (known model names; others get 404 model_not_found),
  ``reject_json_mode`` (400 when ``response_format`` is sent), ``reject_json_schema`` (400 when
  a ``json_schema`` response_format is sent; JSON mode is fine), ``require_key`` (any other
  bearer token gets a 401 that echoes it back, as careless servers do), ``hold`` (a function of a
  POST's JSON body: a POST it is true for gets no answer until :meth:`FakeLLMServer.end_latency`,
  so a test can let a child process get exactly so far and no further, whatever the machine's speed).

Faults: ``429``, ``503`` (both with Retry-After), ``500``, ``hang`` (no reply for
``hang_seconds``), ``drop`` (close the connection), ``broken_body`` (truncated HTTP JSON),
``truncated`` / ``prose`` / ``empty`` / ``fenced`` (the reply TEXT cut in half, in prose, empty,
or wrapped in a code fence with chatter), ``model_not_found`` (404), ``unauthorized`` (401
whose message echoes the Authorization header, to prove the client scrubs it), ``slow``
(``slow_seconds`` extra latency).

It counts requests (``count()``, ``count("/v1/chat/completions")``), keeps the request bodies
(``bodies()``) and the peak number of requests in flight (also served as JSON at ``GET /_stats``,
for a server in another process). Run it alone for manual tests::

    python -m devtools.llm_server --port 8011 --latency 0.1 --rates 500=0.1,truncated=0.05
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import json
import random
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

FAULTS = ("429", "503", "500", "hang", "drop", "broken_body", "truncated", "prose", "empty", "fenced",
          "model_not_found", "unauthorized", "slow")
TEXT_FAULTS = ("truncated", "prose", "empty", "fenced")
#: the longest a held POST waits for its release (a test that forgets to release it still ends)
HOLD_SECONDS = 600.0
PROSE = "I looked at the context carefully. The statement seems to be supported, mostly."


def default_responder(request: dict[str, Any]) -> str:
    """``{"echo": first user message}`` in JSON mode (or when JSON is asked for), else ``echo: ...``.

    The FIRST user message, so a re-ask (which appends messages) gets the same answer.
    """
    users = [m.get("content", "") for m in request.get("messages", []) if m.get("role") == "user"]
    last = users[0] if users else ""
    fmt = request.get("response_format") or {}
    if fmt.get("type") == "json_object" or "json" in str(last).lower():
        return json.dumps({"echo": last})
    return f"echo: {last}"


def vector_for(text: str, dim: int) -> list[float]:
    """A deterministic unit-free vector in [-1, 1]^dim from sha256 of ``text``."""
    out: list[float] = []
    counter = 0
    while len(out) < dim:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        out.extend(b / 127.5 - 1.0 for b in digest)
        counter += 1
    return out[:dim]


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # the default 5 drops connections when 16 clients connect at once
    daemon_threads = True
    block_on_close = False


class FakeLLMServer:
    """See the module docstring. ``url`` is the base URL (``http://127.0.0.1:PORT/v1``)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0):
        self._lock = threading.Lock()
        self._release = threading.Event()  # set to end the hangs and latencies of one test
        self._generation = 0
        self._local = threading.local()  # which test (generation) the current handler serves
        self._httpd = _Server((host, port), _make_handler(self))
        self.port = self._httpd.server_address[1]
        self.url = f"http://{host}:{self.port}/v1"
        self._thread: threading.Thread | None = None
        self.reset()

    # -- lifecycle
    def start(self) -> "FakeLLMServer":
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fake-llm", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()  # releases hangs and latencies at once
        if self._thread is not None:  # shutdown() would wait forever for a loop never started
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> "FakeLLMServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting
    def reset(self) -> "FakeLLMServer":
        """Back to defaults: no faults, no latency, echo responder, counters at zero.

        Requests still hanging from before are released and no longer counted as in flight.
        """
        with self._lock:
            self._release.set()
            self._release = threading.Event()
            self._generation += 1
            self.responder: Callable[[dict[str, Any]], str] = default_responder
            self.plan: dict[int, str] = {}
            self.rates: dict[str, float] = {}
            self._rng = random.Random(0)
            self.latency = 0.0
            self.retry_after: str | None = "0.05"
            self.hang_seconds = 5.0
            self.slow_seconds = 0.3
            self.models: set[str] | None = None
            self.reject_json_mode = False
            self.reject_json_schema = False
            self.require_key: str | None = None
            self.dim = 8
            self.hold: Callable[[dict[str, Any]], bool] | None = None
            self._counts: dict[str, int] = {}
            self._posts = 0
            self._bodies: list[tuple[str, dict[str, Any]]] = []
            self._faults_seen: list[tuple[int, str]] = []
            self._in_flight = 0
            self.peak_in_flight = 0
            # POSTs over time: the first one's start, the last one's end and the integral of the
            # POSTs in flight (request-seconds) between them, all time.time() (served by /_stats)
            self.first_post: float | None = None
            self.last_post_end: float | None = None
            self.post_seconds = 0.0
            self._posts_in_flight, self._changed = 0, 0.0
        return self

    def _posts_change(self, step: int) -> None:
        """Count a POST starting (+1) or ending (-1) into the request-seconds (under the lock)."""
        now = time.time()
        if self.first_post is None:
            self.first_post = now
        else:
            self.post_seconds += self._posts_in_flight * (now - self._changed)
        self._posts_in_flight += step
        self._changed = now
        if step < 0:
            self.last_post_end = now

    def script(self, *, responder: Callable[[dict[str, Any]], str] | None = None,
               plan: dict[int, str] | None = None, rates: dict[str, float] | None = None, seed: int | None = None,
               **settings: Any) -> "FakeLLMServer":
        """Set the responder, the fault plan/rates and any of latency, retry_after, hang_seconds,
        slow_seconds, models, reject_json_mode, reject_json_schema, require_key, dim, hold. Unknown names or
        faults raise ValueError."""
        for fault in list((plan or {}).values()) + list(rates or {}):
            if fault not in FAULTS:
                raise ValueError(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")
        with self._lock:
            if responder is not None:
                self.responder = responder
            if plan is not None:
                self.plan = dict(plan)
            if rates is not None:
                self.rates = dict(rates)
            if seed is not None:
                self._rng = random.Random(seed)
            for name, value in settings.items():
                if name not in ("latency", "retry_after", "hang_seconds", "slow_seconds", "models",
                                "reject_json_mode", "reject_json_schema", "require_key", "dim", "hold"):
                    raise ValueError(f"unknown setting {name!r}")
                setattr(self, name, set(value) if name == "models" and value is not None else value)
        return self

    def end_latency(self) -> "FakeLLMServer":
        """No latency and no hold from now on, and every call still sleeping out its latency (or a hang,
        or held) answers at once; counters and bodies are kept. For a test that holds calls until something has
        happened elsewhere (``script(latency=...)`` long, then this) instead of guessing a duration."""
        with self._lock:
            self.latency = 0.0
            self.hold = None
            self._release.set()
            self._release = threading.Event()
        return self

    # -- observations
    def count(self, path: str | None = None) -> int:
        """Requests received in all, or for one path (e.g. ``/v1/chat/completions``)."""
        with self._lock:
            return sum(self._counts.values()) if path is None else self._counts.get(path, 0)

    def bodies(self, path: str = "/v1/chat/completions") -> list[dict[str, Any]]:
        with self._lock:
            return [body for p, body in self._bodies if p == path]

    def faults_seen(self) -> list[tuple[int, str]]:
        with self._lock:
            return list(self._faults_seen)

    # -- used by the handler
    def _begin(self, path: str, body: dict[str, Any] | None) -> str | None:
        with self._lock:
            self._local.generation, self._local.release = self._generation, self._release
            self._counts[path] = self._counts.get(path, 0) + 1
            self._in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
            self._local.post = body is not None
            if body is None:
                return None
            self._posts_change(+1)
            self._bodies.append((path, body))
            self._posts += 1
            fault = self.plan.get(self._posts)
            if fault is None and self.rates:
                draw, edge = self._rng.random(), 0.0
                for name, p in self.rates.items():
                    edge += p
                    if draw < edge:
                        fault = name
                        break
            if fault is not None:
                self._faults_seen.append((self._posts, fault))
            return fault

    def _end(self) -> None:
        with self._lock:
            if self._local.generation == self._generation:
                self._in_flight -= 1
                if getattr(self._local, "post", False):
                    self._posts_change(-1)

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._local.release.wait(seconds)


def _make_handler(server: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # else headers and body wait on delayed ACKs (~40 ms a reply)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
            pass

        def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None,
                  raw: bytes | None = None) -> None:
            data = raw if raw is not None else json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        def _error(self, status: int, message: str, kind: str, code: str | None = None,
                   headers: dict[str, str] | None = None) -> None:
            self._send(status, {"error": {"message": message, "type": kind, "code": code, "param": None}}, headers)

        def _refuse_key(self, fault: str | None = None) -> bool:
            """Answer 401 (echoing the presented key) when the key is wrong or the fault says so."""
            auth = self.headers.get("Authorization", "")
            if fault != "unauthorized" and (server.require_key is None or auth == f"Bearer {server.require_key}"):
                return False
            self._error(401, f"Incorrect API key provided: {auth.removeprefix('Bearer ')}",
                        "invalid_request_error", "invalid_api_key")
            return True

        def do_GET(self) -> None:  # noqa: N802
            server._begin(self.path, None)
            try:
                if self._refuse_key():
                    return
                if self.path == "/_stats":  # for benchmarks running the server in another process
                    with server._lock:
                        counts = dict(server._counts)
                    self._send(200, {"counts": counts, "peak_in_flight": server.peak_in_flight,
                                     "cpu_seconds": time.process_time(), "first_post": server.first_post,
                                     "last_post_end": server.last_post_end, "post_seconds": server.post_seconds})
                elif self.path.rstrip("/") == "/v1/models":
                    names = sorted(server.models) if server.models is not None else ["test-model"]
                    data = [{"id": n, "object": "model", "created": 0, "owned_by": "test"} for n in names]
                    self._send(200, {"object": "list", "data": data})
                else:
                    self._error(404, f"no route {self.path}", "invalid_request_error")
            finally:
                server._end()

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                body = {}
            fault = server._begin(self.path, body)
            try:
                self._post(body, fault)
            finally:
                server._end()

        def _post(self, body: dict[str, Any], fault: str | None) -> None:
            hold = server.hold
            if hold is not None and hold(body):
                server._sleep(HOLD_SECONDS)  # until end_latency(), reset() or stop()
            server._sleep(server.latency + (server.slow_seconds if fault == "slow" else 0.0))
            retry = {"Retry-After": server.retry_after} if server.retry_after is not None else {}
            model = body.get("model", "")
            if fault == "hang":
                server._sleep(server.hang_seconds)
                self.close_connection = True
                return
            if fault == "drop":
                self.close_connection = True
                return
            if fault in ("429", "503"):
                kind = "rate_limit_exceeded" if fault == "429" else "server_overloaded"
                return self._error(int(fault), f"{kind}: try again later", kind, kind, retry)
            if fault == "500":
                return self._error(500, "internal error", "server_error")
            if self._refuse_key(fault):
                return
            if fault == "model_not_found" or (server.models is not None and model not in server.models):
                return self._error(404, f"The model `{model}` does not exist", "invalid_request_error",
                                   "model_not_found")
            if self.path == "/v1/chat/completions":
                payload = self._chat(body, fault)
            elif self.path == "/v1/embeddings":
                payload = self._embeddings(body)
            else:
                return self._error(404, f"no route {self.path}", "invalid_request_error")
            if payload is None:
                return
            if fault == "broken_body":
                data = json.dumps(payload).encode()
                return self._send(200, None, raw=data[: len(data) // 2])
            self._send(200, payload)

        def _chat(self, body: dict[str, Any], fault: str | None) -> dict[str, Any] | None:
            if server.reject_json_mode and body.get("response_format"):
                self._error(400, "response_format is not supported by this model", "invalid_request_error",
                            None)
                return None
            if server.reject_json_schema and (body.get("response_format") or {}).get("type") == "json_schema":
                self._error(400, "response_format type json_schema is not supported", "invalid_request_error", None)
                return None
            try:
                text = server.responder(body)
            except Exception as exc:  # noqa: BLE001 - a broken responder shows up as a 500
                self._error(500, f"responder failed: {exc}", "server_error")
                return None
            finish = "stop"
            if fault == "truncated":
                text, finish = text[: max(1, len(text) // 2)], "length"
            elif fault == "prose":
                text = PROSE
            elif fault == "empty":
                text = ""
            elif fault == "fenced":
                text = f"Here is the result you asked for:\n```json\n{text}\n```\nLet me know if you need more."
            prompt = sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4 + 1
            done = len(text) // 4 + (1 if text else 0)
            return {
                "id": f"chatcmpl-{time.monotonic_ns()}", "object": "chat.completion", "created": int(time.time()),
                "model": body.get("model", ""),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": done, "total_tokens": prompt + done},
            }

        def _embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
            texts = body.get("input", [])
            texts = [texts] if isinstance(texts, str) else texts
            as_base64 = body.get("encoding_format") == "base64"
            data = []
            for i, text in enumerate(texts):
                vec = vector_for(str(text), int(server.dim))
                value: Any = base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode() if as_base64 else vec
                data.append({"object": "embedding", "index": i, "embedding": value})
            tokens = sum(len(str(t)) for t in texts) // 4 + 1
            return {"object": "list", "data": data, "model": body.get("model", ""),
                    "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}

    return Handler


def _main() -> None:
    parser = argparse.ArgumentParser(description="Run the fake OpenAI-compatible server until interrupted.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per call")
    parser.add_argument("--rates", default="", help="faults with probabilities, e.g. 500=0.1,truncated=0.05")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--retry-after", default="0.05", help="the Retry-After header sent with 429/503")
    parser.add_argument("--judge", action="store_true", help="answer with the scripted judge of judge_responder.py")
    args = parser.parse_args()
    rates = {k: float(v) for k, v in (item.split("=") for item in args.rates.split(",") if item)}
    server = FakeLLMServer(port=args.port).start()
    responder = None
    if args.judge:
        from devtools.judge_responder import respond as responder
    server.script(latency=args.latency, rates=rates, seed=args.seed, retry_after=args.retry_after,
                  responder=responder)
    print(server.url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    _main()
