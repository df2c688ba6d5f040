"""Throughput of the offline MiniLM embedder (sentences per second).

Target (DESIGN.md): >= 70 sentences/s on 2 cores for sentences of about 20 words.

    python bench/bench_embed.py [--n 512] [--words 20] [--repeats 3] [--tokens]

The sentences are made from a fixed word list with a seeded generator, so runs are comparable.
Every run uses a fresh uncached MiniLMEmbedder (the weights are loaded before timing); the
figure is the best of ``--repeats`` runs. It prints one JSON line with the figures and the BLAS
set-up (threadpoolctl, when installed), ready to copy into docs/benchmarks.md.
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

from rageval.embed import MiniLMEmbedder  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=512)
    parser.add_argument("--words", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tokens", action="store_true", help="time embed_tokens instead of embed")
    args = parser.parse_args()
    sentences = make_sentences(args.n, args.words)
    embedder = MiniLMEmbedder()
    embedder.embed(sentences[:4])  # load weights and tokenizer outside the timing
    wordpieces = sum(len(t.ids) for t in embedder.embed_tokens(sentences[:64])) / 64
    best = float("inf")
    for _ in range(args.repeats):
        start = time.perf_counter()
        if args.tokens:
            embedder.embed_tokens(sentences)
        else:
            embedder.embed(sentences)
        best = min(best, time.perf_counter() - start)
    print(
        json.dumps(
            {
                "bench": "embed_tokens" if args.tokens else "embed",
                "sentences": args.n,
                "words_per_sentence": args.words,
                "mean_wordpieces": round(wordpieces, 1),
                "seconds": round(best, 3),
                "sentences_per_s": round(args.n / best, 1),
                "cpus": os.cpu_count(),
                "python": platform.python_version(),
                "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
                "blas": blas_info(),
            }
        )
    )


if __name__ == "__main__":
    main()
