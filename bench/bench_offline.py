"""Offline scoring speed: answers per second for the 14 default metrics, stored.

    python bench/bench_offline.py [--n 500] [--repeats 1] [--metrics a,b,...] [--profile FILE]

Makes ``--n`` answers deterministically (seeded): a question, an answer of one or two
sentences, a reference, and 3 contexts of about 100 words (one of which holds the answer's
facts), every context text distinct, so no vector can be reused across answers. Then:

1. **end to end**: ``python -m rageval score FILE --metrics <defaults>`` in a fresh process with a
   fresh ``RAGEVAL_HOME`` (stored as an import run), so imports and the model load are counted
   as a user sees them; wall seconds and the child's CPU-seconds (user + system);
2. **per metric**: in this process, ``evaluate`` with one metric at a time on the same samples
   and a fresh in-memory embedder cache per metric (each metric pays for the vectors it needs,
   as if it ran alone); wall and CPU-seconds per metric.

Prints one JSON line per figure and a summary, ready for docs/benchmarks.md. CPU-seconds do
not depend on what else runs on the machine; wall time does (say what else ran).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FILLER = (
    "the report describes how the regional team planned the annual budget and reviewed the hiring "
    "plan while customers asked about pricing contract renewal support response times and the "
    "dashboard that tracks latency error rates and the quality of search results across markets "
    "in europe the committee also discussed security incidents product launches market share and "
    "a forecast for the next quarter with several open questions about suppliers and logistics"
).split()
PRODUCTS = ["Atlas", "Borealis", "Cobalt", "Delta", "Ember", "Fjord", "Granite", "Helix", "Iris", "Juniper"]
CITIES = ["Milan", "Rome", "Turin", "Lyon", "Porto", "Ghent", "Bergen", "Graz", "Brno", "Cork"]
MEASURES = ["revenue", "churn", "headcount", "uptime", "market share", "margin"]


def _filler(rng: random.Random, words: int) -> str:
    sentences, left = [], words
    while left > 0:
        k = min(left, rng.randint(10, 18))
        sentences.append(" ".join(rng.choice(FILLER) for _ in range(k)).capitalize() + ".")
        left -= k
    return " ".join(sentences)


def make_rows(n: int, seed: int = 16) -> list[dict]:
    """``n`` rows with id, question, answer, reference and 3 distinct ~100-word contexts."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        product, city, measure = rng.choice(PRODUCTS), rng.choice(CITIES), rng.choice(MEASURES)
        year, value = 2015 + rng.randint(0, 10), rng.randint(2, 95)
        fact = f"In {year} the {measure} of {product} {i} in {city} reached {value} percent."
        question = f"What was the {measure} of {product} {i} in {city} in {year}?"
        reference = f"It reached {value} percent."
        kind = i % 4
        if kind == 0:
            answer = f"The {measure} of {product} {i} reached {value} percent in {year}."
        elif kind == 1:
            answer = f"The {measure} of {product} {i} reached {value + 3} percent in {year}. It was reported in {city}."
        elif kind == 2:
            answer = f"I am not sure, but the {measure} was probably around {value} percent."
        else:
            answer = f"{product} {i} opened an office in {city} in {year}."
        gold = rng.randrange(3)
        contexts = []
        for j in range(3):
            text = f"Item {i} passage {j}. " + _filler(rng, 90)
            if j == gold:
                words = text.split(". ")
                words.insert(len(words) // 2, fact.rstrip("."))
                text = ". ".join(words)
            contexts.append(text)
        rows.append({"id": f"a{i}", "question": question, "answer": answer, "reference": reference,
                     "contexts": contexts})
    return rows


def default_metrics() -> list[str]:
    from rageval.config import DEFAULT_METRICS

    return [m for m in DEFAULT_METRICS]


def end_to_end(path: Path, metrics: list[str], *, store: bool, root: Path = ROOT) -> dict:
    """One ``rageval score`` in a fresh process and home: wall and CPU-seconds of the child.

    ``root``: the checkout whose ``rageval`` runs (another one gives an A/B under the same load).
    """
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "RAGEVAL_HOME": home, "PYTHONPATH": str(root)}
        out = Path(home) / "scores.jsonl"
        cmd = [sys.executable, "-m", "rageval", "score", str(path), "--metrics", ",".join(metrics),
               "--out", str(out)] + ([] if store else ["--no-store"])
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"score failed ({done.returncode}): {done.stderr[-2000:]}")
        rows = sum(1 for _ in out.open(encoding="utf-8"))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "rows": rows}


def per_metric(rows: list[dict], metrics: list[str]) -> list[dict]:
    """Each metric alone on the same samples, with a fresh in-memory embedder cache."""
    from rageval.embed.minilm import MiniLMEmbedder
    from rageval.embed.cache import CachedEmbedder
    from rageval.metrics.base import evaluate, parse_metric_list
    from rageval.types import Resources
    from rageval.runs.scoring import parse_answers

    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    samples, errors = parse_answers("bench.jsonl", data)
    assert not errors, errors
    MiniLMEmbedder().embed(["warm up the weights"])
    out = []
    for name in metrics:
        metric = parse_metric_list([name])
        resources = Resources(embedder_factory=lambda: CachedEmbedder(MiniLMEmbedder()))
        wall0, cpu0 = time.perf_counter(), time.process_time()
        scores = evaluate(samples, metric, resources)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        ok = sum(s.status == "ok" for s in scores[metric[0].name])
        out.append({"metric": name, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
                    "answers_per_s": round(len(samples) / wall, 1) if wall else None, "ok": ok})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--metrics", default=None, help="comma-separated (default: the 14 run defaults)")
    parser.add_argument("--skip-per-metric", action="store_true")
    parser.add_argument("--per-metric-n", type=int, default=None, help="answers for the per-metric part (default --n)")
    parser.add_argument("--baseline", default=None,
                        help="another checkout (e.g. of main) timed alternately with this one, same answers")
    parser.add_argument("--no-store-too", action="store_true", help="also time score --no-store")
    args = parser.parse_args()
    metrics = args.metrics.split(",") if args.metrics else default_metrics()
    rows = make_rows(args.n)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "answers.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        runs, base = [], []
        for _ in range(args.repeats):
            runs.append(end_to_end(path, metrics, store=True))
            if args.baseline:
                base.append(end_to_end(path, metrics, store=True, root=Path(args.baseline)))
        best = min(runs, key=lambda r: r["wall_s"])
        summary = {"bench": "offline_score", "answers": args.n, "metrics": len(metrics), "stored": True,
                   "runs": runs, "answers_per_s": round(args.n / best["wall_s"], 2),
                   "cpu_s_per_answer": round(best["cpu_s"] / args.n, 4),
                   "answers_per_cpu_s": round(args.n / best["cpu_s"], 2),
                   "load_avg": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}
        if base:
            b = min(base, key=lambda r: r["wall_s"])
            summary["baseline"] = {"root": args.baseline, "runs": base,
                                   "answers_per_s": round(args.n / b["wall_s"], 2),
                                   "cpu_s_per_answer": round(b["cpu_s"] / args.n, 4)}
        if args.no_store_too:
            nostore = [end_to_end(path, metrics, store=False) for _ in range(args.repeats)]
            summary["no_store_runs"] = nostore
        print(json.dumps(summary), flush=True)
    if not args.skip_per_metric:
        for row in per_metric(rows[: args.per_metric_n or args.n], metrics):
            print(json.dumps({"bench": "offline_metric", **row}), flush=True)


if __name__ == "__main__":
    main()
