"""How far apart a text's vector and a row's metric values are when they are computed under other
batch compositions: with other texts, alone, in small packs, in worker processes, in shards.

The tests compare such results within 1e-6 (devtools/rounding.py); this prints the largest
differences actually seen, on the tests' own inputs plus the demo corpus sentence by sentence,
and any discrete difference (status, reason, verdict, evidence text), which must be none.

    python -m bench.bench_rounding

One BLAS thread in this process, as in the workers and in a test run (two threads split a
product differently again).
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path

from rageval.embed.processes import one_blas_thread

one_blas_thread()  # before NumPy loads
import numpy as np  # noqa: E402

from bench.bench_common import framed  # noqa: E402 (after NumPy is held to one thread)


def _vector_differences() -> dict:
    from rageval.embed.cache import CachedEmbedder
    from rageval.embed.minilm import MiniLMEmbedder
    from rageval.embed.processes import embed_parallel
    from rageval.embed.sentences import sentence_texts
    from devtools.samples import EMBED_TEXTS

    corpus = Path(__file__).resolve().parents[1] / "rageval" / "demo" / "corpus"
    texts = list(
        dict.fromkeys(
            EMBED_TEXTS + sentence_texts([p.read_text(encoding="utf-8") for p in sorted(corpus.glob("*.txt"))])
        )
    )
    embedder = MiniLMEmbedder()
    together = embedder.embed(texts)
    alone = np.vstack([embedder.embed([t]) for t in texts])
    small = MiniLMEmbedder(batch_size=2, token_budget=64).embed(texts)
    workers = embed_parallel(CachedEmbedder(MiniLMEmbedder()), texts, workers=2)
    return {
        "texts": len(texts),
        "together_vs_alone": float(np.abs(together - alone).max()),
        "together_vs_small_packs": float(np.abs(together - small).max()),
        "two_workers_vs_here": float(np.abs(workers - together).max()),
        "texts_with_any_bit_changed_alone": int((together != alone).any(axis=1).sum()),
        "same_call_twice": float(np.abs(embedder.embed(texts) - together).max()),
    }


def _compare(one: list, many: list) -> dict:
    """The largest difference over every float (values and details, whose figures are rounded to
    6 decimals), and the discrete differences (none expected)."""
    from devtools.rounding import assert_same_within_rounding, largest_float_difference

    discrete = []
    try:
        assert_same_within_rounding(many, one, atol=math.inf)
    except AssertionError as e:
        discrete.append(str(e)[:300])
    return {"largest_difference": largest_float_difference(many, one), "discrete_differences": discrete}


def _worker_differences() -> dict:
    from rageval.config import DEFAULT_METRICS
    from rageval.embed.cache import CachedEmbedder
    from rageval.embed.minilm import MiniLMEmbedder
    from rageval.metrics.base import evaluate, parse_metric_list
    from rageval.scoring.parallel import evaluate_parallel
    from rageval.types import Resources
    from devtools.samples import parallel_samples

    samples = parallel_samples()
    metrics = parse_metric_list(list(DEFAULT_METRICS) + ["groundedness", "answer_relevance"])
    one = evaluate(samples, metrics, Resources(embedder_factory=lambda: CachedEmbedder(MiniLMEmbedder())))
    shared = CachedEmbedder(MiniLMEmbedder())
    many = evaluate_parallel(samples, metrics, Resources(embedder_factory=lambda: shared), workers=2)
    as_rows = {name: [(s.status, s.reason, s.value, s.details) for s in col] for name, col in one.items()}
    many_rows = {name: [(s.status, s.reason, s.value, s.details) for s in col] for name, col in many.items()}
    values = {n: max((abs(a.value - b.value) for a, b in zip(one[n], many[n]) if a.value is not None), default=0.0)
              for n in one}
    return {"samples": len(samples), "largest_value_difference": max(values.values()), "by_metric": values,
            **_compare(as_rows, many_rows)}


def _shard_differences() -> dict:
    import pyarrow.parquet as pq

    from rageval.cli import main
    from devtools.samples import SHARD_METRICS, SHARD_ROWS

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["RAGEVAL_HOME"] = str(Path(tmp) / "home")

        def score(name: str, rows: list) -> list:
            src = Path(tmp) / f"{name}.jsonl"
            src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
            assert main(["score", str(src), "--metrics", SHARD_METRICS, "--details", "--no-store", "--workers", "1",
                         "--out", str(Path(tmp) / f"{name}.parquet")]) == 0
            return [
                {k: v for k, v in r.items() if k != "source"}
                for r in pq.read_table(Path(tmp) / f"{name}.parquet").to_pylist()
            ]

        whole = score("whole", SHARD_ROWS)
        parts = score("part-0", SHARD_ROWS[:6]) + score("part-1", SHARD_ROWS[6:])
    return {"rows": len(SHARD_ROWS), "metrics": SHARD_METRICS, **_compare(whole, parts)}


def main() -> dict:
    result = {"vectors": _vector_differences(), "workers": _worker_differences(), "shards": _shard_differences()}
    print(json.dumps(result, indent=1), flush=True)
    return result


if __name__ == "__main__":
    framed(main)
