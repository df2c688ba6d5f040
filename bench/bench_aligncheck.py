"""What AlignCheck adds to the default offline metrics, on the demo run's 43 answers.

    python -m bench.bench_aligncheck

Builds the demo project in a temporary RAGEVAL_HOME (its run uses the default metrics), reads
the run's answers with their contexts and references, then in one process times
``evaluate(default metrics)`` and ``evaluate(the three aligncheck metrics, source = contexts)``
on them (embedder and spaCy loads included in the first call of each, as in a fresh run).
Prints wall and CPU seconds; the figures go to docs/benchmarks.md (AlignCheck section).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def main() -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # no options; --help says what it does
    os.environ["RAGEVAL_HOME"] = tempfile.mkdtemp(prefix="rageval-bench-ac-")
    from rageval.config import DEFAULT_METRICS
    from rageval.demo import load_demo
    from rageval.metrics.base import evaluate, parse_metric_list
    from rageval.types import Resources
    from rageval.types import Sample
    from rageval.project import open_project
    from rageval.store import runs as store

    info = load_demo()
    answers = store.answers(open_project(info["project"]).db_path, info["run_id"])
    samples = [Sample(id=a["item_id"], question=a["question"], answer=a["answer"], references=tuple(a["references"]),
                      contexts=tuple(a["contexts"])) for a in answers]
    resources = Resources()
    _, d_wall, d_cpu = timed(lambda: evaluate(samples, parse_metric_list(list(DEFAULT_METRICS)), resources))
    ac_metrics = parse_metric_list("aligncheck_f1,aligncheck_precision,aligncheck_recall", aligncheck_source="contexts")
    got, a_wall, a_cpu = timed(lambda: evaluate(samples, ac_metrics, resources))
    scored = sum(s.status == "ok" for s in got["aligncheck_f1"])
    reasons = {}
    for s in got["aligncheck_f1"]:
        if s.status != "ok":
            reasons[s.reason] = reasons.get(s.reason, 0) + 1
    print(json.dumps({"answers": len(samples), "default_metrics": len(DEFAULT_METRICS),
                      "default_wall_s": round(d_wall, 2), "default_cpu_s": round(d_cpu, 2),
                      "aligncheck_wall_s": round(a_wall, 2), "aligncheck_cpu_s": round(a_cpu, 2),
                      "aligncheck_scored": scored, "aligncheck_unscored": reasons}))
    return 0


if __name__ == "__main__":
    from bench.bench_common import framed

    sys.exit(framed(main))
