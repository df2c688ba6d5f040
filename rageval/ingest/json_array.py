"""Where the rows of a JSON file that is one array start: their lines, and their texts cut out
without parsing (for a row nested too deep for Python's reader). Used by :mod:`rageval.ingest.rows`."""
from __future__ import annotations

import itertools
import json
import re

_BETWEEN = re.compile(r"[\s,]*")


def array_lines(text: str) -> dict[int, int]:
    """Row number -> the line its element starts on, for a JSON file that is one array (parsed
    already: one more pass of the decoder, element by element); what it could map on an error."""
    decoder, lines = json.JSONDecoder(), {}
    i, line, counted = text.index("[") + 1, 1, 0
    try:
        for n in itertools.count(1):
            i = _BETWEEN.match(text, i).end()
            if i >= len(text) or text[i] == "]":
                break
            line, counted = line + text.count("\n", counted, i), i
            lines[n] = line
            i = decoder.raw_decode(text, i)[1]
    except (ValueError, RecursionError):
        pass
    return lines


def array_elements(text: str) -> list[tuple[int, str]] | None:
    """The top-level elements of a JSON array as ``(line, text)``, found by one scan of brackets
    and strings (no recursion, so a row nested 100,000 deep is cut out, not parsed); None when
    ``text`` is not one array."""
    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")):
        return None
    offset = text.index("[") + 1
    out, depth, inside, escaped, start = [], 0, False, False, offset
    for i in range(offset, offset + len(body) - 1):
        ch = text[i]
        if inside:
            escaped, inside = (False, True) if escaped else (ch == "\\", ch != '"')
        elif ch == '"':
            inside = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if not inside and (depth == 0 and ch == "," or depth < 0):
            part = text[start:i]
            out.append((text.count("\n", 0, start + len(part) - len(part.lstrip())) + 1, part))
            start = i + 1
            if depth < 0:
                break
    return [(line, part) for line, part in out if part.strip()]
