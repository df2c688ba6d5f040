"""Time building the demo project: ingest (load, chunk, embed, index) and the evaluated run.

Each repeat uses a fresh RAGEVAL_HOME in a temporary folder and a fresh Python process, so the
model load is counted every time, as a new user would see it. Reported per step (wall), the
whole build's wall and CPU-seconds (the worker processes included), the seconds from the
process start to the first progress report and to the first answer counted (stored), and from
the run's start (after ingest) to its first answer counted. Targets (2 idle cores):
the build <= 5 s, the first progress within 1 s, the first answer counted within 2 s.

``--first-start`` measures instead what a new user's first start costs: ``load_demo()`` in a fresh
process and home, which loads the shipped snapshot (rageval/demo/snapshot.py) when it was made by
this code; the CPU-seconds of the whole process (imports included, worker processes too), target
<= 3 CPU-seconds.

    python -m bench.bench_demo --repeats 3
    python -m bench.bench_demo --first-start --repeats 5
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

STEP = r"""
import json, sys, time
t0 = time.perf_counter()
from rageval.ingest.corpus import ingest
from rageval.config import RunConfig
from rageval.demo import DEMO_CORPUS, DEMO_QA, demo_dir
from rageval.runs.pipeline import execute, start_run
from rageval.project import open_project
from rageval.ingest.qa import import_qa
t1 = time.perf_counter()
seen = {}


def progress(phase, done, total):
    now = time.perf_counter() - t0
    seen.setdefault("first_progress_s", now)
    if phase == "items" and done > 0:
        seen.setdefault("first_answer_s", now)
        seen.setdefault("first_answer_after_run_start_s", time.perf_counter() - t2)


p = open_project("demo")
ingest(p, DEMO_CORPUS, paths=[demo_dir() / "corpus"], progress=progress)
qa = demo_dir() / "qa.jsonl"
import_qa(p, qa.name, qa.read_bytes(), name=DEMO_QA)
t2 = time.perf_counter()
s = execute(p, start_run(p, RunConfig(corpus=DEMO_CORPUS, qa_set=DEMO_QA)), progress=progress)
t3 = time.perf_counter()
import resource
try:
    from rageval.embed.processes import close_pools
    close_pools()  # the workers' CPU-seconds are counted once they are reaped
except ImportError:  # a checkout without worker processes
    pass
use = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
print(json.dumps({"import_s": t1 - t0, "ingest_s": t2 - t1, "run_s": t3 - t2, "total_s": t3 - t0,
                  "cpu_s": sum(u.ru_utime + u.ru_stime for u in use), "items": s.done, **seen}))
"""

FIRST_START = r"""
import json, resource, time
t0 = time.perf_counter()
from rageval.demo import load_demo
from rageval.demo.snapshot import shipped_manifest
built = load_demo()
t1 = time.perf_counter()
use = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
print(json.dumps({"total_s": t1 - t0, "cpu_s": sum(u.ru_utime + u.ru_stime for u in use), "items": built["items"],
                  "snapshot": shipped_manifest() is not None}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--first-start", action="store_true", help="time load_demo() in a fresh home (the snapshot)")
    args = parser.parse_args()
    results = []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as home:
            out = subprocess.run([sys.executable, "-c", FIRST_START if args.first_start else STEP],
                                 capture_output=True, text=True, check=True,
                                 env={**os.environ, "RAGEVAL_HOME": home})
            results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    keys = [k for k in ("import_s", "ingest_s", "run_s", "total_s", "cpu_s", "first_progress_s", "first_answer_s",
                        "first_answer_after_run_start_s")
            if all(k in r for r in results)]
    summary = {
        k: {
            "min": round(min(r[k] for r in results), 2),
            "median": round(statistics.median(r[k] for r in results), 2),
            "max": round(max(r[k] for r in results), 2),
        }
        for k in keys
    }
    print(
        json.dumps(
            {
                "repeats": args.repeats,
                "items": results[0]["items"],
                "load_avg": [round(x, 2) for x in os.getloadavg()],
                **summary,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    from bench.bench_common import framed

    framed(main)
