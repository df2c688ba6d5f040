"""The Home page's read model: the project's counts, its finished runs as a leaderboard, how far each
metric agrees with the human raters, and the bars of the runs a user compares.

- Leaderboard (:func:`rageval.report.leaderboard.leaderboard`): one row per run, the mean of each
  main metric over the items it scored; the best run per column is the highest mean (the lowest for
  a lower-is-better metric), named only when two or more runs have comparable values (equal signatures).
- The cells are text: a missing mean reads as :data:`rageval.util.MISSING`, never "None" or 0; a
  metric that counts decided claims only shows its coverage beside the mean (``1.000 (40% decided)``).
"""
from __future__ import annotations

from typing import Any, Sequence

import pandas as pd

from rageval.human.trust import metric_agreement
from rageval.project import Project
from rageval.report import leaderboard as board_model
from rageval.report.exports import table_csv
from rageval.report.leaderboard import Leaderboard
from rageval.store import corpus as corpus_store
from rageval.store import runs as run_store
from rageval.store.record import Run
from rageval.util import shown
from rageval.views.charts import means_bars
from rageval.views.run import runs as run_list

__all__ = ["project_counts", "leaderboard", "agreement", "best_rows", "leaderboard_text", "leaderboard_notes",
           "leaderboard_csv", "means_bars", "Leaderboard", "ppi_lines", "BOARD_VIEWS", "board_view", "board_runs"]

#: what the leaderboard shows: pipeline runs, answers scored from files, or both (scored files marked)
BOARD_VIEWS = ("Pipeline runs", "Scored files", "Both")


def project_counts(project: Project) -> dict[str, int]:
    """Corpora, documents, QA sets, QA items, runs and finished runs of the project."""
    corpora = corpus_store.corpora(project.db_path)
    sets = run_store.qa_sets(project.db_path)
    runs = run_store.runs(project.db_path)
    return {
        "corpora": len(corpora), "documents": sum(c["documents"] for c in corpora),
        "qa_sets": len(sets), "qa_items": sum(s["items"] for s in sets),
        "runs": len(runs), "finished_runs": sum(r.status == "finished" for r in runs),
    }


def leaderboard(project: Project, run_ids: Sequence[str]) -> Leaderboard:
    """The leaderboard of the runs ``run_ids`` (read from the run list, which marks dead runs first)."""
    return board_model.leaderboard(project, [r for r in run_list(project) if r.id in run_ids])


def board_view(runs: Sequence[Run]) -> str:
    """The leaderboard's first view: pipeline runs when there are any (ad hoc ``score`` results
    stay apart), else the scored files."""
    return BOARD_VIEWS[0] if any(r.kind == "pipeline" for r in runs) else BOARD_VIEWS[1]


def board_runs(runs: Sequence[Run], view: str) -> list[Run]:
    """The runs a leaderboard ``view`` (one of :data:`BOARD_VIEWS`) shows."""
    if view == BOARD_VIEWS[2]:
        return list(runs)
    return [r for r in runs if (r.kind == "pipeline") == (view == BOARD_VIEWS[0])]


def agreement(project: Project) -> dict[str, Any]:
    """Metric -> its agreement with the raters in the latest stored analysis (rageval.human.trust)."""
    return metric_agreement(project)


def best_rows(board: Leaderboard) -> dict[str, Any]:
    """Metric -> the table row (index) of the best run on it."""
    return {m: board.table.index[board.table["id"] == rid][0] for m, rid in board.best.items()}


def leaderboard_text(board: Leaderboard) -> pd.DataFrame:
    """The table without the id column, each mean as text (``0.812``; a missing mean as ``—``), with
    the coverage of a claim metric beside it (``1.000 (40% decided)``: decided / all claims)."""
    text = board.table.drop(columns=["id"])
    for m in board.metrics:
        cov = [board.coverage.get((rid, m)) for rid in board.table["id"]]
        text[m] = [shown(v) + ("" if c is None else f" ({100 * c:.0f}% decided)") for v, c in zip(text[m], cov)]
    return text


def leaderboard_csv(board: Leaderboard) -> str:
    """The leaderboard's numbers (not the text cells) as CSV, with a ``<metric>_coverage`` column after
    each claim metric that has one."""
    table = board.table.copy()
    for m in board.metrics:
        if any(key[1] == m for key in board.coverage):
            table.insert(list(table.columns).index(m) + 1, f"{m}_coverage",
                         [board.coverage.get((rid, m)) for rid in table["id"]])
    return table_csv(table.drop(columns=["id"]))


def leaderboard_notes(board: Leaderboard, agreement: dict[str, Any]) -> str:
    """The caption under the leaderboard: how to read it, agreement, unscored items, incomparable metrics."""
    notes = ["Means over the items each metric scored; the best run per column is highlighted "
             "(↑ higher is better, ↓ lower is better); hover a column for its meaning."]
    if board.coverage:
        notes.append("% decided: the share of claims settled by a person, a judge or a copy from a chunk; "
                     "the claim metrics count decided claims only.")
    if set(board.table["kind"]) == {"pipeline run", "scored file"}:
        notes.append("Scored files (answers scored by `score` or imported) are marked and never take the best "
                     "mark from a pipeline run.")
    if any(m in agreement for m in board.metrics):
        notes.append("\"raters\" in a column's name: how far the metric agrees with your human raters in the "
                     "latest stored analysis (Correlations page; hover the column for the statistic); trust the "
                     "numbers that agree most.")
    if board.unscored:
        names = dict(zip(board.table["id"], board.table["run"]))
        per_run: dict[str, list[str]] = {}
        for (rid, m), n in board.unscored.items():
            per_run.setdefault(rid, []).append(f"{m} {n}")
        notes.append("Unscored items, not in the means: " + "; ".join(
            f"{names.get(rid, rid)}: {', '.join(sorted(v))}" for rid, v in per_run.items()) + ".")
    if board.incomparable:
        notes.append("Not compared (their settings differ between runs): " + ", ".join(board.incomparable))
    return " ".join(notes)


def ppi_lines(project: Project, run_ids: Sequence[str], names: dict[str, str]) -> list[tuple[str, str]]:
    """Under the leaderboard: each labelled run's prediction-powered estimates, ``(line, tooltip)``
    each, in words (:func:`rageval.views.trust.plain_estimate`)."""
    from rageval.views.trust import labelled_run_ids, plain_headlines

    return [(f"{names.get(r, r)}: {s}", tip) for r in labelled_run_ids(project, run_ids)
            for s, tip in plain_headlines(project, r)]
