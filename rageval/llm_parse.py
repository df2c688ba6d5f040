"""Pure helpers of the LLM layer: the cache key of a request and tolerant JSON parsing.

Nothing here does I/O or imports ``openai``; :mod:`rageval.llm` uses these functions.

Tolerant parsing (:func:`parse_json_reply`) accepts what judge models really send back:

1. the reply as is, if it is JSON;
2. else the contents of each fenced block (```json ... ``` or ``` ... ```);
3. else the first JSON object or array found in the text, with prose before and after it;

and at every step, if the candidate does not parse, the same text with trailing commas removed
(``{"a": 1,}`` and ``[1, 2,]``, outside strings). The result must be ONE top-level object or
array: a bare number or string, or two top-level objects side by side, is an error, because a
judge that answers twice has not answered. Truncated JSON is never "repaired": a half verdict
is a wrong verdict, so the caller re-asks instead.
"""
from __future__ import annotations

import json
import re
from typing import Any, Callable

from rageval.errors import ConfigError
from rageval.util import canonical_json, sha256_hex

JSON_OBJECT_FORMAT = {"type": "json_object"}

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n?(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()

#: exceptions a caller's ``validate`` may raise to say "this shape is wrong"
VALIDATION_ERRORS = (ValueError, TypeError, KeyError, IndexError, AttributeError)


def request_key(request: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of the request fields that change the reply.

    >>> a = request_key({"kind": "chat", "model": "m", "messages": [], "temperature": 0.0})
    >>> a == request_key({"temperature": 0.0, "messages": [], "model": "m", "kind": "chat"})
    True
    """
    return sha256_hex(canonical_json(request))


def strip_trailing_commas(text: str) -> str:
    """Remove commas that directly precede ``}`` or ``]`` (ignoring whitespace), outside strings.

    >>> strip_trailing_commas('{"a": [1, 2,], "b": "x,]",}')
    '{"a": [1, 2], "b": "x,]"}'
    """
    out: list[str] = []
    in_string = False
    escaped = False
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            out.append(ch)
        elif ch == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] in "}]":
                i += 1
                continue
            out.append(ch)
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _loads_whole(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return json.loads(strip_trailing_commas(text))


def _first_embedded(text: str) -> tuple[Any, str] | None:
    """The first object/array embedded in ``text`` and what follows it, or None."""
    for variant in (text, strip_trailing_commas(text)):
        for match in re.finditer(r"[\[{]", variant):
            try:
                value, end = _DECODER.raw_decode(variant, match.start())
            except json.JSONDecodeError:
                continue
            if isinstance(value, (dict, list)):
                return value, variant[end:]
    return None


def _is_container(value: Any) -> bool:
    return isinstance(value, (dict, list))


def parse_json_reply(text: str | None) -> Any:
    """Parse a model's reply into one JSON object or array; raise ValueError saying why not.

    >>> parse_json_reply('Sure! ```json\\n{"verdict": "yes",}\\n``` Hope it helps.')
    {'verdict': 'yes'}
    >>> parse_json_reply('The answer: [1, 2] (two items).')
    [1, 2]
    """
    if text is None or not text.strip():
        raise ValueError("the reply was empty")
    stripped = text.strip()
    try:
        value = _loads_whole(stripped)
        if _is_container(value):
            return value
        raise ValueError(f"the reply is a bare JSON {type(value).__name__}, expected an object or array")
    except json.JSONDecodeError as exc:
        whole_error = exc
    fenced = [body.strip() for _, body in _FENCE.findall(stripped) if body.strip()]
    for body in fenced:
        try:
            value = _loads_whole(body)
        except json.JSONDecodeError:
            found = _first_embedded(body)
            if found is None:
                continue
            value = found[0]
        if _is_container(value):
            return value
    found = _first_embedded(stripped)
    if found is None:
        if "{" in stripped or "[" in stripped:
            raise ValueError(
                f"the reply is not valid JSON (truncated or malformed): {whole_error.msg} "
                f"at line {whole_error.lineno} column {whole_error.colno}"
            )
        raise ValueError("the reply contains no JSON object or array, only prose")
    value, rest = found
    if _first_embedded(rest) is not None:
        raise ValueError("the reply contains more than one top-level JSON value; expected exactly one")
    return value


def parse_and_validate(text: str | None, validate: Callable[[Any], Any]) -> tuple[Any, str | None]:
    """``(value, None)`` when ``text`` parses and ``validate`` accepts it, else ``(None, error)``."""
    try:
        parsed = parse_json_reply(text)
    except ValueError as exc:
        return None, str(exc)
    try:
        return validate(parsed), None
    except VALIDATION_ERRORS as exc:
        detail = str(exc) or type(exc).__name__
        return None, f"the JSON does not have the expected shape: {detail}"


def reask_messages(messages: list[dict], reply: str | None, error: str) -> list[dict]:
    """The conversation for the one re-ask: the bad reply, then what was wrong with it."""
    return [
        *messages,
        {"role": "assistant", "content": reply or ""},
        {
            "role": "user",
            "content": (
                f"Your previous reply could not be used: {error}. "
                "Reply again with only the JSON value asked for: no code fences, no text before or after it."
            ),
        },
    ]


# ---------------------------------------------------------------- model specs

#: the offline backend names each role accepts (they need no LLM client)
OFFLINE = {"generator": ("extractive",), "judge": ("heuristic",), "embedder": ("local",)}


def parse_spec(role: str, spec: str) -> str | None:
    """The model name of an ``"openai:MODEL"`` spec, or None for the role's offline backend.

    >>> parse_spec("judge", "openai:gpt-4o"), parse_spec("judge", "heuristic")
    ('gpt-4o', None)
    """
    if role not in OFFLINE:
        raise ConfigError(f"unknown model role {role!r}; roles are: {', '.join(OFFLINE)}")
    text = (spec or "").strip()
    if text in OFFLINE[role]:
        return None
    prefix, sep, model = text.partition(":")
    if sep and prefix.strip().lower() == "openai":
        if not model.strip():
            raise ConfigError(f"--{role} {spec!r} names no model; write it as openai:MODEL, e.g. openai:gpt-4o-mini")
        return model.strip()
    choices = " or ".join(f"'{name}'" for name in OFFLINE[role])
    raise ConfigError(f"--{role} {spec!r} is not a known backend; use {choices} (offline) or openai:MODEL")
