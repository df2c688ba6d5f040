"""QA sets: import from CSV / JSON / JSONL with row-level validation, and storage."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rageval.project import Project
from rageval.rows import RowError, as_relevance, as_text_list, read_records
from rageval.store import runs as store


@dataclass(frozen=True)
class QAImport:
    name: str
    items: list[dict[str, Any]]
    errors: list[RowError] = field(default_factory=list)


def parse_qa(source: str, data: bytes) -> tuple[list[dict[str, Any]], list[RowError]]:
    """Rows -> QA items ``{id, question, references, relevant, domain}`` plus row errors.

    Needs ``question``; ``id`` defaults to the row number; ``reference`` may be a string or a
    list (empty is allowed: reference-free metrics still work); duplicate ids are errors.
    """
    records, errors = read_records(source, data)
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    for n, rec in records:
        question = rec.get("question")
        if not isinstance(question, str) or not question.strip():
            errors.append(RowError(source, n, "missing question"))
            continue
        item_id = str(rec.get("id") or "").strip() or f"row{n}"
        if item_id in seen:
            errors.append(RowError(source, n, f"duplicate id {item_id!r}"))
            continue
        try:
            references = as_text_list(rec.get("reference"), field="reference")
            relevant = as_relevance(rec.get("relevant_ids"))
        except ValueError as exc:
            errors.append(RowError(source, n, str(exc)))
            continue
        domain = rec.get("domain")
        seen.add(item_id)
        items.append({
            "id": item_id, "question": question.strip(), "references": list(references),
            "relevant": relevant, "domain": str(domain).strip() if domain not in (None, "") else None,
        })
    errors.sort(key=lambda e: e.row)
    return items, errors


def import_qa(project: Project, source: str, data: bytes, *, name: str) -> QAImport:
    """Parse and store a QA set under ``name`` (replacing a set of that name); keeps good rows."""
    items, errors = parse_qa(source, data)
    if items:
        store.save_qa_set(project.db_path, name, Path(source).name, items)
    return QAImport(name=name, items=items, errors=errors)
