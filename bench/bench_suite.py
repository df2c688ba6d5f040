"""Time the test suite the way the README runs it, on this checkout or on an earlier commit.

    python -m bench.bench_suite                      # the working tree, pytest.ini's own options
    python -m bench.bench_suite --rev 56fea22        # an earlier commit, in a temporary worktree
    python -m bench.bench_suite -- -n 0              # extra pytest arguments after --
    python -m bench.bench_suite --same-tests-as d503637               # only the tests both trees hold
    python -m bench.bench_suite --rev d503637 --same-tests-as HEAD    # the same tests on the earlier commit
    python -m bench.bench_suite --added-since d503637                 # the cost of the tests d503637 lacks, by module

Runs ``python -m pytest -q -p no:cacheprovider -rfE [extra]`` (the README's test command without its
install steps, which take no part in the time) with a fresh ``RAGEVAL_HOME``, in the current
Python environment, and prints one Markdown row: commit, extra arguments, tests passed / failed,
wall seconds, CPU seconds of every process the suite started (user + system, from
``getrusage(RUSAGE_CHILDREN)``) and the load average before the start. Take the figure on an idle
machine: the suite uses every core.

``--same-tests-as REV`` runs only the tests whose IDs (``pytest --collect-only -q``) both the timed
tree and REV hold, in the timed tree's own collected order (an ID list in another order can break
tests that share a module's fixtures), passed to pytest in an ``@file``: a suite compared with an
earlier one on the same tests, since tests added later are not the code's cost.

``--added-since REV`` runs the whole suite with ``--durations=0 --durations-min=0`` and then
prints where its test-seconds went: in all, in the tests REV does not hold, and those by module
(setup + call + teardown of each test, summed over both test processes, so about twice the wall
time they add).
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
from collections import Counter
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
            "failed": failed, "stdout": proc.stdout}


def _worktree(rev: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="suite-rev-"))
    subprocess.run(["git", "worktree", "add", "--detach", str(folder), rev], cwd=ROOT, check=True, capture_output=True)
    return folder


def collected(folder: Path) -> list[str]:
    """The test IDs pytest collects in ``folder``, in its order."""
    env = {**os.environ, "RAGEVAL_HOME": tempfile.mkdtemp(prefix="suite-home-")}
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-n", "0"],
                         cwd=folder, env=env, capture_output=True, text=True).stdout
    shutil.rmtree(env["RAGEVAL_HOME"], ignore_errors=True)
    return [line for line in out.splitlines() if "::" in line]


def collected_at(rev: str) -> set[str]:
    """The test IDs commit ``rev`` holds (collected in a temporary worktree)."""
    other = _worktree(rev)
    try:
        return set(collected(other))
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(other)], cwd=ROOT, check=False)


def test_seconds(stdout: str) -> Counter:
    """Seconds per test ID, setup + call + teardown, from pytest's ``--durations`` lines."""
    seconds: Counter = Counter()
    for took, test_id in re.findall(r"^\s*([\d.]+)s (?:setup|call|teardown)\s+(.+?)\s*$", stdout, re.M):
        seconds[test_id] += float(took)
    return seconds


def print_added_cost(stdout: str, rev: str, top: int = 12) -> None:
    """Where the test-seconds went: in all, in the tests ``rev`` lacks, and those by module."""
    theirs, seconds = collected_at(rev), test_seconds(stdout)
    added = {t: s for t, s in seconds.items() if t not in theirs}
    by_module: Counter = Counter()
    for test_id, s in added.items():
        by_module[test_id.split("::")[0]] += s
    print(f"\n{sum(seconds.values()):.1f} test-seconds in all; {sum(added.values()):.1f} in the {len(added)} "
          f"tests {rev} does not hold\n")
    print("| module | test-seconds in tests added since " + rev + " |\n|---|---|")
    for module, s in by_module.most_common(top):
        print(f"| {module} | {s:.1f} |")


def same_tests_file(folder: Path, other_rev: str) -> Path:
    """An ``@file`` of the tests ``folder`` and ``other_rev`` both hold, in ``folder``'s order."""
    theirs = collected_at(other_rev)
    ids = [i for i in collected(folder) if i in theirs]
    path = Path(tempfile.mkdtemp(prefix="suite-ids-")) / "ids.txt"
    path.write_text("\n".join(ids) + "\n", encoding="utf-8")
    print(f"{len(ids)} tests held by both trees", file=sys.stderr)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default=None, help="a commit to time instead of the working tree")
    ap.add_argument("--same-tests-as", default=None, metavar="REV",
                    help="run only the tests that REV also holds (module docstring)")
    ap.add_argument("--added-since", default=None, metavar="REV",
                    help="also print the test-seconds of the tests REV does not hold, by module")
    ap.add_argument("extra", nargs="*", help="pytest arguments (after --)")
    args = ap.parse_args()
    folder, label = ROOT, "working tree"
    if args.rev:
        folder = _worktree(args.rev)
        label = subprocess.run(["git", "rev-parse", "--short", args.rev], cwd=ROOT, check=True,
                               capture_output=True, text=True).stdout.strip()
    try:
        extra = list(args.extra)
        if args.same_tests_as:
            extra.append(f"@{same_tests_file(folder, args.same_tests_as)}")
        if args.added_since:
            extra += ["--durations=0", "--durations-min=0"]
        r = run_suite(folder, extra)
    finally:
        if args.rev:
            subprocess.run(["git", "worktree", "remove", "--force", str(folder)], cwd=ROOT, check=False)
    c = r["counts"]
    print("| commit | pytest arguments | passed | failed | wall s | CPU s | load before |")
    print("|---|---|---|---|---|---|---|")
    tests = f"same tests as {args.same_tests_as} " if args.same_tests_as else ""
    print(f"| {label} | {tests}{' '.join(args.extra) or '(pytest.ini)'} | {c.get('passed', 0)} "
          f"| {c.get('failed', 0) + c.get('error', 0) + c.get('errors', 0)} | {r['wall']:.1f} | {r['cpu']:.1f} "
          f"| {r['load']:.2f} |")
    if args.added_since:
        print_added_cost(r["stdout"], args.added_since)
    if r["rc"] != 0:
        print(f"pytest exited {r['rc']}: {r['summary']}", *r["failed"], sep="\n", file=sys.stderr)


if __name__ == "__main__":
    main()
