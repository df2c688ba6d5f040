"""Time the test suite the way the README runs it, on this checkout or on an earlier commit.

    python -m bench.bench_suite                      # the working tree, pytest.ini's own options
    python -m bench.bench_suite --rev 56fea22        # an earlier commit, in a temporary worktree
    python -m bench.bench_suite -- -n 0              # extra pytest arguments after --

Runs ``python -m pytest -q -p no:cacheprovider -rfE [extra]`` (the README's test command without its
install steps, which take no part in the time) with a fresh ``RAGEVAL_HOME``, in the current
Python environment, and prints one Markdown row: commit, extra arguments, tests passed / failed,
wall seconds, CPU seconds of every process the suite started (user + system, from
``getrusage(RUSAGE_CHILDREN)``) and the load average before the start. Take the figure on an idle
machine: the suite uses every core.
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_suite(folder: Path, extra: list[str]) -> dict:
    env = {**os.environ, "RAGEVAL_HOME": tempfile.mkdtemp(prefix="suite-home-")}
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE", *extra],
                          cwd=folder, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(env["RAGEVAL_HOME"], ignore_errors=True)
    summary = (proc.stdout.strip().splitlines() or [""])[-1]
    counts = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|errors?|xfailed|skipped)", summary)}
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    failed = [line for line in proc.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))]
    return {"wall": wall, "cpu": cpu, "load": load, "counts": counts, "rc": proc.returncode, "summary": summary,
            "failed": failed}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default=None, help="a commit to time instead of the working tree")
    ap.add_argument("extra", nargs="*", help="pytest arguments (after --)")
    args = ap.parse_args()
    folder, label = ROOT, "working tree"
    if args.rev:
        folder = Path(tempfile.mkdtemp(prefix="suite-rev-"))
        subprocess.run(["git", "worktree", "add", "--detach", str(folder), args.rev], cwd=ROOT, check=True,
                       capture_output=True)
        label = subprocess.run(["git", "rev-parse", "--short", args.rev], cwd=ROOT, check=True,
                               capture_output=True, text=True).stdout.strip()
    try:
        r = run_suite(folder, args.extra)
    finally:
        if args.rev:
            subprocess.run(["git", "worktree", "remove", "--force", str(folder)], cwd=ROOT, check=False)
    c = r["counts"]
    print("| commit | pytest arguments | passed | failed | wall s | CPU s | load before |")
    print("|---|---|---|---|---|---|---|")
    print(f"| {label} | {' '.join(args.extra) or '(pytest.ini)'} | {c.get('passed', 0)} "
          f"| {c.get('failed', 0) + c.get('error', 0) + c.get('errors', 0)} | {r['wall']:.1f} | {r['cpu']:.1f} "
          f"| {r['load']:.2f} |")
    if r["rc"] != 0:
        print(f"pytest exited {r['rc']}: {r['summary']}", *r["failed"], sep="\n", file=sys.stderr)


if __name__ == "__main__":
    main()
