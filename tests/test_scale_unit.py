"""The engine-neutral unit of work (rageval/scoring/unit.py): the same values as `score`, whatever
the batch shape or split; unreadable rows come out failed with their reason, never dropped."""
from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa

from rageval.scoring.unit import Plan, score_table
from rageval.runs.scoring import parse_answers, score

ROWS = [
    {"id": f"q{i}", "question": q, "answer": a, "reference": ref, "contexts": ctx}
    for i, (q, a, ref, ctx) in enumerate(
        [
            ("Capital of France?", "Paris is the capital.", "Paris", ["Paris is the capital of France."]),
            (
                "Who wrote Hamlet?",
                "Shakespeare wrote it around 1600.",
                "William Shakespeare",
                ["Hamlet is by Shakespeare."],
            ),
            ("Largest ocean?", "The Atlantic.", "The Pacific Ocean", ["The Pacific is the largest ocean."]),
            ("No reference?", "An answer without gold.", "", ["Some context."]),
            ("Gold symbol?", "Au.", "Au", []),
        ]
    )
]
METRICS = "token_f1,bleu,exact_match,faithfulness"
PLAN = Plan.make(METRICS, details=True)


def _single_process() -> list[dict]:
    data = "".join(json.dumps(r) + "\n" for r in ROWS).encode()
    samples, errors = parse_answers("a.jsonl", data)
    assert not [e for e in errors if e.level == "error"]
    result = score(samples, METRICS, details=True)
    return [{**r, "claims": json.dumps(r["claims"], ensure_ascii=False) if "claims" in r else None}
            for r in result.rows], result.records


def _as_rows(table: pa.Table) -> list[dict]:
    names = PLAN.names()
    out = []
    for r in table.to_pylist():
        row = {"id": r["id"], **{m: r[m] for m in names}, **{f"{m}_status": r[f"{m}_status"] for m in names
                                                           if r[f"{m}_status"] is not None},
               **{k: v for k, v in r.items() if k.endswith("_coverage")}}
        out.append({**row, "claims": r["claims"]})
    return out


def test_arrow_pandas_and_dict_batches_equal_score_value_for_value():
    rows, records = _single_process()
    ragas = [{"user_input": r["question"], "response": r["answer"], "retrieved_contexts": r["contexts"],
              "reference": r["reference"], "id": r["id"]} for r in ROWS]
    for batch in (pa.Table.from_pylist(ROWS), pd.DataFrame(ROWS), ragas):
        table = score_table(batch, PLAN)
        assert _as_rows(table) == rows
        assert [json.loads(t) for t in table.column("record").to_pylist()] == json.loads(json.dumps(records))


def test_split_batches_give_the_same_rows_as_one_batch():
    whole = score_table(ROWS, PLAN)
    halves = [score_table(ROWS[:2], PLAN), score_table(ROWS[2:], PLAN, first_row=3)]
    assert pa.concat_tables(halves).equals(whole)


def test_bad_rows_are_failed_with_the_reason_and_kept_in_place():
    rows = [ROWS[0], {"id": "bad", "question": "Q?", "answer": 42}, ROWS[1], {"id": "q0", "answer": "again"}]
    table = score_table(rows, Plan.make("token_f1"), source="s.parquet", first_row=10).to_pylist()
    assert [r["id"] for r in table] == ["q0", "bad", "q1", "q0"]
    assert table[1]["token_f1"] is None and table[1]["token_f1_status"] == "failed: input: answer must be a string"
    assert table[3]["token_f1_status"].startswith("failed: input: duplicate id 'q0' (first at row 10)")
    assert table[1]["record"] is None and table[0]["record"] is not None
    assert {r["source"] for r in table} == {"s.parquet"}
