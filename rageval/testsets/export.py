"""A generated (or any) QA set as rows for CSV / JSONL, in the columns the QA importer reads back
(:func:`rageval.ingest.qa.parse_qa`): id, question, reference, relevant_ids, domain, kind, status,
source_chunks, source_sentences. Lists are JSON in a CSV cell; formula cells are neutralised."""
from __future__ import annotations

import json
from typing import Any, Sequence

from rageval.report.exports import table_csv

COLUMNS = ("id", "question", "reference", "relevant_ids", "domain", "kind", "status", "source_chunks",
           "source_sentences")


def export_rows(items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Stored QA items -> rows (a single reference as text, several as a list)."""
    rows = []
    for it in items:
        refs = list(it.get("references") or [])
        sources = it.get("sources") or {}
        rows.append({"id": it["id"], "question": it["question"], "reference": refs[0] if len(refs) == 1 else refs,
                     "relevant_ids": dict(it.get("relevant") or {}), "domain": it.get("domain"),
                     "kind": it.get("kind"), "status": it.get("status"),
                     "source_chunks": list(sources.get("chunks") or []),
                     "source_sentences": list(sources.get("sentences") or [])})
    return rows


def to_csv(items: Sequence[dict[str, Any]]) -> str:
    return table_csv([{k: r[k] for k in COLUMNS} for r in export_rows(items)])


def to_jsonl(items: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in export_rows(items))
