"""Exports of a run: one row per QA item, as JSONL, CSV, Parquet or RAGAS's dataset format.

Every export carries what is needed to score the run again: question, gold answers, answer,
the retrieved contexts' text (in rank order) with their chunk ids, the retrieved and relevant
ids at the level the run compared them (chunks, or documents when the QA set names
documents), the domain, and one column per metric (null with ``<metric>_status`` = the reason
where the metric did not score the item; a metric that counts decided claims only also has
``<metric>_coverage``, decided / all claims of the item). The claim metrics are computed on settled
verdicts (:mod:`rageval.report.settle`: people's labels, then a judge, then a copy); with ``details``
each row also has ``claims``, every claim's settled verdict, who settled it (``by``) and every source.

``ragas`` is JSON Lines with RAGAS's ``SingleTurnSample`` names (``user_input, response,
retrieved_contexts, reference``; ``reference`` is the first gold answer, as RAGAS takes one)
plus ``id``, ``references`` (every gold answer), ``context_ids``, ``retrieved_ids``,
``relevant_ids`` and ``domain``, which RAGAS ignores and ``rageval score`` reads, so
``score`` on the export re-scores every metric exactly as the run did (tested).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from rageval.errors import ConfigError
from rageval.files import csv_text, write_atomic
from rageval.metrics.coverage import coverage_of
from rageval.project import Project
from rageval.store import corpus as corpus_store
from rageval.store import runs as store
from rageval.store.record import Run

FORMATS = ("jsonl", "csv", "parquet", "ragas")
_LIST_COLUMNS = ("reference", "contexts", "context_ids", "retrieved_ids", "retrieved_scores", "relevant_ids", "claims")


def _levels(project: Project, run: Run, answers: list[dict[str, Any]]):
    """Per item: (retrieved ids, relevant ids) at the level the run compared them."""
    relevant = {}
    if run.qa_set:
        relevant = {it["id"]: dict(it.get("relevant") or {}) for it in store.qa_items(project.db_path, run.qa_set)}
    chunk_ids = sorted({cid for a in answers for cid, _ in a["retrieved"] if cid})
    info = corpus_store.chunks_by_id(project.db_path, chunk_ids) if run.kind == "pipeline" else {}
    out = {}
    for a in answers:
        ids = [cid for cid, _ in a["retrieved"]]
        rel = relevant.get(a["item_id"], (a.get("details") or {}).get("relevant_ids") or {})
        if (a.get("details") or {}).get("relevance_level") == "document":
            docs: list[str] = []
            for cid in ids:
                doc = info.get(cid, {}).get("doc_id")
                if doc and doc not in docs:
                    docs.append(doc)
            id_of = {c["doc_name"]: c["doc_id"] for c in info.values()}
            ids, rel = docs, {id_of.get(k, k): g for k, g in rel.items()}
        out[a["item_id"]] = (ids, rel)
    return out


def run_table(project: Project, run_id: str, *, details: bool = False) -> pd.DataFrame:
    """Wide table of a run: id, question, reference, answer, contexts, ids, one column per metric
    (the claim metrics on settled verdicts), with ``details`` each answer's settled ``claims``.

    A metric that could not score an item has a null value and ``<metric>_status`` with the reason.
    """
    from rageval.report.settle import settled_claims, settled_scores, settled_values

    run = store.get_run(project.db_path, run_id)
    if run is None:
        raise ConfigError(f"run {run_id!r} does not exist in project {project.slug!r}")
    answers = store.answers(project.db_path, run_id)
    domains = {}
    if run.qa_set:
        domains = {it["id"]: it.get("domain") for it in store.qa_items(project.db_path, run.qa_set)}
    levels = _levels(project, run, answers)
    rows: dict[str, dict[str, Any]] = {}
    for a in answers:
        retrieved_ids, relevant = levels[a["item_id"]]
        rows[a["item_id"]] = {
            "id": a["item_id"], "question": a["question"], "reference": a["references"],
            "answer": a["answer"], "status": a["status"], "reason": a["reason"],
            "contexts": list(a["contexts"]),
            "context_ids": _context_ids(a),
            "retrieved_ids": retrieved_ids,
            "retrieved_scores": [s for _, s in a["retrieved"]],
            "relevant_ids": relevant,
            "domain": domains.get(a["item_id"]) or (a.get("details") or {}).get("domain"),
        }
    settled = settled_claims(project, run_id)
    if details:
        for row in rows.values():
            row["claims"] = []
        for c in settled:
            if c.item_id in rows:
                rows[c.item_id]["claims"].append(c.as_dict())
    for s in settled_scores(store.scores(project.db_path, run_id), settled_values(settled)):
        row = rows.get(s["item_id"])
        if row is None:
            continue
        row[s["metric"]] = s["value"]
        cov = coverage_of(s["details"])
        if cov is not None:
            row[f"{s['metric']}_coverage"] = cov
        if s["status"] != "ok":
            row[f"{s['metric']}_status"] = f"{s['status']}: {s['reason']}"
    return pd.DataFrame(list(rows.values()))


def _context_ids(answer: dict[str, Any]) -> list[str]:
    """Chunk ids of the answer's contexts: an import's own, else the retrieved ids when one per context."""
    named = (answer.get("details") or {}).get("context_ids")
    if named is not None:
        return list(named)
    ids = [cid for cid, _ in answer["retrieved"]]
    return ids if len(ids) == len(answer["contexts"]) else []


def ragas_rows(table: pd.DataFrame) -> list[dict[str, Any]]:
    """The run table in RAGAS's dataset format (see the module docstring); answers only, no scores."""
    out = []
    for row in table.to_dict(orient="records"):
        refs = [str(r) for r in _plain(row.get("reference")) or []]
        out.append({
            "id": row["id"], "user_input": row["question"], "response": row.get("answer"),
            "retrieved_contexts": _plain(row.get("contexts")) or [],
            # ``references`` before ``reference``: our reader keeps the first non-empty alias (all gold answers)
            "references": refs, "reference": refs[0] if refs else None,
            "context_ids": _plain(row.get("context_ids")) or [],
            "retrieved_ids": _plain(row.get("retrieved_ids")) or [],
            "relevant_ids": _plain(row.get("relevant_ids")) or {},
            "domain": _plain(row.get("domain")),
        })
    return out


def to_text(table: pd.DataFrame, fmt: str) -> str:
    """``table`` as JSONL, CSV (list cells as JSON) or RAGAS JSONL text."""
    if fmt == "ragas":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ragas_rows(table))
    if fmt == "jsonl":
        return "".join(json.dumps({k: _plain(v) for k, v in row.items()}, ensure_ascii=False) + "\n"
                       for row in table.to_dict(orient="records"))
    flat = table.copy()
    for col in _LIST_COLUMNS:
        if col in flat:
            flat[col] = flat[col].map(lambda v: json.dumps(_plain(v), ensure_ascii=False))
    return csv_text(flat)


def to_parquet_bytes(table: pd.DataFrame) -> bytes:
    """Parquet of the run table; ``relevant_ids`` (a mapping) and ``claims`` are stored as JSON text."""
    import io

    flat = table.copy()
    for col in ("relevant_ids", "claims"):
        if col in flat:
            flat[col] = flat[col].map(lambda v: json.dumps(_plain(v), ensure_ascii=False))
    buf = io.BytesIO()
    flat.to_parquet(buf, index=False)
    return buf.getvalue()


def export_run(project: Project, run_id: str, fmt: str, out: Path | None = None, *,
               details: bool = False) -> str | None:
    """Write the run as ``fmt`` (with ``details``, each row's settled claims); returns the text
    (jsonl/csv/ragas) when ``out`` is None."""
    if fmt not in FORMATS:
        raise ConfigError(f"format {fmt!r} is not supported; use {', '.join(FORMATS)}")
    table = run_table(project, run_id, details=details)
    if fmt == "parquet":
        if out is None:
            raise ConfigError("parquet export needs --out FILE")
        write_atomic(out, to_parquet_bytes(table))
        return None
    text = to_text(table, fmt)
    if out is not None:
        write_atomic(out, text)
        return None
    return text


def table_csv(rows: Any, *, index: bool = False) -> str:
    """Any table a page shows (a DataFrame or a list of dicts) as CSV, list cells as JSON, formula
    cells neutralised (:func:`rageval.files.csv_text`); ``index`` writes the frame's index too."""
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    flat = frame.copy()
    for col in flat.columns:
        if flat[col].map(lambda v: isinstance(v, (list, dict, tuple))).any():
            flat[col] = flat[col].map(lambda v: json.dumps(_plain(v), ensure_ascii=False, default=str))
    return csv_text(flat, index=index)


def _plain(value: Any) -> Any:
    """NaN -> None and numpy scalars/arrays -> Python values, for JSON."""
    if isinstance(value, float) and value != value:
        return None
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value
