"""Reading user tables (QA sets, answer files) from CSV, JSON or JSONL, row by row.

A bad row never stops the others: it becomes a :class:`RowError` naming the file, the row
number (1-based, the header of a CSV is row 0) and the reason; the good rows are kept.
RAGAS column names are accepted beside ours: ``user_input`` -> question, ``response`` ->
answer, ``retrieved_contexts`` -> contexts, ``reference``/``ground_truth(s)`` -> reference.
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any

from rageval.errors import InputError

ALIASES = {
    "user_input": "question",
    "query": "question",
    "response": "answer",
    "retrieved_contexts": "contexts",
    "ground_truth": "reference",
    "ground_truths": "reference",
    "references": "reference",
    "answers": "reference",
    "gold": "reference",
    "relevant_chunk_ids": "relevant_ids",
    "relevant_doc_ids": "relevant_ids",
}


@dataclass(frozen=True)
class RowError:
    source: str
    row: int
    reason: str

    def __str__(self) -> str:
        return f"{self.source}, row {self.row}: {self.reason}"


def _decode(source: str, data: bytes) -> str:
    for encoding in ("utf-8-sig", "utf-16"):
        try:
            text = data.decode(encoding)
            if "\x00" not in text:
                return text
        except UnicodeDecodeError:
            continue
    raise InputError("not valid UTF-8 or UTF-16 text; save the file as UTF-8", source=source)


def read_records(source: str, data: bytes) -> tuple[list[tuple[int, dict[str, Any]]], list[RowError]]:
    """Parse ``data`` by the file's extension into ``(row number, record)`` pairs and row errors.

    Keys are lower-cased, stripped and mapped through :data:`ALIASES`. Raises InputError when
    the file as a whole cannot be read (unknown type, bad encoding, JSON that is not a list).
    """
    text = _decode(source, data)
    lower = source.lower()
    records: list[tuple[int, Any]] = []
    errors: list[RowError] = []
    if lower.endswith(".jsonl") or lower.endswith(".ndjson"):
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append((n, json.loads(line)))
            except json.JSONDecodeError as exc:
                errors.append(RowError(source, n, f"not valid JSON ({exc.msg} at column {exc.colno})"))
    elif lower.endswith(".json"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON ({exc.msg} at line {exc.lineno})", source=source) from exc
        if isinstance(value, dict):
            value = next((v for v in value.values() if isinstance(v, list)), None)
        if not isinstance(value, list):
            raise InputError("a JSON file must hold a list of objects", source=source)
        records = list(enumerate(value, start=1))
    elif lower.endswith(".csv") or lower.endswith(".tsv"):
        dialect = "excel-tab" if lower.endswith(".tsv") else "excel"
        reader = csv.DictReader(io.StringIO(text), dialect=dialect)
        if not reader.fieldnames:
            raise InputError("the CSV file has no header row", source=source)
        for n, row in enumerate(reader, start=1):
            if None in row:
                errors.append(RowError(source, n, "more cells than header columns"))
                continue
            records.append((n, row))
    else:
        raise InputError("unsupported table type; use .csv, .tsv, .json or .jsonl", source=source)
    out = []
    for n, rec in records:
        if not isinstance(rec, dict):
            errors.append(RowError(source, n, "row is not an object with named fields"))
            continue
        clean: dict[str, Any] = {}
        for key, value in rec.items():
            k = ALIASES.get(str(key).strip().lower(), str(key).strip().lower())
            if k not in clean or clean[k] in (None, ""):
                clean[k] = value
        out.append((n, clean))
    return out, errors


def as_text_list(value: Any, *, field: str) -> tuple[str, ...]:
    """A string, a list of strings, or a JSON-encoded list (as CSV cells hold) -> tuple of strings."""
    if value is None:
        return ()
    if isinstance(value, str):
        stripped = value.strip()
        if stripped.startswith("["):
            try:
                value = json.loads(stripped)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{field} looks like a JSON list but is not valid JSON") from exc
        else:
            return (stripped,) if stripped else ()
    if isinstance(value, (list, tuple)):
        if not all(isinstance(v, (str, int, float)) for v in value):
            raise ValueError(f"{field} must be a string or a list of strings")
        return tuple(str(v).strip() for v in value if str(v).strip())
    if isinstance(value, (int, float)):
        return (str(value),)
    raise ValueError(f"{field} must be a string or a list of strings")


def as_relevance(value: Any) -> dict[str, float]:
    """Relevant ids as a list (grade 1 each) or an object id -> grade; JSON text accepted."""
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        stripped = value.strip()
        if stripped.startswith("[") or stripped.startswith("{"):
            try:
                value = json.loads(stripped)
            except json.JSONDecodeError as exc:
                raise ValueError("relevant_ids looks like JSON but is not valid JSON") from exc
        else:
            value = [v for v in (p.strip() for p in stripped.replace(";", ",").split(",")) if v]
    if isinstance(value, dict):
        try:
            return {str(k): float(v) for k, v in value.items()}
        except (TypeError, ValueError) as exc:
            raise ValueError("relevant_ids grades must be numbers") from exc
    if isinstance(value, (list, tuple)):
        return {str(v): 1.0 for v in value}
    raise ValueError("relevant_ids must be a list of ids or an object id -> grade")
