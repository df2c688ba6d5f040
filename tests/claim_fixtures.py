"""A small project whose answers have claims from two verifiers, for the claim-label tests."""
from __future__ import annotations

import json

from rageval.store.db import connect
from tests.human_fixtures import make_runs

OFFLINE = "faithfulness|judge:heuristic|v1"
JUDGE = "faithfulness|judge:gpt-test|prompt:abc123|v1"


def add_claims(project, run: str, rows: list[dict]) -> None:
    """Insert claim rows (item_id, signature, ordinal, text, verdict, judge, confidence) as a run stores them."""
    with connect(project.db_path) as con:
        con.executemany(
            "INSERT INTO claims (run_id, item_id, signature, ordinal, text, verdict, evidence, evidence_chunk,"
            " span_start, span_end, reason, judge, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [[run, r["item_id"], r["signature"], r["ordinal"], r["text"], r["verdict"], r.get("evidence"),
              r.get("evidence_chunk"), r.get("span_start"), r.get("span_end"), None, r["judge"],
              json.dumps({"confidence": r["confidence"]} if r.get("confidence") is not None else {})]
             for r in rows])


def claims_project(name: str = "cl", n: int = 12):
    """``make_runs`` with, per answer of runA, three claims: the offline rule's verdicts (SUPPORTED or
    UNVERIFIED) and a judge's (SUPPORTED / CONTRADICTED / NOT_MENTIONED with a confidence)."""
    project, truth = make_runs(name, n=n)
    rows = []
    judge_cycle = ("SUPPORTED", "CONTRADICTED", "NOT_MENTIONED")
    for i in range(n):
        for k in range(3):
            text = f"Claim {k} of answer {i}."
            rows.append({"item_id": f"q{i:02d}", "signature": OFFLINE, "ordinal": k, "text": text,
                         "verdict": "SUPPORTED" if k == 0 else "UNVERIFIED", "judge": "heuristic", "confidence": 1.0})
            rows.append({"item_id": f"q{i:02d}", "signature": JUDGE, "ordinal": k, "text": text,
                         "verdict": judge_cycle[(i + k) % 3], "judge": "gpt-test",
                         "confidence": round(0.5 + 0.04 * ((i * 3 + k) % 12), 2)})
    add_claims(project, "runA", rows)
    return project, truth
