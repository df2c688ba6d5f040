"""Offline scoring speed: answers per second for the 14 default metrics, stored.

    python -m bench.bench_offline [--n 500] [--repeats 1] [--metrics a,b,...] [--profile FILE]

Makes ``--n`` answers deterministically (seeded): a question, an answer of one or two
sentences, a reference, and 3 contexts of about 100 words (one of which holds the answer's
facts), every context text distinct, so no vector can be reused across answers. Then:

1. **end to end**: ``python -m rageval score FILE --metrics <defaults>`` in a fresh process with a
   fresh ``RAGEVAL_HOME`` (stored as an import run), so imports and the model load are counted
   as a user sees them; wall seconds and the child's CPU-seconds (user + system);
2. **per metric**: in this process, ``evaluate`` with one metric at a time on the same samples
   and a fresh in-memory embedder cache per metric (each metric pays for the vectors it needs,
   as if it ran alone); wall and CPU-seconds per metric.

``--case pool`` draws each answer's 3 contexts from a pool of ``--pool`` distinct contexts (40 by
default), so contexts repeat as in an evaluation over a small corpus. ``--case corpus`` measures the run case instead:
``--passages`` passages are ingested as one corpus (``rageval ingest``), then ``--n`` answers whose 3 contexts are
chunks of that corpus are scored in the same project, so vectors computed at ingest can be reused. ``--limit`` computes
the physical limit for never-seen contexts: the word-pieces the metrics embed per answer (each distinct text once, no
padding; counted with a stand-in model), times MiniLM's FLOPs per word-piece, over the float32 GEMM speed of one BLAS
thread measured here; answers/s on all cores can never exceed ``cores x GEMM FLOP/s / FLOP per answer``; the
``aligned_*`` figures count the rows the packed pass really runs (each text on ``ceil(n / period) x period`` rows of the
BLAS row period), the limit for these vectors. ``--baseline DIR`` (e.g. main, unpacked with
``git archive main | tar -x -C DIR``) times that checkout alternately with this one.

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


# ---------------------------------------------------------------- the physical limit

#: MiniLM-L6 (H = 384, FFN 1536, 6 layers) multiply-adds per word-piece, counted as 2 FLOPs each:
#: q, k, v and output projections 4 H^2, feed-forward 2 x H x 4H; attention adds 4 x L x H per
#: layer for a text of L word-pieces (scores and weighted values)
FLOP_PER_PIECE = 6 * 2 * (4 * 384 * 384 + 2 * 384 * 1536)


def flop_of(length: int) -> int:
    """FLOPs of one text of ``length`` word-pieces through MiniLM (no padding)."""
    return length * (FLOP_PER_PIECE + 6 * 4 * length * 384)


def aligned_flop_of(length: int, period: int) -> int:
    """FLOPs of one text as the packed pass runs it: the row-wise products on ``ceil(length / period)
    x period`` rows (each text starts on the BLAS row period), attention at the padded width
    (:func:`rageval.embed.minilm.bucket_width`)."""
    from rageval.embed.minilm import bucket_width

    rows = -(-length // period) * period
    return rows * FLOP_PER_PIECE + 6 * 4 * length * bucket_width(length) * 384


GEMM_CHILD = r"""
import json, time, numpy as np
a = np.random.default_rng(0).standard_normal((512, 384), dtype=np.float32)
b = np.random.default_rng(1).standard_normal((384, 1536), dtype=np.float32)
a @ b
n, c0 = 0, time.process_time()
while time.process_time() - c0 < 1.5:
    a @ b
    n += 1
cpu = time.process_time() - c0
from rageval.embed.forward import row_period
print(json.dumps({"gflop_per_cpu_s": 2 * 512 * 384 * 1536 * n / cpu / 1e9, "row_period": row_period()}))
"""


def gemm_gflops() -> float:
    """float32 GEMM GFLOP per CPU-second of one BLAS thread ((512x384) @ (384x1536), the FFN's shape)."""
    return one_thread_blas()["gflop_per_cpu_s"]


def one_thread_blas() -> dict:
    """:func:`gemm_gflops` and the row period (:func:`rageval.embed.forward.row_period`) of a process
    with one BLAS thread, as the score workers run."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", GEMM_CHILD], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


class _CountingModel:
    """Stands in for MiniLM: counts the word-pieces of the texts it is asked for (random vectors)."""

    name = "minilm-l6-v2-numpy"
    dim = 384

    def __init__(self):
        from rageval.embed.minilm import MiniLMEmbedder, _load_minilm

        self.tokenizer = _load_minilm(MiniLMEmbedder()._folder).tokenizer
        self.period = 1  # physical_limit sets the workers' row period
        self.flop = self.aligned_flop = 0
        self.pieces = self.rows = 0

    def embed(self, texts):
        import numpy as np

        for e in self.tokenizer.encode_batch(list(texts)):
            self.pieces += len(e.ids)
            self.rows += -(-len(e.ids) // self.period) * self.period
            self.flop += flop_of(len(e.ids))
            self.aligned_flop += aligned_flop_of(len(e.ids), self.period)
        m = np.random.default_rng(len(texts)).standard_normal((len(texts), self.dim)).astype(np.float32)
        return m / np.linalg.norm(m, axis=1, keepdims=True)

    def embed_tokens(self, texts):
        raise SystemExit("the physical limit counts sentence vectors only; choose metrics without token vectors")


def physical_limit(rows: list[dict], metrics: list[str], cores: int) -> dict:
    """Word-pieces and FLOPs per answer that the metrics embed (each distinct text once, no padding),
    the measured one-thread GEMM speed, and the answers/s no code could beat on ``cores`` cores."""
    from rageval.embed.cache import CachedEmbedder
    from rageval.metrics.base import evaluate, parse_metric_list
    from rageval.runs.scoring import parse_answers
    from rageval.types import Resources

    samples, _ = parse_answers("bench.jsonl", "".join(json.dumps(r) + "\n" for r in rows).encode())
    blas = one_thread_blas()
    model = _CountingModel()
    model.period = blas["row_period"]
    evaluate(samples, parse_metric_list(metrics), Resources(embedder_factory=lambda: CachedEmbedder(model)))
    gflops = blas["gflop_per_cpu_s"]
    per_answer = model.flop / len(samples)
    aligned = model.aligned_flop / len(samples)
    return {"pieces_per_answer": round(model.pieces / len(samples)), "gflop_per_answer": round(per_answer / 1e9, 2),
            "gemm_gflop_per_core_s": round(gflops, 1),
            "limit_answers_per_core_s": round(gflops * 1e9 / per_answer, 2),
            "limit_answers_per_s": round(cores * gflops * 1e9 / per_answer, 2), "cores": cores,
            # as the packed pass runs them: each text on ceil(n / period) x period rows
            "row_period": model.period, "rows_per_answer": round(model.rows / len(samples)),
            "aligned_gflop_per_answer": round(aligned / 1e9, 2),
            "aligned_limit_answers_per_s": round(cores * gflops * 1e9 / aligned, 2)}


# ---------------------------------------------------------------- contexts from an ingested corpus

CHUNKS_CHILD = r"""
import json, sys
from rageval.config import RunConfig
from rageval.project import open_project
from rageval.store import corpus
p = open_project("default")
chunking = RunConfig(corpus="bench", qa_set="q").chunking.signature()
print(json.dumps([c["text"] for c in corpus.chunks(p.db_path, "bench", chunking)]))
"""


def corpus_rows(n: int, passages: int, seed: int = 27) -> tuple[list[str], list[dict]]:
    """``passages`` ~100-word passages (one file each) and ``n`` answers whose 3 contexts are
    drawn from them (so contexts repeat, as in a run over one corpus); texts as make_rows."""
    base = make_rows(passages, seed=seed)
    texts = [r["contexts"][0] for r in base]
    rng = random.Random(seed)
    rows = make_rows(n, seed=seed + 1)
    for r in rows:
        r["contexts"] = rng.sample(range(passages), 3)  # indices: the stored chunk texts replace them
    return texts, rows


def pool_rows(n: int, pool: int, seed: int = 31) -> list[dict]:
    """``n`` answers as :func:`make_rows`, each with 3 contexts drawn from a pool of ``pool``
    distinct ~100-word contexts (the contexts of the first rows of another seeded set), so every
    context repeats about ``3 n / pool`` times, as when many questions retrieve from a small corpus.
    The answers' own facts are not in the pool: speed, not verdicts, is what this case measures."""
    contexts = [c for r in make_rows(pool // 3 + 1, seed=seed) for c in r["contexts"]][:pool]
    rng = random.Random(seed)
    rows = make_rows(n)
    for r in rows:
        r["contexts"] = rng.sample(contexts, 3)
    return rows


def corpus_case(n: int, passages: int, metrics: list[str], root: Path) -> dict:
    """Ingest the passages, then ``rageval score`` answers over their chunks, in one fresh home, with
    the rageval of ``root``: wall and CPU-seconds of each step."""
    texts, rows = corpus_rows(n, passages)
    with tempfile.TemporaryDirectory() as home:
        docs = Path(home) / "docs"
        docs.mkdir()
        for i, text in enumerate(texts):
            (docs / f"p{i:04d}.txt").write_text(text + "\n", encoding="utf-8")
        env = {**os.environ, "RAGEVAL_HOME": home, "PYTHONPATH": str(root)}
        ingest = _timed_child([sys.executable, "-m", "rageval", "ingest", str(docs), "--corpus", "bench"], env, root)
        chunks = json.loads(subprocess.run([sys.executable, "-c", CHUNKS_CHILD], env=env, cwd=root,
                                           capture_output=True, text=True, check=True).stdout)
        chunk_of = sorted(chunks)
        for r in rows:
            r["contexts"] = [chunk_of[i % len(chunk_of)] for i in r["contexts"]]
        path = Path(home) / "answers.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        out = Path(home) / "scores.jsonl"
        score = _timed_child([sys.executable, "-m", "rageval", "score", str(path), "--metrics", ",".join(metrics),
                              "--out", str(out)], env, root)
    return {"root": str(root), "chunks": len(chunks), "ingest": ingest, "score": score,
            "answers_per_s": round(n / score["wall_s"], 2), "answers_per_cpu_s": round(n / score["cpu_s"], 2)}


def _timed_child(cmd: list[str], env: dict, cwd: Path) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0,):
        raise SystemExit(f"{' '.join(cmd[:4])} failed ({done.returncode}): {done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}


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
    parser.add_argument("--case", choices=("new", "pool", "corpus", "both"), default="new",
                        help="new: every context never seen before (default); pool: contexts drawn from a pool "
                             "of --pool texts; corpus: contexts are chunks of one ingested corpus (ingest, then "
                             "score in the same project); both: corpus, then new")
    parser.add_argument("--pool", type=int, default=40, help="--case pool: distinct contexts in the pool")
    parser.add_argument("--passages", type=int, default=150, help="--case corpus: passages in the corpus")
    parser.add_argument("--limit", action="store_true",
                        help="also compute the physical limit (word-pieces per answer x FLOPs / GEMM speed)")
    args = parser.parse_args()
    metrics = args.metrics.split(",") if args.metrics else default_metrics()
    load0 = [round(x, 2) for x in os.getloadavg()]
    if args.case in ("corpus", "both"):
        for _ in range(args.repeats):
            for root in [ROOT] + ([Path(args.baseline)] if args.baseline else []):
                got = corpus_case(args.n, args.passages, metrics, root)
                print(json.dumps({"bench": "offline_score_corpus", "answers": args.n, "passages": args.passages,
                                  **got, "load_avg": [round(x, 2) for x in os.getloadavg()], "load_before": load0,
                                  "cpus": os.cpu_count()}), flush=True)
        if args.case == "corpus":
            return
    rows = pool_rows(args.n, args.pool) if args.case == "pool" else make_rows(args.n)
    if args.limit:
        print(json.dumps({"bench": "physical_limit", **physical_limit(rows[:100], metrics, os.cpu_count() or 1)}),
              flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "answers.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        runs, base = [], []
        for _ in range(args.repeats):
            runs.append(end_to_end(path, metrics, store=True))
            if args.baseline:
                base.append(end_to_end(path, metrics, store=True, root=Path(args.baseline)))
        best = min(runs, key=lambda r: r["wall_s"])
        summary = {
            "bench": "offline_score",
            "case": args.case,
            "answers": args.n,
            "metrics": len(metrics),
            "stored": True,
            "runs": runs,
            "answers_per_s": round(args.n / best["wall_s"], 2),
            "cpu_s_per_answer": round(best["cpu_s"] / args.n, 4),
            "answers_per_cpu_s": round(args.n / best["cpu_s"], 2),
            "load_avg": [round(x, 2) for x in os.getloadavg()],
            "cpus": os.cpu_count(),
        }
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
    from bench.bench_common import framed

    framed(main)
