"""What the gate's guards cost: reading a scored file row by row for ``check``, and defusing
look-alike data tags in a prompt value.

    python -m bench.bench_gate [--rows 200000] [--chars 100000]
    python -m bench.bench_gate --regression 1000000

``--regression N``: instead, ``rageval check CURRENT --no-regression-from BASELINE --metrics
token_f1,bleu`` in a child process over two JSONL files of ``N`` rows (an id and three metric
values; the current side's token_f1 a little lower on every tenth row): its wall seconds, CPU
seconds and peak resident memory (the child's ``ru_maxrss``), and its exit code (1: the drop was found).

1. **check's reader** (rageval.gate.read via ``gate.from_file``): a JSONL file of ``--rows`` rows,
   each an id, a 200-character answer and three metric values (one value in 1,000 out of range);
   CPU seconds and wall seconds of one read, and the peak of Python allocations (tracemalloc, in a
   second read) against the file's size.
2. **the fence** (rageval.prompts.fence.fence_safe) on ``--chars`` characters: ASCII text (the
   regular-expression path) and German text with curly quotes and ``<`` (the skeleton path);
   CPU milliseconds per call, median of 5.

Prints one JSON line with the figures and ``/proc/loadavg`` at the start (the machine is shared).
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path


def _scored_file(folder: Path, rows: int) -> Path:
    path = folder / "scores.jsonl"
    answer = "word " * 40
    with path.open("w", encoding="utf-8") as fh:
        for i in range(rows):
            bad = i % 1000 == 7
            fh.write(json.dumps({"id": f"q{i}", "answer": answer, "token_f1": 25.0 if bad else (i % 100) / 100,
                                 "bleu": 0.5, "rougeL": 0.25}) + "\n")
    return path


def _read(path: Path) -> dict:
    from rageval import gate

    cpu, wall = time.process_time(), time.perf_counter()
    scored = gate.from_file(path)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    tracemalloc.start()
    gate.from_file(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "rows": len(scored.values),
        "rejected": len(scored.rejected),
        "file_mb": round(path.stat().st_size / 1e6, 1),
        "cpu_s": round(cpu, 2),
        "wall_s": round(wall, 2),
        "peak_alloc_mb": round(peak / 1e6, 1),
    }


def _fence(chars: int) -> dict:
    from rageval.prompts.fence import fence_safe

    texts = {"ascii_ms": ("a < b and plain quotes " * chars)[:chars],
             "non_ascii_ms": ("Schöne Grüße — a < b und „Zitate“ " * chars)[:chars]}
    out = {}
    for key, text in texts.items():
        times = []
        for _ in range(5):
            start = time.process_time()
            fence_safe(text)
            times.append((time.process_time() - start) * 1000)
        out[key] = round(statistics.median(times), 1)
    return out


def _regression(rows: int) -> dict:
    import os
    import resource
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for side in ("current", "baseline"):
            paths[side] = Path(tmp) / f"{side}.jsonl"
            with paths[side].open("w", encoding="utf-8") as fh:
                for i in range(rows):
                    value = (i % 100) / 100 - (0.05 if side == "current" and i % 10 == 0 and i % 100 >= 5 else 0)
                    fh.write(json.dumps({"id": f"q{i}", "token_f1": value, "bleu": 0.5, "rougeL": (i % 7) / 7}) + "\n")
        env = {**os.environ, "PYTHONPATH": str(root), "RAGEVAL_HOME": tmp}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "rageval", "check", str(paths["current"]), "--no-regression-from",
                               str(paths["baseline"]), "--metrics", "token_f1,bleu", "--json"], cwd=root, env=env,
                              capture_output=True, text=True)
        wall = time.perf_counter() - wall
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        size = paths["current"].stat().st_size
    return {"rows": rows, "file_mb": round(size / 1e6, 1), "exit": done.returncode, "wall_s": round(wall, 1),
            "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
            "peak_rss_mb": round(after.ru_maxrss / 1024, 1), "stderr": done.stderr[-300:]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--chars", type=int, default=100_000)
    parser.add_argument("--regression", type=int, default=0, metavar="N",
                        help="measure `check --no-regression-from` over two files of N rows instead")
    args = parser.parse_args()
    load = Path("/proc/loadavg").read_text().split()[:3]
    if args.regression:
        print(json.dumps({"loadavg": load, "regression": _regression(args.regression)}))
        return
    with tempfile.TemporaryDirectory() as tmp:
        reader = _read(_scored_file(Path(tmp), args.rows))
    print(json.dumps({"loadavg": load, "reader": reader, "fence": {"chars": args.chars, **_fence(args.chars)}}))


if __name__ == "__main__":
    main()
