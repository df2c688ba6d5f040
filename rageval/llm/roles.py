"""Roles, model specs and where their servers and keys come from; error texts that name them.

Pure (no I/O); :mod:`rageval.llm.client` builds on it. A key is looked up by the
client only, by the NAME recorded in :class:`RoleConfig` (``api_key_env``), so the config
objects that travel through runs, logs and the config hash never hold it.

Environment variables (or ``st.secrets`` passed as ``secrets=``; a secret wins over an
environment variable of the same name, a per-role name wins over the shared one)
    base URL: ``RAGEVAL_<ROLE>_AZURE_ENDPOINT``, ``RAGEVAL_<ROLE>_BASE_URL``, ``AZURE_OPENAI_ENDPOINT``,
    ``OPENAI_BASE_URL``, the first set, else OpenAI's API; an ``..._AZURE_ENDPOINT`` makes the role
    an Azure OpenAI one (``api-key`` header, ``OPENAI_API_VERSION`` as the ``api-version`` query, the
    model as the deployment name);
    API key:  ``RAGEVAL_<ROLE>_API_KEY``, then ``AZURE_OPENAI_API_KEY`` for an Azure role, then
    ``OPENAI_API_KEY``. A server without keys (vLLM, Ollama, llama.cpp) needs only the base URL. A
    key is read when the client is made and goes only into the request's key header: never into
    RoleConfig, DuckDB, logs or error messages (messages are scrubbed of the key, of ``Bearer ...``
    and of anything shaped like ``sk-...``).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence
from urllib.parse import urlsplit

from rageval import settings
from rageval.errors import ConfigError, LLMError
from rageval.types import Spec

ROLES = ("generator", "judge", "embedder")
DEFAULT_BASE_URL = settings.default("OPENAI_BASE_URL")
_SECRETISH = re.compile(r"(sk-[A-Za-z0-9_\-*.]{6,}|(?i:bearer)\s+\S+)")


@dataclass(frozen=True)
class RoleConfig:
    """Where one role's model lives. Never holds the key, only the name of its variable."""

    role: str
    model: str
    base_url: str | None
    api_key_env: str | None
    base_url_env: str | None = None  # the variable the base URL came from
    rpm: int | None = None           # requests per minute cap (RAGEVAL_<ROLE>_RPM), None = none
    tpm: int | None = None           # tokens per minute cap (RAGEVAL_<ROLE>_TPM), None = none
    azure_api_version: str | None = None  # an Azure OpenAI role: its api-version (OPENAI_API_VERSION)


def lookup(names: Sequence[str], env: Mapping[str, str],
           secrets: Mapping[str, Any] | None) -> tuple[str | None, str | None]:
    """``(value, name)`` of the first of ``names`` set in ``secrets`` or ``env`` (secrets first)."""
    for name in names:
        for source in (secrets, env):
            if source is None:
                continue
            try:
                value = source.get(name)
            except Exception:  # noqa: BLE001 - st.secrets raises when there is no secrets file
                value = None
            if value is not None and str(value).strip():
                return str(value).strip(), name
    return None, None


def role_config(role: str, model: str, *, env: Mapping[str, str] = os.environ,
                secrets: Mapping[str, Any] | None = None) -> RoleConfig:
    """The RoleConfig of ``role`` for ``model``: per-role variables, then the shared OPENAI_ ones.

    Rate caps are per role only: ``RAGEVAL_<ROLE>_RPM`` (requests per minute) and
    ``RAGEVAL_<ROLE>_TPM`` (prompt + completion tokens per minute).
    """
    if role not in ROLES:
        raise ConfigError(f"unknown model role {role!r}; roles are: {', '.join(ROLES)}")
    up = role.upper()
    base, base_env = lookup((f"RAGEVAL_{up}_AZURE_ENDPOINT", f"RAGEVAL_{up}_BASE_URL", "AZURE_OPENAI_ENDPOINT",
                             "OPENAI_BASE_URL"), env, secrets)
    azure = base_env is not None and "AZURE" in base_env
    keys = (f"RAGEVAL_{up}_API_KEY", "AZURE_OPENAI_API_KEY", "OPENAI_API_KEY") if azure else \
        (f"RAGEVAL_{up}_API_KEY", "OPENAI_API_KEY")
    _, key_env = lookup(keys, env, secrets)
    rpm, tpm = (_cap(f"RAGEVAL_{up}_{kind}", env, secrets) for kind in ("RPM", "TPM"))
    version = (lookup(("OPENAI_API_VERSION",), env, secrets)[0] or settings.default("OPENAI_API_VERSION")) \
        if azure else None
    return RoleConfig(role, model, base.rstrip("/") if base else None, key_env, base_env, rpm, tpm, version)


def _cap(name: str, env: Mapping[str, str], secrets: Mapping[str, Any] | None) -> int | None:
    """A positive integer rate cap from ``name``, None when unset; ConfigError when malformed."""
    value, _ = lookup((name,), env, secrets)
    if value is None:
        return None
    try:
        cap = int(value.replace("_", "").replace(",", ""))
    except ValueError:
        cap = 0
    if cap < 1:
        raise ConfigError(f"{name}={value!r} must be a whole number of at least 1 (per minute)")
    return cap


def roles_from_env(models: Mapping[str, str], *, env: Mapping[str, str] = os.environ,
                   secrets: Mapping[str, Any] | None = None) -> dict[str, RoleConfig]:
    """RoleConfigs of the online roles in ``models`` (``{role: spec}``); offline roles are left out."""
    out = {}
    for role, spec in models.items():
        model = Spec.parse(role, spec).model
        if model is not None:
            out[role] = role_config(role, model, env=env, secrets=secrets)
    return out


def api_key(cfg: RoleConfig, env: Mapping[str, str], secrets: Mapping[str, Any] | None) -> str | None:
    """The key for ``cfg`` (None for a keyless server); ConfigError when neither key nor URL is set."""
    key = lookup((cfg.api_key_env,), env, secrets)[0] if cfg.api_key_env else None
    if key is None and cfg.base_url is None:
        up = cfg.role.upper()
        raise ConfigError(
            f"the {cfg.role} (openai:{cfg.model}) needs an API key: set RAGEVAL_{up}_API_KEY or "
            f"OPENAI_API_KEY, or RAGEVAL_{up}_BASE_URL / OPENAI_BASE_URL for a server without keys"
        )
    return key


def openai_headers(env: Mapping[str, str], secrets: Mapping[str, Any] | None) -> dict[str, str]:
    """The ``OpenAI-Organization`` / ``OpenAI-Project`` headers of ``OPENAI_ORG_ID`` / ``OPENAI_PROJECT_ID``,
    when set (sent to every role's server, as the openai client sends them)."""
    org, _ = lookup(("OPENAI_ORG_ID",), env, secrets)
    project, _ = lookup(("OPENAI_PROJECT_ID",), env, secrets)
    return {**({"OpenAI-Organization": org} if org else {}), **({"OpenAI-Project": project} if project else {})}


def missing_settings(models: Mapping[str, str], *, env: Mapping[str, str] = os.environ,
                     secrets: Mapping[str, Any] | None = None) -> list[str]:
    """For each online role of ``models`` that has neither a key nor a server URL: what to set
    (the message :func:`api_key` would raise when the role makes its first call)."""
    out = []
    for role, spec in models.items():
        try:
            model = Spec.parse(role, spec).model
            if model is not None:
                api_key(role_config(role, model, env=env, secrets=secrets), env, secrets)
        except ConfigError as exc:
            out.append(str(exc))
    return out


def server_message(body: Any, fallback: str | None) -> str:
    """The ``message`` of an OpenAI-style error body (``{"error": {"message": ...}}``), short."""
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        body = inner.get("message") if isinstance(inner, Mapping) else inner
    return str(body or fallback or "")[:300]


def display_url(url: str | None) -> str:
    """The base URL without user info or query, fit for messages.

    >>> display_url("http://user:pw@10.0.0.5:8000/v1?token=x")
    'http://10.0.0.5:8000/v1'
    """
    parts = urlsplit(url or DEFAULT_BASE_URL)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return f"{parts.scheme}://{netloc}{parts.path}"


def scrub(text: str, secrets: Sequence[str] = ()) -> str:
    """``text`` with each of ``secrets``, ``Bearer ...`` and anything like ``sk-...`` replaced by ``***``.

    >>> scrub("Incorrect API key provided: sk-abc123def456. Bearer xyz")
    'Incorrect API key provided: *** ***'
    """
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            text = text.replace(secret, "***")
    return _SECRETISH.sub("***", text)


def status_error(cfg: RoleConfig, model: str, status: int, detail: str, code: str | None) -> LLMError:
    """The LLMError for an HTTP error that is not worth retrying; names role, model and URL."""
    role, url = cfg.role, display_url(cfg.base_url)
    if status == 401:
        where = cfg.api_key_env or f"RAGEVAL_{role.upper()}_API_KEY / OPENAI_API_KEY"
        return LLMError(f"the {role} at {url} rejected the API key (HTTP 401); check {where}",
                        reason="llm_error: unauthorized")
    if status == 403:
        return LLMError(f"the {role} at {url} refused access to model {model!r} (HTTP 403): {detail}",
                        reason="llm_error: forbidden")
    if status == 404:
        if code == "model_not_found" or "model" in detail.lower():
            return LLMError(f"the {role} model {model!r} was not found at {url}: {detail}; "
                            f"check the model name given for --{role}", reason="llm_error: model_not_found")
        return LLMError(f"the {role} at {url} answered 404 Not Found ({detail}); "
                        "check the base URL (it usually ends in /v1)", reason="llm_error: not_found")
    return LLMError(f"the {role} ({model} at {url}) rejected the request (HTTP {status}): {detail}",
                    reason=f"llm_error: http {status}")


def unreachable_error(cfg: RoleConfig, detail: str) -> LLMError:
    """The LLMError for a server that cannot be reached; names the variables to check."""
    up = cfg.role.upper()
    where = f"{cfg.base_url_env or 'OPENAI_BASE_URL'} / RAGEVAL_{up}_BASE_URL"
    if cfg.base_url_env == f"RAGEVAL_{up}_BASE_URL":
        where = f"RAGEVAL_{up}_BASE_URL / OPENAI_BASE_URL"
    return LLMError(f"the {cfg.role} at {display_url(cfg.base_url)} is unreachable: {detail}; check {where}",
                    reason="llm_error: unreachable")


def certificate_error(cfg: RoleConfig, detail: str) -> LLMError:
    """The LLMError for a server whose TLS certificate is not trusted (``detail`` names the CA setting)."""
    return LLMError(f"the {cfg.role} at {display_url(cfg.base_url)}: {detail}", reason="llm_error: certificate")


def connection_detail(exc: BaseException) -> str:
    """A short cause for a connection failure, read from the exception chain."""
    chain, seen = [], exc
    while seen is not None and len(chain) < 6:
        chain.append(f"{type(seen).__name__} {seen}".lower())
        seen = seen.__cause__ or seen.__context__
    text = " ".join(chain)
    if "refused" in text:
        return "connection refused"
    if any(s in text for s in ("name or service", "getaddrinfo", "nodename", "name resolution")):
        return "host name not found"
    if "timeout" in text or "timed out" in text:
        return "no answer (timed out)"
    return "connection failed (" + type(exc.__cause__ or exc).__name__ + ")"
