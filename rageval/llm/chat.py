"""Chat calls for the LLM layer: :class:`Chats`, which :class:`rageval.llm.client.LLMClient` holds.

Like :mod:`rageval.llm.embeddings` it does no HTTP itself: the client hands it its retry
loop, call log, cache, rate caps and role lookup. One completion is answered from the cache or
sent, logged and (when usable) cached (:meth:`Chats.ask`); a JSON reply goes in the (server,
model)'s structured-output mode (:mod:`rageval.llm.formats`), is read tolerantly and validated
(:mod:`rageval.llm.replies`), and is re-asked once with the error (:meth:`Chats.ask_for_json`).
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, Callable

from rageval.errors import LLMError
from rageval.llm.formats import OutputModes
from rageval.llm.replies import (
    ChatReply, JSONReply, ask_json, parse_and_validate, request_key, response_format, validator,
)
from rageval.llm.roles import display_url
from rageval.llm.wire import FormatRejected, send_chat


class Chats:
    """The chat roles' calls (see the module docstring)."""

    def __init__(self, *, call: Callable, log: Callable, store: Any, role: Callable[[str], Any],
                 caps: dict[str, Any], scrub: Callable[[str], str], server_message: Callable[[Any], str]):
        self._call, self._log, self._store, self._role = call, log, store, role
        self._caps, self._scrub, self._server_message = caps, scrub, server_message
        self._modes = OutputModes(store)

    def _server(self, role: str) -> str:
        """The identity of ``role``'s server in cache keys: its base URL without user info or query."""
        return display_url(self._role(role).base_url)

    def ask(self, role: str, messages: list[dict], *, temperature: float, seed: int | None,
            max_tokens: int | None, response_format: dict | None, kind: str,
            usable: Callable[[str], bool] | None = None) -> ChatReply:
        """One completion from the cache, else sent and logged; cached when ``usable(text)`` (or always
        without ``usable``). A failed call or an empty chat reply is ``status="failed"``, never raised."""
        model = self._role(role).model
        request = {"kind": kind, "model": model, "messages": messages, "temperature": temperature,
                   "seed": seed, "response_format": response_format, "max_tokens": max_tokens}
        key = request_key({**request, "server": self._server(role)})  # ask_for_json rebuilds it for a re-ask
        start = time.perf_counter()
        hit = self._store.get(key)
        if hit is not None:
            ms = (time.perf_counter() - start) * 1000
            self._log(role, model, key, kind, tokens_in=hit["tokens_in"], tokens_out=hit["tokens_out"],
                      latency_ms=ms, cached=True, status="ok")
            return ChatReply(hit["text"], "ok", None, True, hit["tokens_in"], hit["tokens_out"], ms,
                             finish_reason=hit.get("finish_reason"))
        estimated = sum(len(str(m.get("content", ""))) for m in messages) // 4 + (max_tokens or 256)
        try:
            (text, t_in, t_out, finish), attempts = self._call(
                role, model, lambda client: send_chat(client, request, self._server_message), tokens=estimated)
        except LLMError as exc:
            ms = (time.perf_counter() - start) * 1000
            message = self._scrub(str(exc))
            self._log(role, model, key, kind, latency_ms=ms, cached=False, status="failed", error=message,
                      attempts=getattr(exc, "attempts", 0))
            return ChatReply(None, "failed", exc.reason, False, 0, 0, ms, error=message,
                             attempts=getattr(exc, "attempts", 0))
        ms = (time.perf_counter() - start) * 1000
        if role in self._caps:
            self._caps[role].settle(estimated, t_in + t_out)
        if kind == "chat" and not (text or "").strip():
            message = f"the {role} model {model} returned an empty reply"
            self._log(role, model, key, kind, tokens_in=t_in, tokens_out=t_out, latency_ms=ms, cached=False,
                      status="failed", error=message, attempts=attempts)
            return ChatReply(text or "", "failed", "llm_error: empty reply", False, t_in, t_out, ms,
                             error=message, finish_reason=finish, attempts=attempts)
        if usable is None or usable(text or ""):  # a reply the caller cannot use is not cached
            self._store.put(key, model, {"text": text or "", "tokens_in": t_in, "tokens_out": t_out,
                                         "finish_reason": finish})
        self._log(role, model, key, kind, tokens_in=t_in, tokens_out=t_out, latency_ms=ms, cached=False,
                  status="ok", attempts=attempts)
        return ChatReply(text or "", "ok", None, False, t_in, t_out, ms, finish_reason=finish, attempts=attempts)

    def _where(self, role: str) -> tuple[str, str]:
        cfg = self._role(role)
        return display_url(cfg.base_url), cfg.model

    def output_mode(self, role: str) -> str:
        """The structured-output mode for ``role``'s (server, model) (:class:`OutputModes`)."""
        return self._modes.get(self._where(role))

    def ask_for_json(self, role: str, messages: list[dict], *, validate: Callable[[Any], Any] | None = None,
                     schema: Any | None = None, temperature: float = 0.0, seed: int | None = 0,
                     max_tokens: int | None = None) -> JSONReply:
        """A JSON reply validated by the reply model ``schema`` (a pydantic model class) and/or
        ``validate`` (returns the clean value or raises ValueError), in that order.

        The request carries the schema as ``response_format`` JSON schema, or JSON mode, or
        nothing, following :meth:`output_mode`; a 400 that names the format moves the server
        down one mode and asks again. Asks once more with the parse/validation error appended
        when the first reply does not do; then gives up with ``status="unscored"``,
        ``reason="judge_parse_error"``. Only replies that parse and validate are cached: a
        broken reply is treated like a failed call, so a re-run asks again instead of replaying
        it (and two identical requests that raced in one run cannot leave a broken reply in the
        cache for the next).
        """
        check = validator(schema, validate)
        def usable(text: str) -> bool:
            return parse_and_validate(text, check)[1] is None

        used: dict[str, Any] = {}

        def send(msgs: list[dict]) -> ChatReply:
            while True:
                mode = self.output_mode(role)
                fmt = response_format(mode, schema)
                effective = (
                    "prompt" if fmt is None else ("json_schema" if fmt["type"] == "json_schema" else "json_object")
                )
                try:
                    reply = self.ask(role, msgs, temperature=temperature, seed=seed, max_tokens=max_tokens,
                                     response_format=fmt, kind="json", usable=usable)
                except FormatRejected as exc:
                    self._modes.downgrade(self._where(role), effective, str(exc))
                    continue
                used.setdefault("format", fmt)
                used["mode"] = effective
                return reply

        reply = ask_json(send, messages, check)
        if reply.status == "ok" and reply.reasked and not reply.cached:
            # the usable answer to the original request is the re-ask's: cache it under the
            # original key too, so an unchanged re-run makes no call at all for this item
            model = self._role(role).model
            key = request_key({"kind": "json", "model": model, "messages": messages, "temperature": temperature,
                               "seed": seed, "response_format": used.get("format"), "max_tokens": max_tokens,
                               "server": self._server(role)})
            self._store.put(key, model, {"text": reply.raw or "", "tokens_in": 0, "tokens_out": 0,
                                         "finish_reason": "stop"})
        return replace(reply, mode=used.get("mode"))
