"""QA sets: import from CSV / JSON / JSONL with row-level validation, and storage."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rageval.project import Project
from rageval.ingest.fields import as_label, as_relevance, as_text_list
from rageval.ingest.rows import RowProblem, read_table
from rageval.store import runs as store
from rageval.text.hygiene import display_name


QA_COLUMNS = ("id", "question", "reference", "relevant_ids", "domain")
#: what a generated set's export adds (rageval.testsets.export), read back on import
GENERATED_COLUMNS = ("kind", "status", "source_chunks", "source_sentences")
#: a reviewer's decision on an item; a run uses every item not ``dropped``
STATUSES = ("new", "accepted", "dropped")


@dataclass(frozen=True)
class QAImport:
    """An import: the items stored, the rows rejected (``errors``) and the ``notes`` (rows kept
    after a repair, columns not used)."""

    name: str
    items: list[dict[str, Any]]
    errors: list[RowProblem] = field(default_factory=list)
    notes: list[RowProblem] = field(default_factory=list)


def parse_qa(source: str, data: bytes) -> tuple[list[dict[str, Any]], list[RowProblem]]:
    """Rows -> QA items ``{id, question, references, relevant, domain}`` plus row problems.

    Needs a ``question`` column (InputError, once, naming the columns found, when no row has
    one); an empty question rejects its row; ``id`` defaults to the row number; ``reference``
    may be a string or a list (empty is allowed: reference-free metrics still work); a
    duplicate id rejects the later row. Problems of level ``note`` belong to kept rows. The columns of
    a generated set's export (``kind``, ``status``: new/accepted/dropped, ``source_chunks``,
    ``source_sentences``) are read back when present.
    """
    table = read_table(source, data)
    table.require("question")
    table.note_unused(QA_COLUMNS + GENERATED_COLUMNS)
    errors = table.problems
    items: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for n, rec in table.records:
        line = table.lines.get(n)
        question = rec.get("question")
        if question is not None and not isinstance(question, str):
            errors.append(RowProblem(source, n, f"question must be text, not {type(question).__name__}",
                                   column="question", line=line))
            continue
        if not question or not question.strip():
            errors.append(RowProblem(source, n, "empty question", column="question", line=line))
            continue
        try:
            item_id = as_label(rec.get("id"), field="id") or f"row{n}"
            domain = as_label(rec.get("domain"), field="domain")
        except ValueError as exc:
            errors.append(table.error(n, str(exc), column=str(exc).split(" ", 1)[0]))
            continue
        if item_id in seen:
            errors.append(RowProblem(source, n, f"duplicate id {item_id!r} (first at row {seen[item_id]}); "
                                   "this row was skipped", column="id", line=line))
            continue
        try:
            references = as_text_list(rec.get("reference"), field="reference")
            relevant = as_relevance(rec.get("relevant_ids"))
            generated = _generated(rec)
        except ValueError as exc:
            errors.append(RowProblem(source, n, str(exc), line=line,
                                   column=str(exc).split(" ", 1)[0]))
            continue
        seen[item_id] = n
        items.append({
            "id": item_id, "question": question.strip(), "references": list(references),
            "relevant": relevant, "domain": domain, **generated,
        })
    errors.sort(key=lambda e: e.row)
    return items, errors


def _generated(rec: dict[str, Any]) -> dict[str, Any]:
    """kind, status and sources of a row exported from a generated set (empty when it has none)."""
    out: dict[str, Any] = {}
    kind = as_label(rec.get("kind"), field="kind")
    if kind:
        out["kind"] = kind
    status = as_label(rec.get("status"), field="status")
    if status:
        if status.lower() not in STATUSES:
            raise ValueError(f"status {status!r} is not one of {', '.join(STATUSES)}")
        out["status"] = status.lower()
    chunks = as_text_list(rec.get("source_chunks"), field="source_chunks")
    sentences = as_text_list(rec.get("source_sentences"), field="source_sentences")
    if chunks or sentences:
        out["sources"] = {"chunks": list(chunks), "sentences": list(sentences)}
    return out


def import_qa(project: Project, source: str, data: bytes, *, name: str) -> QAImport:
    """Parse and store a QA set under ``name`` (replacing a set of that name); keeps good rows.

    A file with no usable row (or unreadable as a whole: InputError) stores nothing, so a set
    already stored under ``name`` is left as it was.
    """
    from rageval.access import acting

    with acting(project, "upload", "qa_import", name, file=display_name(Path(source).name).name) as audit:
        items, problems = parse_qa(source, data)
        if items:
            store.save_qa_set(project.db_path, name, display_name(Path(source).name).name, items)
        audit.update(items=len(items))
    return QAImport(name=name, items=items, errors=[e for e in problems if e.level == "error"],
                    notes=[e for e in problems if e.level != "error"])
