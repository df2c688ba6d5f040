"""Bulk writes of many finished items in one transaction, through DataFrames (fast at 100k+ rows).

Used by ``bench/bench_pages.py`` to build a large project and by anything that imports
answers in bulk; rows have the shapes :func:`rageval.store.runs.save_item` takes.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from rageval.store.db import connect


def save_items(db: Path, run_id: str, items: Sequence[dict[str, Any]], scores: Sequence[dict[str, Any]],
               claims: Sequence[dict[str, Any]] = ()) -> None:
    """Insert answers, retrievals, scores and claims of new items (``item_id`` on every row)."""
    answers = pd.DataFrame([{
        "run_id": run_id, "item_id": it["item_id"], "ordinal": it["ordinal"], "question": it["question"],
        "answer": it.get("answer"), "refs": json.dumps(list(it.get("references", ()))),
        "contexts": json.dumps(list(it.get("contexts", ()))), "status": it["status"], "reason": it.get("reason"),
        "latency_ms": it.get("latency_ms"), "details": json.dumps(it.get("details") or {}),
    } for it in items])
    retrievals = pd.DataFrame([{"run_id": run_id, "item_id": it["item_id"], "rank": rank, "chunk_id": cid, "score": sc}
                               for it in items for rank, (cid, sc) in enumerate(it.get("retrieved") or (), start=1)],
                              columns=["run_id", "item_id", "rank", "chunk_id", "score"])
    score_rows = pd.DataFrame([{
        "run_id": run_id, "item_id": s["item_id"], "metric": s["metric"], "signature": s["signature"],
        "value": s["value"], "status": s["status"], "reason": s["reason"],
        "details": json.dumps(s["details"]) if s.get("details") is not None else None,
    } for s in scores], columns=["run_id", "item_id", "metric", "signature", "value", "status", "reason", "details"])
    claim_rows = pd.DataFrame([{
        "run_id": run_id, "item_id": c["item_id"], "signature": c["signature"], "ordinal": c["ordinal"],
        "text": c["text"], "verdict": c["verdict"], "evidence": c.get("evidence"),
        "evidence_chunk": c.get("evidence_chunk"), "span_start": c.get("span_start"), "span_end": c.get("span_end"),
        "reason": c.get("reason"), "judge": c["judge"], "details": json.dumps(c.get("details") or {}),
    } for c in claims], columns=["run_id", "item_id", "signature", "ordinal", "text", "verdict", "evidence",
                                 "evidence_chunk", "span_start", "span_end", "reason", "judge", "details"])
    with connect(db) as con:
        con.execute("BEGIN TRANSACTION")
        for table, frame in (("answers", answers), ("retrievals", retrievals), ("metric_scores", score_rows),
                             ("claims", claim_rows)):
            if len(frame):
                con.register("bulk_frame", frame)
                cols = ", ".join(frame.columns)
                con.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM bulk_frame")
                con.unregister("bulk_frame")
        con.execute("COMMIT")
