"""Start-up: how long a short command takes as a whole process, and what it imports.

    python -m bench.bench_startup [--repeats 5] [--baseline DIR]

Cases, each a fresh process with a fresh ``RAGEVAL_HOME`` (bytecode written once beforehand, as in
an installed package):

- ``help``: ``rageval --help``;
- ``score_3_token_f1``: ``rageval score`` of 3 rows with one lexical metric, ``--no-store``;
- ``score_3_token_f1_stored``: the same, stored as an import run;
- ``score_3_defaults``: the same 3 rows with the 14 run defaults, ``--no-store`` (loads the
  embedder's weights).

The whole process of a 3-row score is an upper bound of the time to its first item (the item's own
work is a few milliseconds). Per case: median, min and max wall seconds and the median CPU-seconds
(user + system of the child). ``--baseline DIR`` (a checkout, e.g. ``git worktree add DIR REV``)
runs the same cases alternately with that checkout's ``rageval``, so both see the same load. Then
``python -X importtime`` of the token_f1 case: the top-level packages by import time.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.bench_offline import _timed_child

ROOT = Path(__file__).resolve().parent.parent

ROWS = [
    {"id": f"s{i}", "question": f"What did report {i} find?", "answer": f"Report {i} found a 4% rise in sales.",
     "reference": "A 4% rise in sales.", "contexts": [f"Report {i} found a 4% rise in sales in 2024. It was audited."]}
    for i in range(3)
]


def cases(path: Path) -> dict[str, list[str]]:
    from rageval.config import DEFAULT_METRICS

    score = ["score", str(path), "--metrics"]
    return {
        "help": ["--help"],
        "score_3_token_f1": score + ["token_f1", "--no-store"],
        "score_3_token_f1_stored": score + ["token_f1", "--out", "{home}/out.jsonl"],
        "score_3_defaults": score + [",".join(DEFAULT_METRICS), "--no-store"],
    }


def timed(root: Path, args: list[str]) -> dict:
    """One fresh process of ``python -m rageval ARGS`` from ``root``: wall and CPU-seconds."""
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "RAGEVAL_HOME": home, "PYTHONPATH": str(root)}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        return _timed_child([sys.executable, "-m", "rageval", *[a.format(home=home) for a in args]], env, root)


def summary(runs: list[dict]) -> dict:
    walls = [r["wall_s"] for r in runs]
    return {"wall_median_s": round(statistics.median(walls), 3), "wall_min_s": round(min(walls), 3),
            "wall_max_s": round(max(walls), 3), "cpu_median_s": round(statistics.median(r["cpu_s"] for r in runs), 3)}


def import_shares(root: Path, path: Path) -> list[tuple[str, float]]:
    """Top-level packages of ``rageval score`` (3 rows, token_f1) by the self time of their modules."""
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "RAGEVAL_HOME": home, "PYTHONPATH": str(root)}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        done = subprocess.run(
            [
                sys.executable,
                "-X",
                "importtime",
                "-m",
                "rageval",
                "score",
                str(path),
                "--metrics",
                "token_f1",
                "--no-store",
            ],
            env=env,
            cwd=root,
            capture_output=True,
            text=True,
        )
    by: dict[str, float] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        own, _total, name = line[len("import time:"):].split("|")
        if not own.strip().isdigit():
            continue
        top = name.strip().split(".")[0]
        by[top] = by.get(top, 0.0) + int(own) / 1e6
    return sorted(((k, round(v, 3)) for k, v in by.items()), key=lambda kv: -kv[1])[:12]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline", default=None, help="another checkout timed alternately with this one")
    args = parser.parse_args()
    roots = {"this": ROOT, **({"baseline": Path(args.baseline).resolve()} if args.baseline else {})}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
        todo = cases(path)
        for root in roots.values():  # write bytecode and warm the page cache once per checkout
            for case in todo.values():
                timed(root, case)
        runs: dict[tuple[str, str], list[dict]] = {}
        for _ in range(args.repeats):
            for name, case in todo.items():
                for side, root in roots.items():
                    runs.setdefault((side, name), []).append(timed(root, case))
        for (side, name), got in runs.items():
            print(json.dumps({"bench": "startup", "side": side, "case": name, "repeats": len(got), **summary(got)}),
                  flush=True)
        for side, root in roots.items():
            print(
                json.dumps({"bench": "startup_imports", "side": side, "seconds_by_package": import_shares(root, path)}),
                flush=True,
            )


if __name__ == "__main__":
    from bench.bench_common import framed

    framed(main)
