"""The reachability check of one role's server: is it there, does it know the model?

Lists ``/models`` (3 attempts, the caller's connection has a 3 s connect timeout); when the model is
not listed or the list is not served, sends one tiny request (a 1-token chat, or one
embedding). The LLM client runs it before a role's FIRST network call (never when every call is
answered from the cache): :class:`LazyPreflight`.
"""
from __future__ import annotations

import threading
import time
from typing import Callable, Iterable

from rageval.errors import LLMError
from rageval.llm.connection import CertificateFailed, Connection, ConnectionFailed, LimitExceeded, StatusError
from rageval.llm.roles import RoleConfig, certificate_error, connection_detail, display_url, unreachable_error


def check_role(cfg: RoleConfig, client: Connection, status_error: Callable[[StatusError], LLMError]) -> None:
    """Raise LLMError when ``cfg``'s server cannot be reached, refuses the key, or lacks the model; a
    server whose certificate is not trusted, or that breaks a request's bounds, fails the check."""
    try:
        _check(cfg, client, status_error)
    except CertificateFailed as exc:
        raise certificate_error(cfg, str(exc)) from None
    except LimitExceeded as exc:
        raise LLMError(f"the {cfg.role} at {display_url(cfg.base_url)} failed the reachability check: {exc}",
                       reason=f"llm_error: {exc.short}") from None


def _check(cfg: RoleConfig, client: Connection, status_error: Callable[[StatusError], LLMError]) -> None:
    listed: set[str] = set()
    for attempt in range(3):
        try:
            listed = {m["id"] for m in client.get("/models")["data"]}
            break
        except CertificateFailed:
            raise
        except ConnectionFailed as exc:
            if attempt == 2:
                raise unreachable_error(cfg, connection_detail(exc)) from None
            time.sleep(0.2 * 2**attempt)
        except StatusError as exc:
            if exc.status_code in (401, 403):
                raise status_error(exc) from None
            break
        except Exception:  # noqa: BLE001 - a /models we cannot read: probe instead
            break
    if cfg.model in listed:
        return
    try:
        if cfg.role == "embedder":
            client.post("/embeddings", {"model": cfg.model, "input": ["ping"], "encoding_format": "float"})
        else:
            client.post("/chat/completions", {"model": cfg.model, "max_tokens": 1,
                                              "messages": [{"role": "user", "content": "ping"}]})
    except CertificateFailed:
        raise
    except ConnectionFailed as exc:
        raise unreachable_error(cfg, connection_detail(exc)) from None
    except StatusError as exc:
        # 400/422 (e.g. max_tokens refused), 429, 5xx: the server is there and knows the model
        if exc.status_code in (401, 403, 404):
            raise status_error(exc) from None
    except ValueError:  # a reply that is not JSON: the server answered; the calls will tell more
        pass


class LazyPreflight:
    """Each role's server checked once, before that role's first network call (one thread checks
    while the others wait); a role on a server and model already checked is not checked again. A
    failure becomes the role's fatal error and :attr:`error`, so every call of the role fails fast
    with it (a run raises it: a server that cannot be reached fails the run, not each item)."""

    def __init__(self, roles: Iterable[str], check: Callable[[str], None], *, on: bool) -> None:
        self._pending = set(roles) if on else set()
        self._check = check  # check(role) raises LLMError
        self._lock = threading.Lock()
        self._passed: set[tuple[str | None, str]] = set()  # (base URL, model) checked
        self.error: LLMError | None = None

    def before_call(self, role: str, model: str, base_url: str | None, fatal: dict[tuple[str, str], LLMError]) -> None:
        """Check ``role`` if it was not checked yet; a failure goes into ``fatal[(role, model)]``."""
        if not self._pending:
            return
        with self._lock:
            if role not in self._pending:
                return
            try:
                if (base_url, model) not in self._passed:  # two roles on one server: one check
                    self._check(role)
                    self._passed.add((base_url, model))
            except LLMError as exc:
                fatal[(role, model)] = exc
                if self.error is None:
                    self.error = exc
            finally:
                self._pending.discard(role)
