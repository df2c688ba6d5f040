"""Limits on one request to a model server, enforced where the bytes are read: a deadline and a size.

The openai client reads a reply whole before it hands it over, and its read timeout applies to
each read from the socket (a server dripping a byte a second never times out). So the HTTP client
given to it (:func:`http_client`) reads through :class:`BoundedBackend`, which wraps every socket
the connection pool opens: each connect, TLS handshake, write and read waits at most until the
request's deadline, and the bytes read for the request are counted and cut off past its limit.
The limits of the request in progress are a :class:`Budget` in a context variable
(:func:`bounded`): the openai client sends in the caller's thread, so each thread's request sees
its own, on a pooled keep-alive connection too.

A tripped limit raises :class:`DeadlinePassed` or :class:`ReplyTooLarge` out of the openai
client's call (neither is an httpx error, so the client neither retries nor rewraps it); the
connection is dropped, never reused. Proxies, TLS trust and redirects are httpx's: the
``HTTP(S)_PROXY`` / ``ALL_PROXY`` / ``NO_PROXY`` variables, the default trust store (plus a CA
bundle when given), same-host redirects followed (:mod:`rageval.llm.connection` refuses the
others). This module imports httpx2, so only :mod:`rageval.llm.connection` loads it, when a role
first goes online.
"""
from __future__ import annotations

import contextvars
import ssl
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import httpcore2
import httpx2


class DeadlinePassed(Exception):
    """The request was not answered in full before its deadline."""


class ReplyTooLarge(Exception):
    """The reply ran past the largest size a request may read."""


@dataclass
class Budget:
    """What one request may still spend: until ``deadline`` (``time.monotonic()``), ``max_bytes`` read."""

    deadline: float
    max_bytes: int
    read: int = field(default=0)

    def wait(self, timeout: float | None) -> float:
        """The time one socket operation may wait: ``timeout`` cut to what is left before the deadline."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise DeadlinePassed()
        return left if timeout is None else min(timeout, left)

    def count(self, data: bytes) -> bytes:
        self.read += len(data)
        if self.read > self.max_bytes:
            raise ReplyTooLarge()
        return data


_BUDGET: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("rageval_llm_budget", default=None)


@contextmanager
def bounded(seconds: float, max_bytes: int) -> Iterator[Budget]:
    """Requests sent in this block (this thread) end within ``seconds`` and read at most ``max_bytes``."""
    token = _BUDGET.set(Budget(time.monotonic() + seconds, max_bytes))
    try:
        yield _BUDGET.get()  # type: ignore[misc]
    finally:
        _BUDGET.reset(token)


def _within(operation: Callable[[float | None], Any], timeout: float | None) -> Any:
    """``operation(timeout)`` cut to the budget's deadline; a timeout that the deadline caused is DeadlinePassed."""
    budget = _BUDGET.get()
    if budget is None:
        return operation(timeout)
    wait = budget.wait(timeout)
    try:
        return operation(wait)
    except httpcore2.TimeoutException:
        if timeout is None or wait < timeout:
            raise DeadlinePassed() from None
        raise


class BoundedStream(httpcore2.NetworkStream):
    """A socket stream whose operations keep to the request's budget (module docstring)."""

    def __init__(self, stream: httpcore2.NetworkStream):
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data = _within(lambda wait: self._stream.read(max_bytes, wait), timeout)
        budget = _BUDGET.get()
        return data if budget is None else budget.count(data)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        _within(lambda wait: self._stream.write(buffer, wait), timeout)

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore2.NetworkStream:
        return BoundedStream(_within(lambda wait: self._stream.start_tls(ssl_context, server_hostname, wait), timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class BoundedBackend(httpcore2.NetworkBackend):
    """The connection pool's sockets, each a :class:`BoundedStream`."""

    def __init__(self, backend: httpcore2.NetworkBackend):
        self._backend = backend

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Any = None) -> httpcore2.NetworkStream:
        return BoundedStream(_within(lambda wait: self._backend.connect_tcp(
            host, port, wait, local_address=local_address, socket_options=socket_options), timeout))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Any = None) -> httpcore2.NetworkStream:
        return BoundedStream(_within(lambda wait: self._backend.connect_unix_socket(
            path, wait, socket_options=socket_options), timeout))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class BoundedTransport(httpx2.HTTPTransport):
    """httpx's transport (a proxy too) whose connection pool reads through :class:`BoundedBackend`."""

    def __init__(self, **options: Any):
        super().__init__(**options)
        pool = self._pool  # httpx builds the pool; its sockets come from the backend it holds
        pool._network_backend = BoundedBackend(pool._network_backend)


class BoundedClient(httpx2.Client):
    """An httpx client whose direct and proxy transports are :class:`BoundedTransport` (env proxies kept)."""

    def _init_transport(self, verify: Any = True, cert: Any = None, trust_env: bool = True, http1: bool = True,
                        http2: bool = False, limits: Any = httpx2.Limits(), transport: Any = None) -> Any:
        return transport or BoundedTransport(verify=verify, cert=cert, trust_env=trust_env, http1=http1,
                                             http2=http2, limits=limits)

    def _init_proxy_transport(self, proxy: Any, verify: Any = True, cert: Any = None, trust_env: bool = True,
                              http1: bool = True, http2: bool = False, limits: Any = httpx2.Limits()) -> Any:
        return BoundedTransport(verify=verify, cert=cert, trust_env=trust_env, http1=http1, http2=http2,
                                limits=limits, proxy=proxy)


def tls_context(ca_bundle: str | None) -> ssl.SSLContext:
    """httpx's default trust (``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` honoured), plus the CAs of ``ca_bundle``
    (a PEM file) when given; OSError / ssl.SSLError when that file cannot be read as certificates."""
    context = httpcore2.default_ssl_context()
    if ca_bundle:
        context.load_verify_locations(cafile=ca_bundle)
    return context


def http_client(*, timeout: float, connect_timeout: float, ca_bundle: str | None,
                on_response: Callable[[httpx2.Response], None]) -> httpx2.Client:
    """The HTTP client of one role's openai client: bounded sockets, ``timeout`` per read (``connect_timeout``
    to connect), redirects followed after ``on_response`` saw each reply (it raises to refuse one)."""
    return BoundedClient(
        verify=tls_context(ca_bundle), timeout=httpx2.Timeout(timeout, connect=min(connect_timeout, timeout)),
        follow_redirects=True, limits=httpx2.Limits(max_connections=1000, max_keepalive_connections=100),
        event_hooks={"response": [on_response]})
