"""What goes over the wire for a chat call: the raw request and reading its reply.

Requests go through the role's :class:`rageval.llm.connection.Connection` as plain JSON (no typed
params or reply models to build). A server without ``usage`` gets the ~4 characters per token rule.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from rageval.llm.connection import Connection, StatusError

#: words a 400 about an unsupported ``response_format`` contains (OpenAI, vLLM, llama.cpp, Ollama)
FORMAT_WORDS = re.compile(r"response_format|json|schema|format|structured", re.IGNORECASE)


class FormatRejected(Exception):
    """The server answered 400 to a request's ``response_format`` (not retried: downgraded)."""


def post(client: Connection, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """The JSON object the server answers to ``body`` at ``path``; ValueError if it is not one."""
    reply = client.post(path, body)
    if not isinstance(reply, Mapping):
        raise ValueError(f"the server's reply to {path} is not a JSON object")
    return reply


def send_chat(client: Connection, request: dict[str, Any],
              server_message: Callable[[StatusError], str]) -> tuple[str | None, int, int, str | None]:
    """One chat completion: ``(text, tokens_in, tokens_out, finish_reason)``; raises the
    connection's errors, ValueError for an odd reply, and :class:`FormatRejected` for a 400 that
    names the ``response_format`` (the caller moves the server down one mode)."""
    body = {k: request[k] for k in ("model", "messages", "temperature", "seed", "max_tokens")
            if request[k] is not None}
    if request["response_format"] is not None:
        try:
            completion = post(client, "/chat/completions", {**body, "response_format": request["response_format"]})
        except StatusError as exc:
            if exc.status_code != 400 or not FORMAT_WORDS.search(server_message(exc)):
                raise
            raise FormatRejected(server_message(exc)) from None
    else:
        completion = post(client, "/chat/completions", body)
    choice = completion["choices"][0]
    text = choice["message"].get("content")
    if text is not None and not isinstance(text, str):
        raise ValueError("the reply's message content is not text")
    usage = completion.get("usage") or {}
    if usage.get("prompt_tokens") is not None:
        tokens_in, tokens_out = int(usage["prompt_tokens"]), int(usage.get("completion_tokens") or 0)
    else:  # servers without usage: the ~4 characters per token rule
        tokens_in = sum(len(str(m.get("content", ""))) for m in request["messages"]) // 4
        tokens_out = len(text or "") // 4
    return text, tokens_in, tokens_out, choice.get("finish_reason")
