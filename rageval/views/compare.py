"""The Compare page's read model: are two or more runs really different on a metric (or on the human
score)? Friedman and post-hoc tests, a verdict, a critical-difference diagram, and for two runs the
answers that got worse or better (:mod:`rageval.views.regressions`).

Runs are lettered in the order chosen: ``A · <name>``, ``B · <name>``, ...; mean ranks count a
higher value as better (or a lower one, for a lower-is-better metric).
"""
from __future__ import annotations

from typing import Sequence

import pandas as pd

from rageval import human
from rageval.demo import DEMO_COMPARE_METRIC
from rageval.human import Comparison
from rageval.project import Project
from rageval.report.exports import table_csv
from rageval.views.charts import cd_diagram
from rageval.views.regressions import Regressions, regressions
from rageval.views.trust import estimate_sentence

__all__ = ["Comparison", "Regressions", "metric_options", "default_metric", "comparison", "summary_table",
           "run_coverage", "regressions", "has_regressions", "table_csv", "cd_diagram", "estimate_sentence"]


def metric_options(frame: pd.DataFrame) -> list[str]:
    """The metrics (and ``human``) scored on the same answers in every run of ``frame``."""
    return human.shared_metric_columns(frame)


def default_metric(options: Sequence[str]) -> str:
    """The metric a comparison opens on: the demo's comparison metric when offered, else the first."""
    return DEMO_COMPARE_METRIC if DEMO_COMPARE_METRIC in options else options[0]


def comparison(project: Project, run_ids: Sequence[str], metric: str, frame: pd.DataFrame) -> Comparison:
    """Tests and verdict of the runs on ``metric`` over their per-answer ``frame`` (rageval.human.compare_runs)."""
    return human.compare_runs(project, list(run_ids), metric, frame=frame)


def run_coverage(project: Project, run_ids: Sequence[str], metric: str) -> dict[str, float]:
    """Run id -> the coverage of a claim metric in that run (decided / all claims); {} for other metrics."""
    from rageval.store import reports as report_store

    totals: dict[str, list[int]] = {}
    for s in report_store.metric_stats(project.db_path, list(run_ids)):
        if s["metric"] == metric and s.get("n_all"):
            t = totals.setdefault(s["run_id"], [0, 0])
            t[0], t[1] = t[0] + (s.get("n_decided") or 0), t[1] + s["n_all"]
    return {r: a / b for r, (a, b) in totals.items() if b}


def summary_table(c: Comparison, coverage: dict[str, float] | None = None) -> pd.DataFrame:
    """Mean, mean rank and first-rank share per run, rows named ``A · <run name>``; with ``coverage``
    (:func:`run_coverage`) a ``coverage`` column beside the mean."""
    labels = {r: f"{chr(65 + i)} · {c.name(r)}" for i, r in enumerate(c.runs)}
    table = pd.DataFrame({"mean": c.means, "mean rank": c.mean_ranks, "first-rank share": c.first_rank_share})
    if coverage:
        table.insert(1, "coverage", [coverage.get(r) for r in table.index])
    table.index = [labels[r] for r in table.index]
    return table


def has_regressions(run_ids: Sequence[str], metric: str) -> bool:
    """Whether per-question regressions apply: two runs, a metric (not the human score, not a rubric ``#`` part)."""
    return len(run_ids) == 2 and metric != "human" and "#" not in metric
