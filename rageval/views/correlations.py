"""The Correlations page's read model and action: stored analyses of how far each metric agrees with
the human ratings (paper-style table, heatmap, scatter), the raters' own agreement, and computing a
new analysis.

A table cell reads ``rho [ci_low, ci_high] (n=N)``; ``rho (n=N)`` when no bootstrap interval could
be drawn; the plain reason (:func:`rageval.human.plain.na`) when the cell could not be computed.
"""
from __future__ import annotations

from typing import Any, Sequence

import pandas as pd

from rageval import human
from rageval.human import CONSENSUS, GROUPINGS, Analysis, plain
from rageval.project import Project
from rageval.report.exports import table_csv
from rageval.util import shown
from rageval.views.charts import heatmap, scatter
from rageval.human.trust_rows import verifier_sentence
from rageval.views.trust import raters_sentence, verifier_frame

__all__ = ["GROUPINGS", "CONSENSUS", "METHODS", "Analysis", "analyses", "rated_runs", "correlate", "open_analysis",
           "rater_agreement", "agreement_sentence", "table_text", "analysis_rows", "human_frame", "scatter_metrics",
           "table_csv", "heatmap", "scatter", "raters_sentence", "verifier_frame", "verifier_sentence"]

#: correlation methods offered (scipy.stats)
METHODS = ("spearman", "kendall", "pearson")


def analyses(project: Project) -> list[dict[str, Any]]:
    """The stored analyses, newest first."""
    return human.list_analyses(project)


def rated_runs(project: Project, run_ids: Sequence[str]) -> list[str]:
    """The ids of ``run_ids`` that have human ratings, in the given order (newest first): what the
    page offers first, since an analysis of a run nobody rated finds nothing to correlate."""
    from rageval.store.human import rating_counts

    counts = rating_counts(project.db_path, list(run_ids))
    return [i for i in run_ids if counts.get(i)]


def correlate(project: Project, run_ids: Sequence[str], *, group_by: str, method: str, consensus: str) -> Analysis:
    """Correlate the runs' metrics with the human consensus (bootstrap CIs) and store the analysis."""
    return human.correlate_runs(project, list(run_ids), group_by=group_by, method=method, consensus_method=consensus)


def open_analysis(project: Project, analysis_id: str) -> Analysis:
    return human.open_analysis(project, analysis_id)


def rater_agreement(project: Project, analysis: Analysis) -> dict[str, Any]:
    """How far the annotators of the analysis's runs agree with each other, overall and per domain."""
    return human.agreement(project, list(analysis.runs), by="domain")


def agreement_sentence(overall: dict[str, Any]) -> str:
    """``Annotators: 3 on 30 answers; Krippendorff's alpha (ordinal) 0.71; exact agreement ...``."""
    o = overall
    return (f"**Annotators:** {o['annotators']} on {o['answers']} answers; Krippendorff's alpha (ordinal) "
            f"{shown(o['alpha'], '{:.2f}')}; exact agreement {shown(o['exact'], '{:.0%}')}, within one "
            f"{shown(o['within_one'], '{:.0%}')} of {o['pairs']} pairs.")


def group_agreement(ag: dict[str, Any]) -> pd.DataFrame:
    """One row per group: annotators, answers, alpha, exact and within-one agreement."""
    return pd.DataFrame({g: {k: v[k] for k in ("annotators", "answers", "alpha", "exact", "within_one")}
                         for g, v in ag["groups"].items()}).T


def analysis_rows(stored: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stored analyses as table rows: id, method, grouping, groups, created, runs."""
    return [{k: s[k] for k in ("id", "method", "grouping", "groups", "created")} | {"runs": ", ".join(s["runs"])}
            for s in stored]


def table_text(a: Analysis) -> pd.DataFrame:
    """The paper-style table as text: rho [CI] (n) per metric and group, human ceiling last."""
    rows: dict[str, dict[str, str]] = {}
    for m in list(a.table().index):
        rows[m] = {}
        for g in a.groups:
            c = a.cell(g, m, "human")
            if c is None or c["rho"] is None:
                rows[m][g] = "n/a" if c is None else plain.na(c['reason'])
            elif c["ci_low"] is None:
                rows[m][g] = f"{c['rho']:.2f} (n={c['n']})"
            else:
                rows[m][g] = f"{c['rho']:.2f} [{c['ci_low']:.2f}, {c['ci_high']:.2f}] (n={c['n']})"
    return pd.DataFrame(rows).T


def human_frame(project: Project, run_ids: Sequence[str], consensus: str = "median") -> pd.DataFrame:
    """The per-answer table of the runs with the human consensus (rageval.human.build_frame)."""
    return human.build_frame(project, list(run_ids), consensus_method=consensus)


def scatter_metrics(frame: pd.DataFrame) -> list[str]:
    """The metrics to plot against the human score; none when no answer has a human score."""
    metrics = [m for m in human.metric_columns(frame) if m != "human"]
    return metrics if metrics and frame["human"].notna().any() else []
