"""Storage speed: 10,000 scored answers x 20 metrics, and ``score`` stored against ``--no-store``.

    python -m bench.bench_store [--n 10000] [--repeats 2] [--per-item 200] [--skip-cli]

1. **bulk store**: the storage rows of ``--n`` answers (answer, 3 contexts, 3 retrieved ids, 20
   metric scores with details) written by ``store.items.save_items`` into a fresh project
   database (one connection; one transaction per 2,000 items), wall and CPU-seconds; then the
   same through ``store.runs.save_item`` one item at a time for the first ``--per-item`` items
   (the pre-batch path), extrapolated to ``--n``;
2. **score, stored vs not**: ``python -m rageval score FILE --metrics <20 lexical and retrieval
   metrics>`` on ``--n`` answers, with and without ``--no-store``, alternating, each in a fresh
   process and ``RAGEVAL_HOME``; the ratio of the best stored run to the best unstored one.

Target: storing 10,000 x 20 under 10 s; ``score`` stored within 1.2x of ``--no-store``.
Prints one JSON line per part.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path

from bench.bench_offline import end_to_end

ROOT = Path(__file__).resolve().parent.parent

METRICS = ("exact_match", "token_f1", "token_precision", "token_recall", "bleu", "rouge1", "rouge2",
           "rougeL", "rougeLsum", "hedging", "recall@5", "recall@10", "precision@5", "precision@10",
           "hit_rate@5", "hit_rate@10", "ndcg@5", "ndcg@10", "mrr", "map")
WORDS = ("revenue growth churn pricing contract renewal budget forecast latency error rate dashboard "
         "customer support europe milan rome quarterly report product launch market share").split()


def make_rows(n: int, seed: int = 10_000) -> list[dict]:
    rng = random.Random(seed)

    def text(k: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(k)).capitalize() + "."

    rows = []
    for i in range(n):
        ids = [f"doc{rng.randrange(5000)}" for _ in range(3)]
        rows.append({"id": f"a{i}", "question": text(10) + "?", "answer": text(rng.randint(5, 25)),
                     "reference": text(rng.randint(3, 12)), "contexts": [text(30) for _ in ids],
                     "retrieved_ids": ids, "relevant_ids": {ids[rng.randrange(3)]: 1} if i % 5 else {}})
    return rows


def storage_entries(rows: list[dict]) -> list[tuple]:
    rng = random.Random(1)
    entries = []
    for ordinal, r in enumerate(rows):
        item = {"item_id": r["id"], "ordinal": ordinal, "question": r["question"], "answer": r["answer"],
                "references": [r["reference"]], "contexts": r["contexts"],
                "retrieved": [(rid, None) for rid in r["retrieved_ids"]], "status": "ok", "reason": None,
                "details": {"imported": True}}
        scores = [{"metric": m, "signature": f"{m}|bench|v1", "value": rng.random(), "status": "ok", "reason": None,
                   "details": {"best_reference": 0, "precision": rng.random(), "recall": rng.random()}}
                  for m in METRICS]
        entries.append((item, scores, []))
    return entries


def bulk_store(n: int, per_item: int) -> dict:
    from rageval.store import runs
    from rageval.store.db import connect
    from rageval.store.items import save_items

    entries = storage_entries(make_rows(n))
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bulk.duckdb"
        with connect(db):
            pass  # create and migrate outside the timing
        runs.create_run(db, "r", kind="import", corpus=None, qa_set=None, config={}, config_hash="h", n_items=n)
        wall0, cpu0 = time.perf_counter(), time.process_time()
        save_items(db, "r", entries)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        stored = len(runs.scores(db, "r"))
        one = Path(tmp) / "per_item.duckdb"
        runs.create_run(one, "r", kind="import", corpus=None, qa_set=None, config={}, config_hash="h", n_items=n)
        wall1, cpu1 = time.perf_counter(), time.process_time()
        for item, scores, claims in entries[:per_item]:
            runs.save_item(one, "r", item, scores, claims)
        item_wall, item_cpu = time.perf_counter() - wall1, time.process_time() - cpu1
    return {"bench": "bulk_store", "answers": n, "metrics": len(METRICS), "score_rows": stored,
            "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "per_item_path": {"items": per_item, "wall_s": round(item_wall, 2), "cpu_s": round(item_cpu, 2),
                              f"extrapolated_wall_s_for_{n}": round(item_wall / per_item * n, 1)},
            "load_avg": [round(x, 2) for x in os.getloadavg()]}


def cli_score(n: int, repeats: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "answers.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in make_rows(n)), encoding="utf-8")
        stored, unstored = [], []
        for _ in range(repeats):
            unstored.append(end_to_end(path, list(METRICS), store=False))
            stored.append(end_to_end(path, list(METRICS), store=True))
    best_s = min(stored, key=lambda r: r["wall_s"])
    best_n = min(unstored, key=lambda r: r["wall_s"])
    return {"bench": "score_stored_vs_no_store", "answers": n, "metrics": len(METRICS),
            "stored_runs": stored, "no_store_runs": unstored,
            "ratio_wall": round(best_s["wall_s"] / best_n["wall_s"], 3),
            "ratio_cpu": round(best_s["cpu_s"] / best_n["cpu_s"], 3),
            "load_avg": [round(x, 2) for x in os.getloadavg()]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--per-item", type=int, default=200)
    parser.add_argument("--skip-cli", action="store_true")
    args = parser.parse_args()
    print(json.dumps(bulk_store(args.n, args.per_item)), flush=True)
    if not args.skip_cli:
        print(json.dumps(cli_score(args.n, args.repeats)), flush=True)


if __name__ == "__main__":
    from bench.bench_common import framed

    framed(main)
