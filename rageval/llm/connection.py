"""One role's connection to its model server: the openai client, bounded, and what a failed request raises.

Every request goes through the openai package's client (``OpenAI``, or ``AzureOpenAI`` for a role
whose server is an Azure OpenAI endpoint), with its own retries off (``max_retries=0``): retries,
backoff, Retry-After, rate limits, the reply cache and error texts are :mod:`rageval.llm.client`'s.
Requests use the client's generic ``get`` / ``post`` (any path: ``/chat/completions``,
``/embeddings``, ``/models``) and read the reply as plain JSON, so no typed reply model is built.

Each request is bounded (:mod:`rageval.llm.bounded`): it ends within ``deadline`` seconds in all
(connect, send, wait, read) and reads at most ``max_reply_bytes``, whatever the server does. TLS
is the client's default trust plus an optional CA bundle; proxies are httpx's (``HTTP(S)_PROXY``,
``ALL_PROXY``, ``NO_PROXY``). A redirect to the same scheme, host and port is followed; one to any
other origin is refused, so a key never travels to a host that was not configured.

The openai package (and httpx) load in :func:`open_connection`, when a role first goes online: an
offline command never imports them. What a request raises, for the client's retry loop:

- :class:`StatusError`: the server answered 4xx/5xx (status, body, headers, error code);
- :class:`TimedOut`: no connection within the connect timeout, or no data within the read timeout;
- :class:`CertificateFailed`: the server's TLS certificate is not trusted (not worth retrying);
- :class:`ConnectionFailed`: no reply otherwise (refused, unknown host, reset);
- :class:`LimitExceeded`: the deadline passed, the reply ran past its size, a redirect to another
  origin was refused, or a compressed reply (every request asks for none: its inflated size could
  not be bounded) (not retried: the same request would do the same again);
- ValueError: a 2xx reply whose body is not JSON.
"""
from __future__ import annotations

import json
from typing import Any, Mapping
from urllib.parse import urlsplit

DEADLINE_SETTING = "RAGEVAL_LLM_DEADLINE"
MAX_REPLY_SETTING = "RAGEVAL_LLM_MAX_REPLY_MB"
CA_SETTING = "RAGEVAL_LLM_CA_BUNDLE"


class ConnectionFailed(Exception):
    """No HTTP reply: refused, reset, unknown host, a broken reply (cause chained)."""


class TimedOut(ConnectionFailed):
    """No connection within the connect timeout, or no data within the read timeout."""


class CertificateFailed(ConnectionFailed):
    """The server's TLS certificate could not be verified against the trusted CAs."""


class LimitExceeded(Exception):
    """The request passed its deadline, its reply its size, or it was redirected to another origin;
    ``short`` names which, the message the setting (or what to do)."""

    def __init__(self, short: str, message: str):
        self.short = short
        super().__init__(message)


class StatusError(Exception):
    """The server answered with an error status; ``body`` is its JSON (or text), ``code`` the error code."""

    def __init__(self, status: int, body: Any, headers: Mapping[str, str], code: str | None = None):
        self.status_code, self.body, self.headers, self.code = status, body, headers, code
        self.message = f"Error code: {status} - {body}"
        super().__init__(self.message)


class ReplyRefused(Exception):
    """A reply the HTTP client's response hook refused before reading it; ``short`` names why."""

    def __init__(self, short: str, message: str):
        self.short = short
        super().__init__(message)


#: asked of every server: a reply's size is bounded as read, which a compressed one would escape
#: (a few MB of gzip can inflate to gigabytes)
IDENTITY = {"Accept-Encoding": "identity"}


def _check_reply(response: Any) -> None:
    """The response hook, before a body is read: a redirect whose Location is another scheme, host or
    port is not followed; a compressed body (asked for none) is not read."""
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise ReplyRefused("compressed reply", f"the server compressed its reply ({encoding}) though asked not to; "
                           "it is not read, as its size could not be bounded")
    if not response.is_redirect:
        return
    here = response.request.url
    there = here.join(response.headers.get("location", ""))
    if (there.scheme, there.host, there.port) != (here.scheme, here.host, here.port):
        raise ReplyRefused("redirected to another host",
                           f"the server redirected to another host ({there.scheme}://{there.host}"
                           f"{'' if there.port is None else f':{there.port}'}); not followed, so the key is not "
                           "sent there: set the base URL to where the server really is")


class Connection:
    """Requests to one role's server through its openai client (module docstring); thread-safe."""

    def __init__(self, client: Any, *, deadline: float, max_reply_bytes: int, ca_bundle: str | None):
        import openai

        self._client, self._openai = client, openai
        self._deadline, self._max_bytes, self._ca_bundle = float(deadline), int(max_reply_bytes), ca_bundle

    def get(self, path: str) -> Any:
        """The JSON reply to ``GET path`` (a path under the base URL, e.g. ``/models``)."""
        return self.request("GET", path, None)

    def post(self, path: str, body: Mapping[str, Any]) -> Any:
        """The JSON reply to ``POST path`` with the JSON ``body``."""
        return self.request("POST", path, body)

    def request(self, method: str, path: str, body: Mapping[str, Any] | None) -> Any:
        """One bounded request and its JSON reply; raises the module docstring's errors."""
        from rageval.llm.bounded import DeadlinePassed, ReplyTooLarge, bounded
        import httpx2

        openai = self._openai
        try:
            with bounded(self._deadline, self._max_bytes):
                if method == "GET":
                    reply = self._client.get(path, cast_to=httpx2.Response)
                else:
                    reply = self._client.post(path, body=body, cast_to=httpx2.Response)
                raw = reply.content
        except DeadlinePassed:
            raise LimitExceeded("deadline", f"no complete reply within {self._deadline:g} s (the deadline of "
                                f"one request; {DEADLINE_SETTING} sets it)") from None
        except ReplyTooLarge:
            raise LimitExceeded("reply too large", f"the reply ran past {self._max_bytes / 1e6:g} MB (the largest "
                                f"reply read; {MAX_REPLY_SETTING} sets it)") from None
        except ReplyRefused as exc:
            raise LimitExceeded(exc.short, str(exc)) from None
        except openai.APIStatusError as exc:
            raise StatusError(exc.status_code, exc.body, exc.response.headers, exc.code) from None
        except openai.APITimeoutError as exc:
            raise TimedOut("no data within the timeout") from exc
        except openai.APIConnectionError as exc:
            if _certificate_failure(exc):
                raise CertificateFailed(certificate_message(self._ca_bundle, exc)) from exc
            raise ConnectionFailed(str(exc)) from exc
        return json.loads(raw)

    def close(self) -> None:
        """Close the client's connections. Idempotent."""
        self._client.close()


def _certificate_failure(exc: BaseException) -> bool:
    import ssl

    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY_FAILED" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def certificate_message(ca_bundle: str | None, exc: BaseException) -> str:
    """What a certificate failure says: that the server's TLS certificate is not trusted, and the CA setting."""
    import ssl

    seen: BaseException | None = exc
    detail = ""
    while seen is not None and not detail:
        if isinstance(seen, ssl.SSLCertVerificationError):
            detail = f" ({seen.verify_message})" if seen.verify_message else ""
        seen = seen.__cause__ or seen.__context__
    trusted = f"the CAs of {CA_SETTING}={ca_bundle} and the default ones" if ca_bundle else "the default CAs"
    return (f"the server's TLS certificate could not be verified{detail} against {trusted}; if the server "
            f"uses a private or company CA, set {CA_SETTING} to a PEM file of that CA's certificates")


def open_connection(base_url: str, api_key: str, *, timeout: float, connect_timeout: float, deadline: float,
                    max_reply_bytes: int, ca_bundle: str | None = None, headers: Mapping[str, str] | None = None,
                    azure_api_version: str | None = None) -> Connection:
    """A :class:`Connection` to ``base_url`` (an ``AzureOpenAI`` one when ``azure_api_version`` is given).

    ValueError when ``base_url`` is not an http(s) URL; OSError / ssl.SSLError when ``ca_bundle`` cannot
    be read as certificates.
    """
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"the base URL {base_url!r} is not an http(s) URL")
    import httpx2
    import openai

    from rageval.llm.bounded import http_client

    http = http_client(timeout=timeout, connect_timeout=connect_timeout, ca_bundle=ca_bundle,
                       on_response=_check_reply)
    per_read = httpx2.Timeout(timeout, connect=min(connect_timeout, timeout))
    common = dict(api_key=api_key, max_retries=0, timeout=per_read, http_client=http,
                  default_headers={**IDENTITY, **(headers or {})})
    if azure_api_version is not None:
        client = openai.AzureOpenAI(azure_endpoint=base_url, api_version=azure_api_version, **common)
    else:
        client = openai.OpenAI(base_url=base_url, **common)
    return Connection(client, deadline=deadline, max_reply_bytes=max_reply_bytes, ca_bundle=ca_bundle)
