"""JSON over HTTP to an OpenAI-compatible server, with the standard library's ``http.client``.

One :class:`Transport` per role: the role's base URL, key and timeouts, and a pool of keep-alive
connections (a connection is taken for one request and put back once its reply is read; one the
server has closed meanwhile is dropped before reuse, not discovered by a failed request).

Why not the openai client or httpx: ``python -m bench.bench_transport`` (docs/benchmarks.md,
"Judged runs without the openai client") measured one chat request under 16 threads at 1.9-2.6
CPU-ms through ``openai.OpenAI.post``, 1.5-1.7 through ``httpx.Client.post`` and 0.7-0.8 here,
and importing the openai package at 1.1-1.7 s. The retries, backoff and error
texts live in :mod:`rageval.llm.client`; this module only says what happened:

- :class:`StatusError`: the server answered 4xx/5xx (status, parsed body, headers, error code);
- :class:`ConnectionFailed`: no reply (refused, unknown host, reset, a broken HTTP reply), with
  the cause chained for :func:`rageval.llm.roles.connection_detail`;
- :class:`TimedOut` (a ConnectionFailed): no connection within ``connect_timeout`` or no data
  for ``timeout`` seconds;
- ValueError: a 2xx reply whose body is not JSON.

Like the openai client: ``Authorization: Bearer <key>`` (``not-needed`` for a keyless server),
``OpenAI-Organization`` / ``OpenAI-Project`` when given, the base URL's query on every request,
TLS verified against the system's certificate store (``SSL_CERT_FILE`` / ``SSL_CERT_DIR``
honoured), and ``HTTP(S)_PROXY`` / ``NO_PROXY`` from the environment.
"""
from __future__ import annotations

import base64
import http.client
import json
import select
import threading
from contextlib import contextmanager
from typing import Any, Iterator, Mapping
from urllib.parse import unquote, urlsplit

#: what a request sends besides its body
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}


class ConnectionFailed(Exception):
    """No HTTP reply: the connection was refused, reset or timed out, or the reply was not HTTP."""


class TimedOut(ConnectionFailed):
    """No connection within the connect timeout, or no data within the read timeout."""


class StatusError(Exception):
    """The server answered with an error status; ``body`` is its JSON (or text), ``code`` the error code."""

    def __init__(self, status: int, body: Any, headers: Mapping[str, str]):
        self.status_code, self.body, self.headers = status, body, headers
        inner = body.get("error") if isinstance(body, Mapping) else None
        self.code = inner.get("code") if isinstance(inner, Mapping) else None
        self.message = f"Error code: {status} - {body}"
        super().__init__(self.message)


class Transport:
    """Requests to one server (see the module docstring); thread-safe, one request per connection at a time."""

    def __init__(self, base_url: str, api_key: str, *, timeout: float, connect_timeout: float,
                 headers: Mapping[str, str] | None = None, max_idle: int = 64):
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"the base URL {base_url!r} is not an http(s) URL")
        self._https = parts.scheme == "https"
        self._host, self._port = parts.hostname, parts.port or (443 if self._https else 80)
        self._prefix = parts.path.rstrip("/")
        self._query = f"?{parts.query}" if parts.query else ""
        self._timeout, self._connect_timeout = float(timeout), min(float(connect_timeout), float(timeout))
        self._proxy = _proxy_for(parts.scheme, self._host)
        self._headers = {**JSON_HEADERS, "Authorization": f"Bearer {api_key}", **(headers or {})}
        if self._proxy is not None and not self._https:  # an HTTPS proxy gets its headers in the tunnel
            self._headers.update(self._proxy[2])
        self._origin = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"
        self._idle: list[http.client.HTTPConnection] = []
        self._max_idle = max_idle
        self._lock = threading.Lock()
        self._closed = False
        self._ssl: Any = None

    # ------------------------------------------------------------ requests
    def get(self, path: str) -> Any:
        """The JSON reply to ``GET path`` (a path under the base URL, e.g. ``/models``)."""
        return self.request("GET", path, None)

    def post(self, path: str, body: Mapping[str, Any]) -> Any:
        """The JSON reply to ``POST path`` with the JSON ``body``."""
        return self.request("POST", path, json.dumps(body, ensure_ascii=False).encode("utf-8"))

    def request(self, method: str, path: str, data: bytes | None) -> Any:
        """One request and its JSON reply; raises StatusError, ConnectionFailed, TimedOut or ValueError."""
        target = f"{self._prefix}{path}{self._query}"
        if self._proxy is not None and not self._https:
            target = self._origin + target  # a plain-HTTP proxy is sent the absolute URL
        conn = self._take()
        with _closed_on_failure(conn, f"no data from {self._host}:{self._port} within {self._timeout:g} s"):
            conn.request(method, target, body=data, headers=self._headers)
            reply = conn.getresponse()
            raw = reply.read()
        self._give_back(conn, reply.will_close)
        if reply.status >= 400:
            raise StatusError(reply.status, _body(raw), reply.headers)
        return json.loads(raw)

    # ------------------------------------------------------------ connections
    def _take(self) -> http.client.HTTPConnection:
        """An idle connection the server has not closed, else a new one (connected here)."""
        with self._lock:
            while self._idle:
                conn = self._idle.pop()
                if not _closed_by_peer(conn):
                    return conn
                conn.close()
        return self._connect()

    def _give_back(self, conn: http.client.HTTPConnection, will_close: bool) -> None:
        with self._lock:
            if will_close or self._closed or len(self._idle) >= self._max_idle:
                conn.close()
            else:
                self._idle.append(conn)

    def _connect(self) -> http.client.HTTPConnection:
        host, port = self._proxy[:2] if self._proxy is not None else (self._host, self._port)
        if self._https:
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                host, port, timeout=self._connect_timeout, context=self._ssl_context())
            if self._proxy is not None:
                conn.set_tunnel(self._host, self._port, headers=self._proxy[2])
        else:
            conn = http.client.HTTPConnection(host, port, timeout=self._connect_timeout)
        with _closed_on_failure(conn, f"no connection to {host}:{port} within {self._connect_timeout:g} s"):
            conn.connect()  # TCP, the proxy tunnel and TLS, all within the connect timeout
        conn.sock.settimeout(self._timeout)
        return conn

    def _ssl_context(self) -> Any:
        if self._ssl is None:
            import ssl  # plain-HTTP servers (vLLM, Ollama on a local port) never load it

            self._ssl = ssl.create_default_context()
        return self._ssl

    def close(self) -> None:
        """Close the idle connections; ones in use close when their request ends. Idempotent."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


@contextmanager
def _closed_on_failure(conn: http.client.HTTPConnection, timed_out: str) -> Iterator[None]:
    """Run the block; when it fails, close ``conn`` and raise :class:`TimedOut` (with ``timed_out``)
    for a timeout, :class:`ConnectionFailed` for a socket or HTTP error (the cause chained)."""
    try:
        yield
    except TimeoutError as exc:
        conn.close()
        raise TimedOut(timed_out) from exc
    except (OSError, http.client.HTTPException) as exc:
        conn.close()
        raise ConnectionFailed(f"{type(exc).__name__}: {exc}") from exc
    except BaseException:
        conn.close()
        raise


def _body(raw: bytes) -> Any:
    """An error reply's body: its JSON, else its text."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


def _closed_by_peer(conn: http.client.HTTPConnection) -> bool:
    """True when an idle connection is readable: the server closed it (or sent what nobody asked for)."""
    sock = conn.sock
    if sock is None:
        return True
    try:
        if hasattr(select, "poll"):  # poll: select() refuses descriptors past 1024 (a busy app has them)
            poller = select.poll()
            poller.register(sock, select.POLLIN)
            return bool(poller.poll(0))
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True


def _proxy_for(scheme: str, host: str) -> tuple[str, int, dict[str, str]] | None:
    """``(host, port, headers)`` of the proxy the environment names for ``scheme``, unless ``host`` bypasses it."""
    import urllib.request  # loaded with the first connection, never by a cached re-run

    url = urllib.request.getproxies().get(scheme)
    if not url or urllib.request.proxy_bypass(host):
        return None
    parts = urlsplit(url if "://" in url else f"http://{url}")
    headers = {}
    if parts.username is not None:
        token = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        headers["Proxy-Authorization"] = "Basic " + base64.b64encode(token).decode("ascii")
    return parts.hostname or "", parts.port or 80, headers
