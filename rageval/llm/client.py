"""The LLM client: every model call goes through here (over the openai client, :mod:`rageval.llm.connection`).

Roles
    ``generator`` (answers), ``judge`` (judged metrics), ``embedder`` (vectors). A role's spec is
    ``"openai:MODEL"`` or its offline backend (``extractive``, ``heuristic``, ``local``), which
    needs no client: :func:`make_llm_client` returns None when every role is offline.

Where a role's server and key come from: :mod:`rageval.llm.roles`; the cache key of a request and
how a JSON reply is read: :mod:`rageval.llm.replies`. Failed calls are never cached, nor are JSON
replies that fail to parse or validate (a re-run asks again); so re-running an unchanged run makes
zero network calls, and with ``preflight=True`` the reachability check (:mod:`rageval.llm.preflight`)
runs only before a role's first network call, so it makes none either. ``use_cache=False`` turns
off reads and writes.

Retries
    Requests go through :class:`rageval.llm.connection.Connection` (one openai client per role,
    its retries off; a connect and a read timeout; a deadline per request, ``RAGEVAL_LLM_DEADLINE``,
    and a largest reply, ``RAGEVAL_LLM_MAX_REPLY_MB``, either of which fails the call at once with a
    reason naming it; an untrusted TLS certificate fails the role at once, naming
    ``RAGEVAL_LLM_CA_BUNDLE``); this module retries
    timeouts, connection errors, malformed responses, 408/409/429 and 5xx up to ``max_retries``
    times, waiting ``Retry-After`` when sent (429/503, capped at 60 s), else
    ``min(20 s, backoff_base * 2**attempt) * U(0.5, 1)``; only the call that got the 429 waits.
    Calls in flight are bounded by an AIMD limiter (halved only when 429s are frequent in a 10 s
    window, +1 after a run of successes without 429s; :mod:`rageval.llm.pool`), and each role by
    its optional ``RAGEVAL_<ROLE>_RPM`` / ``RAGEVAL_<ROLE>_TPM`` caps. Other 4xx
    fail at once with a message naming role, model and base URL; after a 401/403/404 the role
    fails fast without calling again. A call that still fails gives ``status="failed"`` and
    ``reason="llm_error: <short>"``: it marks its own item, and the run goes on.

JSON replies
    :meth:`LLMClient.chat_json`: the reply model's JSON schema as ``response_format``, falling back
    to JSON mode, then the prompt alone (:mod:`rageval.llm.formats`: the mode is remembered per
    (server, model) and named in the judge signature, ``out:MODE``); a reply that does not do is
    re-asked once, then ``status="unscored"``, ``reason="judge_parse_error"``, raw text kept.
"""
from __future__ import annotations

import logging
import os
import random
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, TypeVar

from rageval import settings
from rageval.errors import ConfigError, LLMError, RagevalError
from rageval.llm.cost import UsageSummary, load_prices, summarize_calls
from rageval.llm.embeddings import Embeddings
from rageval.llm.chat import Chats
from rageval.llm.wire import post
from rageval.llm.preflight import LazyPreflight, check_role
from rageval.llm.pool import AIMDLimiter, BoundedPool, LimiterStats, RateCap, backoff_delay, parse_retry_after
from rageval.llm.replies import ChatReply, JSONReply
from rageval.llm.roles import (
    DEFAULT_BASE_URL, RoleConfig, api_key, certificate_error, connection_detail, display_url, openai_headers,
    roles_from_env, scrub, server_message, status_error,
)
from rageval.llm.connection import (
    CA_SETTING, CertificateFailed, Connection, ConnectionFailed, LimitExceeded, StatusError, TimedOut,
    open_connection,
)
from rageval.store.llm_cache import LLMStore

NO_KEY = "not-needed"
RETRY_STATUSES = frozenset({408, 409, 429})
#: what reading an odd reply raises; such a reply is retried as "malformed response"
MALFORMED = (ValueError, TypeError, KeyError, IndexError, AttributeError)
MAX_RETRY_AFTER = 60.0
T = TypeVar("T")
R = TypeVar("R")
log = logging.getLogger("rageval.llm")


#: seconds one request of the reachability check may take in all
PREFLIGHT_DEADLINE = 30.0
#: pool workers per limiter slot (see LLMClient.__init__)
POOL_WORKERS_PER_SLOT = 2


class LLMClient:
    """Calls the models of the configured roles: pooled, limited, retried, cached and logged."""

    def __init__(self, roles: dict[str, RoleConfig], *, store_path: Path | None = None, run_id: str | None = None,
                 concurrency: int = 16, timeout: float = 60.0, max_retries: int = 6, use_cache: bool = True,
                 prices: dict | None = None, env: Mapping[str, str] = os.environ,
                 secrets: Mapping[str, Any] | None = None, backoff_base: float = 0.5, backoff_cap: float = 20.0,
                 connect_timeout: float = 5.0, embed_batch: int = 64, preflight: bool = False,
                 throttle_window: float = 10.0, deadline: float | None = None, max_reply_mb: float | None = None,
                 ca_bundle: str | None = None):
        if concurrency < 1:
            raise ConfigError(f"concurrency={concurrency} must be at least 1")
        self._roles = dict(roles)
        self._keys = {role: api_key(cfg, env, secrets) for role, cfg in self._roles.items()}
        self._headers = openai_headers(env, secrets)
        self._secrets = sorted({k for k in self._keys.values() if k and len(k) >= 4}, key=len, reverse=True)
        self.run_id = run_id
        self.concurrency = concurrency
        self._timeout, self._connect_timeout = float(timeout), float(connect_timeout)
        # the bounds of one request (rageval.llm.bounded), the settings unless given here
        self._deadline = float(settings.value("RAGEVAL_LLM_DEADLINE", env) if deadline is None else deadline)
        mb = settings.value("RAGEVAL_LLM_MAX_REPLY_MB", env) if max_reply_mb is None else max_reply_mb
        self._max_reply_bytes = int(float(mb) * 1_000_000)
        self._ca_bundle = settings.value(CA_SETTING, env) if ca_bundle is None else ca_bundle
        if self._deadline <= 0 or self._max_reply_bytes <= 0:
            raise ConfigError(f"RAGEVAL_LLM_DEADLINE={self._deadline:g} and RAGEVAL_LLM_MAX_REPLY_MB={mb} "
                              "must be above 0")
        self._max_retries = int(max_retries)
        self._backoff_base, self._backoff_cap = float(backoff_base), float(backoff_cap)
        self._embed_batch = int(embed_batch)
        self._prices = load_prices(env=env) if prices is None else prices
        self._rng = random.Random()
        self._limiter = AIMDLimiter(concurrency, window=throttle_window)
        self._caps = {role: RateCap(cfg.rpm, cfg.tpm) for role, cfg in self._roles.items() if cfg.rpm or cfg.tpm}
        # twice as many workers as calls in flight: a call waiting out its Retry-After or backoff
        # sleeps in its worker without its limiter slot, and the spare workers keep the slots busy;
        # concurrency 1 stays strictly one call after another, in order
        self._pool = BoundedPool(concurrency if concurrency <= 1 else POOL_WORKERS_PER_SLOT * concurrency)
        self._store = LLMStore(store_path, [c.model for c in self._roles.values()], read=use_cache, write=use_cache)
        self._clients: dict[str, Connection] = {}
        self._lock = threading.Lock()
        self._fatal: dict[tuple[str, str], LLMError] = {}
        # preflight=True: each role's server is checked before that role's FIRST network call,
        # so work answered from the cache makes no call at all, the reachability check included
        self._preflight = LazyPreflight(self._roles, self._slotted_preflight, on=preflight)
        self._chats = Chats(call=self._call, log=self._log, store=self._store, role=self._role, caps=self._caps,
                            scrub=self.scrub, server_message=self._server_message)
        self._embeddings = Embeddings(call=self._call, post=post, log=self._log, store=self._store,
                                      map_fn=self.map, scrub=self.scrub, batch=embed_batch)
        self._finalizer = weakref.finalize(self, _shutdown, self._pool, self._store, self._clients)

    # ------------------------------------------------------------ roles and helpers
    @property
    def roles(self) -> dict[str, RoleConfig]:
        return dict(self._roles)

    def has_role(self, role: str) -> bool:
        return role in self._roles

    def _role(self, role: str) -> RoleConfig:
        if not self._finalizer.alive:
            raise RagevalError("this LLM client is closed; make a new one with make_llm_client()")
        if role not in self._roles:
            configured = ", ".join(self._roles) or "none"
            raise ConfigError(f"no model is configured for the {role} role (configured: {configured})")
        return self._roles[role]

    def model(self, role: str) -> str:
        return self._role(role).model

    def scrub(self, text: str) -> str:
        """``text`` with the API keys and anything key-shaped replaced by ``***``."""
        return scrub(text, self._secrets)

    def _make_client(self, role: str, *, timeout: float, connect: float, deadline: float) -> Connection:
        cfg = self._roles[role]
        url = cfg.base_url or DEFAULT_BASE_URL
        try:
            return open_connection(url, self._keys[role] or NO_KEY, timeout=timeout, connect_timeout=connect,
                                   deadline=deadline, max_reply_bytes=self._max_reply_bytes,
                                   ca_bundle=self._ca_bundle, headers=self._headers,
                                   azure_api_version=cfg.azure_api_version)
        except OSError as exc:  # the CA bundle (ssl.SSLError is an OSError)
            raise ConfigError(f"{CA_SETTING}={self._ca_bundle!r} cannot be read as PEM certificates: {exc}") from None
        except ValueError:
            where = cfg.base_url_env or f"RAGEVAL_{role.upper()}_BASE_URL / OPENAI_BASE_URL"
            raise ConfigError(f"the {role} server URL {self.scrub(url)!r} is not an http(s) URL; check {where} "
                              "(e.g. http://localhost:8000/v1)") from None

    def _client(self, role: str) -> Connection:
        with self._lock:
            if role not in self._clients:
                self._clients[role] = self._make_client(role, timeout=self._timeout, connect=self._connect_timeout,
                                                        deadline=self._deadline)
            return self._clients[role]

    def _log(self, role: str, model: str, key: str, kind: str, *, tokens_in: int = 0, tokens_out: int = 0,
             latency_ms: float, cached: bool, status: str, error: str | None = None, attempts: int = 0) -> None:
        self._store.log_call({
            "run_id": self.run_id, "key": key, "role": role, "model": model, "tokens_in": tokens_in,
            "tokens_out": tokens_out, "latency_ms": latency_ms, "cached": cached, "status": status,
            "error": error[:500] if error else None, "kind": kind, "attempts": attempts,
        })

    # ------------------------------------------------------------ errors
    def _server_message(self, exc: StatusError) -> str:
        return self.scrub(server_message(exc.body, exc.message))

    def _status_error(self, role: str, model: str, exc: StatusError) -> LLMError:
        return status_error(self._roles[role], model, exc.status_code, self._server_message(exc), exc.code)

    # ------------------------------------------------------------ the retry loop
    def _call(self, role: str, model: str, send: Callable[[Connection], T], *, tokens: int = 0) -> tuple[T, int]:
        """``send(client)`` with the rate caps, the limiter and retries; returns ``(result, attempts)``.

        ``tokens`` (the request's estimated tokens) is what each attempt takes from the role's
        tokens-per-minute cap. A 429 delays only this call: it waits its Retry-After (capped at
        60 s, plus up to 10% jitter) while the other calls go on.
        """
        self._preflight.before_call(role, model, self._roles[role].base_url, self._fatal)
        fatal = self._fatal.get((role, model))
        if fatal is not None:
            raise _attempted(LLMError(str(fatal), reason=fatal.reason), 0)
        short = message = ""
        attempt = 0
        cap = self._caps.get(role)
        for attempt in range(self._max_retries + 1):
            if cap is not None:
                cap.acquire(tokens)  # before taking a slot: waiting for the cap holds no slot
            token = self._limiter.acquire()
            outcome, wait_hint = "error", None
            try:
                result = send(self._client(role))
                outcome = "ok"
                return result, attempt + 1
            except StatusError as exc:
                status = exc.status_code
                if status in (429, 503):
                    wait_hint = parse_retry_after(exc.headers)
                if status == 429:
                    outcome = "throttled"
                if status < 500 and status not in RETRY_STATUSES:
                    error = self._status_error(role, model, exc)
                    if status in (401, 403, 404):
                        self._fatal[(role, model)] = error
                    raise _attempted(error, attempt + 1) from None
                short, message = f"http {status}", f"HTTP {status}: {self._server_message(exc)}"
            except LimitExceeded as exc:  # the same request would pass its bounds again: not retried
                url = display_url(self._roles[role].base_url)
                raise _attempted(LLMError(f"the {role} call to {model} at {url} failed: {exc}",
                                          reason=f"llm_error: {exc.short}"), attempt + 1) from None
            except CertificateFailed as exc:  # no retry trusts a certificate: the role fails fast
                error = certificate_error(self._roles[role], str(exc))
                self._fatal[(role, model)] = error
                raise _attempted(error, attempt + 1) from None
            except TimedOut:
                short, message = "timeout", f"no data within {self._timeout:g} s"
            except ConnectionFailed as exc:
                short, message = "connection error", connection_detail(exc)
            except MALFORMED as exc:
                short, message = "malformed response", self.scrub(f"{type(exc).__name__}: {exc}")[:300]
            finally:
                self._limiter.release(token, outcome)
            if attempt < self._max_retries:
                if wait_hint is not None:
                    delay = min(wait_hint, MAX_RETRY_AFTER) * (1.0 + 0.1 * self._rng.random())
                else:
                    delay = backoff_delay(attempt, base=self._backoff_base, cap=self._backoff_cap, rng=self._rng)
                log.info("%s call to %s: %s; retry %d in %.2f s", role, model, message, attempt + 1, delay)
                time.sleep(delay)
        url = display_url(self._roles[role].base_url)
        raise _attempted(LLMError(
            f"the {role} call to {model} at {url} failed after {attempt + 1} attempts: {message}",
            reason=f"llm_error: {short}"), attempt + 1)

    # ------------------------------------------------------------ chat
    def chat(self, role: str, messages: list[dict], *, temperature: float = 0.0, seed: int | None = 0,
             max_tokens: int | None = None) -> ChatReply:
        """One chat completion; never raises for a failed call (``status="failed"`` with the reason)."""
        return self._chats.ask(role, messages, temperature=temperature, seed=seed, max_tokens=max_tokens,
                               response_format=None, kind="chat")

    def output_mode(self, role: str) -> str:
        """The structured-output mode for ``role``'s (server, model) (:class:`rageval.llm.formats.OutputModes`)."""
        return self._chats.output_mode(role)

    def chat_json(self, role: str, messages: list[dict], *, validate: Callable[[Any], Any] | None = None,
                  schema: Any | None = None, temperature: float = 0.0, seed: int | None = 0,
                  max_tokens: int | None = None) -> JSONReply:
        """A JSON reply validated by the reply model ``schema`` (a pydantic model class) and/or
        ``validate`` (returns the clean value or raises ValueError), in that order; never raises for
        a failed call (:meth:`rageval.llm.chat.Chats.ask_for_json`)."""
        return self._chats.ask_for_json(role, messages, validate=validate, schema=schema,
                                        temperature=temperature, seed=seed, max_tokens=max_tokens)

    def embed(self, texts: list[str], *, model: str | None = None) -> list[list[float]]:
        """Vectors of ``texts`` from the embedder role (``encoding_format="float"``), cached per text.

        Misses go out in batches of ``embed_batch`` texts, concurrently; raises LLMError when a
        batch still fails after its retries.
        """
        return self._embeddings.embed(texts, model or self._role("embedder").model,
                                      display_url(self._role("embedder").base_url))

    # ------------------------------------------------------------ pool, preflight, accounting
    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """``[fn(x) for x in items]`` on the shared pool (``concurrency`` in flight), in input order.

        A ``map`` inside a mapped function runs in its caller's thread (no deadlock); fan out at
        the outermost level.
        """
        return self._pool.map(fn, items)

    def preflight(self, role: str) -> None:
        """Check that the role's server answers and knows the model; raise LLMError if not
        (:func:`rageval.llm.preflight.check_role`)."""
        cfg = self._role(role)
        client = self._make_client(role, timeout=10.0, connect=3.0, deadline=min(self._deadline, PREFLIGHT_DEADLINE))
        try:
            check_role(cfg, client, lambda exc: self._status_error(role, cfg.model, exc))
        finally:
            client.close()

    def _slotted_preflight(self, role: str) -> None:
        """:meth:`preflight` as a request like any other: it takes a limiter slot, so a role checked
        while another role's calls fill every slot never makes it N + 1."""
        token = self._limiter.acquire()
        try:
            self.preflight(role)
        finally:
            self._limiter.release(token, "check")

    @property
    def preflight_error(self) -> LLMError | None:
        """The first failed reachability check of this client (``preflight=True``), else None."""
        return self._preflight.error

    def usage(self) -> UsageSummary:
        """The calls this client made (all runs), from memory."""
        return summarize_calls(list(self._store.log), self._prices)

    def stats(self) -> LimiterStats:
        """The concurrency limiter's state: current limit, lowest reached, decreases, increases."""
        return self._limiter.stats()

    def flush(self) -> None:
        """Write buffered cache entries and call rows to the database now."""
        self._store.flush()

    def close(self) -> None:
        """Finish: wait for mapped work, flush the store, close HTTP connections. Idempotent."""
        self._finalizer()

    def __enter__(self) -> "LLMClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        roles = ", ".join(f"{r}=openai:{c.model}@{display_url(c.base_url)}" for r, c in self._roles.items())
        return f"LLMClient({roles}, concurrency={self.concurrency})"


def _attempted(error: LLMError, attempts: int) -> LLMError:
    error.attempts = attempts  # type: ignore[attr-defined]
    return error


def _shutdown(pool: BoundedPool, store: LLMStore, clients: dict) -> None:
    pool.close()
    try:
        store.close()
    finally:
        for client in list(clients.values()):
            client.close()
        clients.clear()


def make_llm_client(models: Mapping[str, str], store_path: Path | None = None, run_id: str | None = None,
                    concurrency: int = 16, use_cache: bool = True, *, env: Mapping[str, str] = os.environ,
                    secrets: Mapping[str, Any] | None = None, **options: Any) -> LLMClient | None:
    """An LLMClient for the online roles of ``models`` (``{role: spec}``), or None if all are offline.

    Raises ConfigError for a spec like ``"openai:"`` (no model) or an unknown backend name.
    ``options`` go to :class:`LLMClient` (timeout, max_retries, prices, backoff_base, ...).
    """
    roles = roles_from_env(models, env=env, secrets=secrets)
    if not roles:
        return None
    return LLMClient(roles, store_path=store_path, run_id=run_id, concurrency=concurrency,
                     use_cache=use_cache, env=env, secrets=secrets, **options)
