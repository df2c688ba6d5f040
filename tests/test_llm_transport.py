"""rageval.llm.transport against a small recording HTTP server: what a request sends (key, OpenAI
headers, the base URL's query, the absolute URL to an HTTP proxy), keep-alive connections the
server closed while idle, and what each failure raises."""
from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from rageval.errors import ConfigError
from rageval.llm.client import make_llm_client
from rageval.llm.transport import ConnectionFailed, StatusError, TimedOut, Transport


class Recorder:
    """A server that records each request (line and headers) and answers from ``self.reply``."""

    def __init__(self) -> None:
        self.seen: list[dict] = []
        self.reply = (200, b'{"ok": true}')
        self.close_after_reply = False  # drop the connection without saying so (keep-alive expected)
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                recorder.seen.append({"line": f"{self.command} {self.path}", "headers": dict(self.headers),
                                      "body": json.loads(body) if body else None,
                                      "port": self.client_address[1]})
                status, data = recorder.reply
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                self.close_connection = recorder.close_after_reply

            do_GET = do_POST = _answer

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def recorder():
    server = Recorder()
    yield server
    server.stop()


def _transport(url: str, **kw) -> Transport:
    return Transport(url, kw.pop("key", "sk-test-key-123"), timeout=kw.pop("timeout", 5.0), connect_timeout=2.0, **kw)


def test_a_request_carries_the_key_the_openai_headers_and_the_base_urls_query(recorder):
    env = {"OPENAI_BASE_URL": f"{recorder.url}/v1?api-version=2024-06-01", "OPENAI_API_KEY": "sk-test-key-123"}
    client = make_llm_client({"judge": "openai:m"}, env={**env, "OPENAI_ORG_ID": "org-test",
                                                          "OPENAI_PROJECT_ID": "proj-test"}, use_cache=False)
    recorder.reply = (200, json.dumps({"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}],
                                       "usage": {"prompt_tokens": 3, "completion_tokens": 1}}).encode())
    reply = client.chat("judge", [{"role": "user", "content": "hello"}])
    client.close()
    assert (reply.status, reply.text, reply.tokens_in, reply.tokens_out) == ("ok", "hi", 3, 1)
    seen = recorder.seen[-1]
    assert seen["line"] == "POST /v1/chat/completions?api-version=2024-06-01"
    headers = {k.lower(): v for k, v in seen["headers"].items()}
    assert headers["authorization"] == "Bearer sk-test-key-123"
    assert headers["openai-organization"] == "org-test" and headers["openai-project"] == "proj-test"
    assert headers["content-type"] == "application/json"
    assert seen["body"]["messages"] == [{"role": "user", "content": "hello"}] and seen["body"]["model"] == "m"


def test_a_chat_request_reaches_the_server_as_the_openai_client_sends_it(recorder):
    """The reference is the openai package (the user's stack): the same call through both clients
    gives the same request line, key, organisation, project, content type and JSON body. (A base URL
    with a query is left out: openai 3.57 puts the path after the query, ``/v1/?q=1chat/completions``;
    rageval puts it before, tested above.)"""
    import openai

    base = f"{recorder.url}/v1"
    recorder.reply = (200, json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                                       "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"},
                                                    "finish_reason": "stop"}],
                                       "usage": {"prompt_tokens": 3, "completion_tokens": 1,
                                                 "total_tokens": 4}}).encode())
    messages = [{"role": "system", "content": "judge"}, {"role": "user", "content": "héllo"}]
    reference = openai.OpenAI(base_url=base, api_key="sk-test-key-123", organization="org-test",
                              project="proj-test", max_retries=0)
    reference.chat.completions.create(model="m", messages=messages, temperature=0)
    reference.close()
    client = make_llm_client({"judge": "openai:m"}, use_cache=False,
                             env={"OPENAI_BASE_URL": base, "OPENAI_API_KEY": "sk-test-key-123",
                                  "OPENAI_ORG_ID": "org-test", "OPENAI_PROJECT_ID": "proj-test"})
    client.chat("judge", messages)
    client.close()
    theirs, ours = recorder.seen[-2], recorder.seen[-1]
    assert ours["line"] == theirs["line"]
    compared = ("authorization", "openai-organization", "openai-project", "content-type")
    lower = [{k.lower(): v for k, v in seen["headers"].items()} for seen in (theirs, ours)]
    assert [lower[1].get(k) for k in compared] == [lower[0].get(k) for k in compared]
    assert {k: ours["body"][k] for k in ("model", "messages")} == {k: theirs["body"][k] for k in ("model", "messages")}


def test_connections_are_kept_alive_and_one_the_server_closed_is_not_reused(recorder):
    transport = _transport(recorder.url + "/v1")
    assert transport.get("/models") == {"ok": True} and transport.get("/models") == {"ok": True}
    assert recorder.seen[0]["port"] == recorder.seen[1]["port"]  # the same connection, kept alive
    recorder.close_after_reply = True  # the server hangs up after answering, without a Connection: close
    assert transport.get("/models") == {"ok": True}
    recorder.close_after_reply = False
    assert transport.get("/models") == {"ok": True}  # a new connection, not an error from the dead one
    assert recorder.seen[3]["port"] != recorder.seen[2]["port"]
    transport.close()


def test_an_http_proxy_from_the_environment_is_sent_the_absolute_url(recorder, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", recorder.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    transport = _transport("http://llm.example.invalid:8000/v1")
    assert transport.post("/embeddings", {"input": ["x"]}) == {"ok": True}
    assert recorder.seen[-1]["line"] == "POST http://llm.example.invalid:8000/v1/embeddings"
    transport.close()


def test_error_replies_and_failures_raise_what_the_client_retries_on(recorder):
    transport = _transport(recorder.url + "/v1")
    recorder.reply = (404, b'{"error": {"message": "The model `x` does not exist", "code": "model_not_found"}}')
    with pytest.raises(StatusError) as caught:
        transport.post("/chat/completions", {"model": "x"})
    assert caught.value.status_code == 404 and caught.value.code == "model_not_found"
    assert caught.value.body["error"]["message"] == "The model `x` does not exist"
    recorder.reply = (200, b'{"choices": [')  # a reply cut off mid-JSON
    with pytest.raises(ValueError):
        transport.post("/chat/completions", {"model": "x"})
    transport.close()

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    with pytest.raises(ConnectionFailed) as refused:
        _transport(f"http://127.0.0.1:{closed}/v1").get("/models")
    assert isinstance(refused.value.__cause__, ConnectionRefusedError)

    with socket.socket() as silent:  # accepts connections (the backlog) but never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        with pytest.raises(TimedOut):
            _transport(f"http://127.0.0.1:{silent.getsockname()[1]}/v1", timeout=0.2).get("/models")


def test_a_base_url_that_is_not_http_is_a_config_error_naming_the_variable():
    client = make_llm_client({"judge": "openai:m"}, env={"OPENAI_BASE_URL": "localhost:8000/v1"})
    with pytest.raises(ConfigError, match="OPENAI_BASE_URL"):
        client.preflight("judge")
    client.close()
