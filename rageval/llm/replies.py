"""Pure helpers of the LLM layer: the cache key of a request and tolerant JSON parsing.

Nothing here does I/O; :mod:`rageval.llm.client` uses these functions.

Cache key
    sha256 of canonical JSON of (kind, model, messages, temperature, seed, response_format,
    max_tokens, server); for embeddings of (kind, model, text, server). ``server`` is the base
    URL without user info or query (:func:`rageval.llm.roles.display_url`): a local
    "gpt-4o-mini" and OpenAI's are different judges, and a server that answered 401 must not be
    served another server's cached verdicts. (For the same reason an online judge's metric
    signature names its server when it is not OpenAI's API: :func:`rageval.judge.ask.signature`.)
    Timeouts, retries and the API key are left out (:func:`request_key`).

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

import functools
import json
import re
from dataclasses import dataclass
from typing import Any, Callable

from rageval.util import canonical_json, sha256_hex

JSON_OBJECT_FORMAT = {"type": "json_object"}
#: structured-output modes, best first: the server enforces the reply's JSON schema; the server
#: guarantees some JSON object; only the prompt asks for JSON. A server that rejects a mode
#: (HTTP 400) is asked in the next one, and the choice is remembered per (server, model).
MODES = ("json_schema", "json_object", "prompt")

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n?(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()
_JSON_START = re.compile(r'[\[{]\s*(?:["{\[\]}\-\d]|true\b|false\b|null\b)')

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
    for i, ch, inside in _scan(text):
        if ch == "," and not inside:
            j = i + 1
            while j < len(text) and text[j] in " \t\r\n":
                j += 1
            if j < len(text) and text[j] in "}]":
                continue
        out.append(ch)
    return "".join(out)


def _scan(text: str, start: int = 0):
    """``(index, char, inside_a_string)`` for each character from ``start``; a string's quotes count
    as inside, a backslash escapes the next character."""
    in_string = escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            yield i, ch, True
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            yield i, ch, True
        else:
            yield i, ch, False


def _loads_whole(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return json.loads(strip_trailing_commas(text))


def _span_end(text: str, start: int) -> int | None:
    """Index just past the bracket that closes the one at ``start`` (strings skipped), or None."""
    depth = 0
    for i, ch, inside in _scan(text, start):
        if inside:
            continue
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _first_embedded(text: str) -> tuple[Any, str] | None:
    """The first JSON object/array embedded in ``text`` and the text after it, or None.

    A bracket that starts like JSON but does not parse is skipped as a whole when it closes
    (``"[5/10]"``); when it never closes the reply was cut off, and that is an error rather
    than a reason to return a fragment from inside it.
    """
    pos = 0
    while True:
        match = _JSON_START.search(text, pos)
        if match is None:
            return None
        start = match.start()
        for variant in (text[start:], strip_trailing_commas(text[start:])):
            try:
                value, end = _DECODER.raw_decode(variant)
            except json.JSONDecodeError:
                continue
            return value, variant[end:]
        end = _span_end(text, start)
        if end is None:
            raise ValueError("the reply is not valid JSON: it looks truncated (a bracket is never closed)")
        pos = end


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
    for _, body in _FENCE.findall(stripped):
        try:
            value = _loads_whole(body.strip())
        except json.JSONDecodeError:
            try:
                found = _first_embedded(body)
            except ValueError:
                continue
            value = found[0] if found else None
        if _is_container(value):
            return value
    found = _first_embedded(stripped)
    if found is None:
        raise ValueError(
            f"the reply contains no JSON object or array (JSON error: {whole_error.msg} at line "
            f"{whole_error.lineno} column {whole_error.colno}); it is prose or malformed"
        )
    value, rest = found
    if _first_embedded(rest) is not None:
        raise ValueError("the reply contains more than one top-level JSON value; expected exactly one")
    return value


@functools.lru_cache(maxsize=256)
def response_format(mode: str, schema: Any | None) -> dict[str, Any] | None:
    """The ``response_format`` of ``mode`` for a reply model ``schema`` (a pydantic model class).

    >>> response_format("json_object", None), response_format("prompt", None)
    ({'type': 'json_object'}, None)

    Cached: building a model's JSON schema costs about half a millisecond, and every call asks.
    The dict returned is shared; callers must not change it.
    """
    if mode == "json_schema" and schema is not None:
        return {"type": "json_schema",
                "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema(), "strict": False}}
    if mode in ("json_schema", "json_object"):
        return JSON_OBJECT_FORMAT
    return None


def validator(schema: Any | None, check: Callable[[Any], Any] | None) -> Callable[[Any], Any]:
    """Validate parsed JSON with the reply model ``schema`` (when given), then ``check`` the result."""
    def validate(value: Any) -> Any:
        if schema is not None:
            value = schema.model_validate(value)
        return check(value) if check is not None else value

    return validate


def _shape_error(exc: BaseException) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):  # a pydantic ValidationError: "field.sub: message" for the first few
        try:
            parts = [f"{'.'.join(map(str, e['loc'])) or 'reply'}: {e['msg']}" for e in errors()[:4]]
            return "; ".join(parts)
        except Exception:  # noqa: BLE001 - fall back to the plain text
            pass
    return str(exc) or type(exc).__name__


def parse_and_validate(text: str | None, validate: Callable[[Any], Any]) -> tuple[Any, str | None]:
    """``(value, None)`` when ``text`` parses and ``validate`` accepts it, else ``(None, error)``."""
    try:
        parsed = parse_json_reply(text)
    except ValueError as exc:
        return None, str(exc)
    try:
        return validate(parsed), None
    except VALIDATION_ERRORS as exc:
        return None, f"the JSON does not have the expected shape: {_shape_error(exc)}"


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



@dataclass(frozen=True)
class ChatReply:
    text: str | None
    status: str                     # ok | failed
    reason: str | None              # "llm_error: <short>" when failed
    cached: bool
    tokens_in: int
    tokens_out: int
    latency_ms: float
    error: str | None = None        # the full (scrubbed) message when failed
    finish_reason: str | None = None
    attempts: int = 0               # network attempts (0 for a cache hit)


@dataclass(frozen=True)
class JSONReply:
    value: Any | None               # parsed and validated JSON (None unless ok)
    status: str                     # ok | unscored (judge_parse_error) | failed (llm_error: ...)
    reason: str | None
    raw: str | None                 # the raw reply text when there was one
    error: str | None = None        # the parse/validation error or the call's error message
    reasked: bool = False
    cached: bool = False
    mode: str | None = None         # the structured-output mode the reply was asked in


def ask_json(chat: Callable[[list[dict]], ChatReply], messages: list[dict],
             validate: Callable[[Any], Any]) -> JSONReply:
    """Ask ``chat`` for JSON; on a parse/validation error re-ask ONCE with the error appended.

    A failed call gives ``status="failed"`` with its reason; a reply that still does not parse
    or validate gives ``status="unscored"``, ``reason="judge_parse_error"`` and the raw text.
    """
    first = chat(messages)
    if first.status != "ok":
        return JSONReply(None, "failed", first.reason, None, error=first.error)
    value, error = parse_and_validate(first.text, validate)
    if error is None:
        return JSONReply(value, "ok", None, first.text, cached=first.cached)
    second = chat(reask_messages(messages, first.text, error))
    if second.status != "ok":
        return JSONReply(None, "failed", second.reason, first.text, error=second.error, reasked=True)
    value, error = parse_and_validate(second.text, validate)
    cached = first.cached and second.cached
    if error is None:
        return JSONReply(value, "ok", None, second.text, reasked=True, cached=cached)
    return JSONReply(None, "unscored", "judge_parse_error", second.text or first.text, error=error,
                     reasked=True, cached=cached)
