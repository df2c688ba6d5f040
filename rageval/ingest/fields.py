"""One field of a user's row read as what it must be: a list of texts, a label, graded relevant
ids; a ValueError names the field and what was wrong (:mod:`rageval.ingest.rows` turns it into a
rejected row). Shared by QA sets (:mod:`rageval.ingest.qa`) and answer files (:mod:`rageval.scoring.unit`).
"""
from __future__ import annotations

import json
import math
from typing import Any


def _int(digits: str) -> int | float:
    """A JSON integer; past Python's 4,300-digit limit a float (infinite), never a ValueError."""
    return int(digits) if len(digits) <= 4300 else float(digits)


def loads_json(text: str) -> Any:
    """``json.loads``, with an integer past Python's digit limit read as a float (:func:`_int`)."""
    return json.loads(text, parse_int=_int)


def _finite(value: Any, field: str) -> Any:
    """``value``, or ValueError when it is NaN or infinite (JSON ``NaN``, ``Infinity``, ``1e999``)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{field} holds {value!r}, a number that is not finite, where text was expected")
    return value


def as_text_list(value: Any, *, field: str, numbers: bool = True) -> tuple[str, ...]:
    """A string, a list of strings, or a JSON-encoded list (as CSV cells hold) -> tuple of strings.

    Finite numbers are read as their text ("1964" as a reference); NaN and infinities are rejected,
    and so is a bare number when ``numbers`` is false (``contexts: 5`` is not a list of passages).
    """
    if value is None:
        return ()
    if isinstance(value, str):
        stripped = value.strip()
        if stripped.startswith("["):
            try:
                value = loads_json(stripped)
            except (json.JSONDecodeError, RecursionError) as exc:
                raise ValueError(f"{field} looks like a JSON list but is not valid JSON") from exc
        else:
            return (stripped,) if stripped else ()
    if isinstance(value, (list, tuple)):
        if not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value):
            raise ValueError(f"{field} must be a string or a list of strings")
        return tuple(str(_finite(v, field)).strip() for v in value if str(v).strip())
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not numbers:
            raise ValueError(f"{field} must be a list of passages (text), not the number {value!r}")
        return (str(_finite(value, field)),)
    raise ValueError(f"{field} must be a string or a list of strings")


def as_label(value: Any, *, field: str) -> str | None:
    """An id or a domain: text or a finite number, stripped; None when empty. ValueError otherwise
    (``id: ["list-id"]``, ``domain: NaN``)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f"{field} must be text or a number, not {_kind(value)}")
    return str(_finite(value, field)).strip() or None


def _kind(value: Any) -> str:
    return {list: "a list", dict: "an object", bool: "true/false"}.get(type(value), type(value).__name__)


def as_relevance(value: Any) -> dict[str, float]:
    """Relevant ids as a list (grade 1 each) or an object id -> grade; JSON text accepted."""
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        stripped = value.strip()
        if stripped.startswith("[") or stripped.startswith("{"):
            try:
                value = loads_json(stripped)
            except (json.JSONDecodeError, RecursionError) as exc:
                raise ValueError("relevant_ids looks like JSON but is not valid JSON") from exc
        else:
            value = [v for v in (p.strip() for p in stripped.replace(";", ",").split(",")) if v]
    if isinstance(value, dict):
        try:
            grades = {str(k): float(v) for k, v in value.items()}
        except OverflowError as exc:  # an integer grade past float range (309+ digits)
            raise ValueError("relevant_ids grades must be finite numbers") from exc
        except (TypeError, ValueError) as exc:
            raise ValueError("relevant_ids grades must be numbers") from exc
        if not all(math.isfinite(g) for g in grades.values()):
            raise ValueError("relevant_ids grades must be finite numbers")
        return grades
    if isinstance(value, (list, tuple)):
        return {as_label(v, field="relevant_ids") or "": 1.0 for v in value if v not in (None, "")}
    raise ValueError("relevant_ids must be a list of ids or an object id -> grade")
