"""Cached reads for the pages (not a page): the project chosen in the sidebar, the session's change
counter, and ``st.cache_data`` loaders keyed on the database's change stamp or on a run's state. Each
loader calls its page's view module (``rageval.views.<page>``), imported in the loader so the app's
first page does not import what only other pages need (scipy.stats, the report); only these
wrappers know Streamlit.

What changes with every write (the run list, counts, ratings) is keyed on the change stamp
(:func:`stamp`); what never changes once a run is finished (its answers, scores, tables) on the run's
state (:func:`run_stamp`). pages/common.py re-exports every public name here.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import streamlit as st

from rageval.views import frame
from rageval.views.frame import Project, open_project

if TYPE_CHECKING:
    from rageval.views import answers as answers_view


def project() -> Project:
    """The project chosen in the sidebar (``default`` before app.py has chosen one)."""
    return open_project(st.session_state.get("project") or None)


def version() -> int:
    """The session's change counter: bumped after every write so cached queries refresh."""
    return int(st.session_state.get("data_version", 0))


def bump() -> None:
    st.session_state["data_version"] = version() + 1


def stamp(p: Project) -> tuple:
    """The project database's change stamp (rageval.store.db.change_stamp): cached queries are keyed on
    it, so a click re-reads nothing unless something (any tab, any process) wrote meanwhile."""
    return frame.data_stamp(p)


@st.cache_data(show_spinner=False, max_entries=32)
def _finished_runs(root: str, slug: str, stamp: tuple) -> list[dict[str, Any]]:
    return frame.finished_runs(Project(slug=slug, root=Path(root)))


def finished_runs(p: Project) -> list[dict[str, Any]]:
    """The project's finished runs, newest first (cached on the database's change stamp)."""
    return _finished_runs(str(p.root), p.slug, stamp(p))


@st.cache_data(show_spinner=False, max_entries=32)
def _counts(root: str, slug: str, stamp: tuple) -> dict[str, int]:
    from rageval.views import home as home_view

    return home_view.project_counts(Project(slug=slug, root=Path(root)))


def project_counts(p: Project) -> dict[str, int]:
    return _counts(str(p.root), p.slug, stamp(p))


@st.cache_data(show_spinner=False, max_entries=8)
def _review_base(root: str, slug: str, run_id: str, stamp: tuple) -> list:
    from rageval.views import human_review as review_view

    return review_view.answers_and_scores(Project(slug=slug, root=Path(root)), run_id)


@st.cache_data(show_spinner=False, max_entries=32)
def _review_ratings(root: str, slug: str, run_id: str, stamp: tuple) -> dict:
    from rageval.views import human_review as review_view

    return review_view.ratings_by_item(Project(slug=slug, root=Path(root)), run_id)


def review_annotators(p: Project, run: dict[str, Any]) -> list[str]:
    """Who has rated answers of ``run`` (from the cached ratings: no extra read)."""
    ratings = _review_ratings(str(p.root), p.slug, run["id"], stamp(p))
    return sorted({name for given in ratings.values() for name in given})


def review_queue(p: Project, run: dict[str, Any], annotator: str) -> list:
    """One annotator's queue (rageval.views.human_review.with_ratings): the run's answers (cached per
    run) and its ratings (cached on the database's change stamp)."""
    from rageval.views import human_review as review_view

    # keyed on the run's own state only: a rating (which bumps the session's data version) leaves
    # the run's answers and scores as they are, so "Save and next" never re-reads them
    base = _review_base(str(p.root), p.slug, run["id"], (run["status"], run["done"], run["failed"], str(run["finished"])))
    return review_view.with_ratings(base, _review_ratings(str(p.root), p.slug, run["id"], stamp(p)), annotator)


def run_stamp(run: dict[str, Any]) -> tuple:
    return (run["status"], run["done"], run["failed"], str(run["finished"]), version())


@st.cache_data(show_spinner=False, max_entries=32)
def _summaries(root: str, slug: str, run_id: str, stamp: tuple) -> list[answers_view.MetricSummary]:
    from rageval.views import answers as answers_view

    return answers_view.summaries(Project(slug=slug, root=Path(root)), run_id)


@st.cache_data(show_spinner=False, max_entries=16)
def _answer_table(root: str, slug: str, run_id: str, stamp: tuple) -> Any:
    from rageval.views import answers as answers_view

    return answers_view.answer_table(Project(slug=slug, root=Path(root)), run_id)


def answer_table(p: Project, run: dict[str, Any]) -> Any:
    """The run's answers as one table row each (rageval.views.answers.answer_table), cached."""
    return _answer_table(str(p.root), p.slug, run["id"], run_stamp(run))


@st.cache_data(show_spinner=False, max_entries=16)
def _item_values(root: str, slug: str, run_ids: tuple, metrics: tuple | None, stamp: tuple) -> Any:
    from rageval.views import answers as answers_view

    return answers_view.item_values(Project(slug=slug, root=Path(root)), list(run_ids),
                                   None if metrics is None else list(metrics))


def item_values(p: Project, runs: Sequence[dict[str, Any]], metrics: Sequence[str] | None = None) -> Any:
    """Long per-item metric values of ``runs`` (of ``metrics`` only, when given) for plots, cached."""
    return _item_values(str(p.root), p.slug, tuple(r["id"] for r in runs),
                        None if metrics is None else tuple(metrics), tuple(run_stamp(r) for r in runs))


@st.cache_data(show_spinner=False, max_entries=64)
def _answer_view(root: str, slug: str, run_id: str, item_id: str, stamp: tuple) -> answers_view.AnswerView | None:
    from rageval.views import answers as answers_view

    return answers_view.answer_view(Project(slug=slug, root=Path(root)), run_id, item_id)


def answer_view(p: Project, run: dict[str, Any], item_id: str) -> answers_view.AnswerView | None:
    """One answer's view, read for that answer only (fast on runs of any size), cached."""
    return _answer_view(str(p.root), p.slug, run["id"], item_id, run_stamp(run))


@st.cache_data(show_spinner=False, max_entries=32)
def _card_notes(root: str, slug: str, run_id: str, stamp: tuple) -> dict[str, str]:
    from rageval.views import answers as answers_view

    return answers_view.card_notes(Project(slug=slug, root=Path(root)), run_id)


def card_notes(p: Project, run: dict[str, Any]) -> dict[str, str]:
    """rageval.views.answers.card_notes of ``run``, cached on the run's state (a finished run's claims stay)."""
    return _card_notes(str(p.root), p.slug, run["id"], run_stamp(run))


def summaries(p: Project, run: dict[str, Any]) -> list[answers_view.MetricSummary]:
    return _summaries(str(p.root), p.slug, run["id"], run_stamp(run))


@st.cache_data(show_spinner=False, max_entries=16, ttl=30)
def _agreement(root: str, slug: str, stamp: int) -> dict:
    from rageval.views import home as home_view

    return home_view.agreement(Project(slug=slug, root=Path(root)))


def agreement(p: Project) -> dict:
    """Metric -> its agreement with the raters in the latest stored analysis (rageval.human.trust)."""
    return _agreement(str(p.root), p.slug, version())


@st.cache_data(show_spinner=False, max_entries=8)
def _human_frame(root: str, slug: str, run_ids: tuple, consensus: str, stamp: tuple) -> Any:
    from rageval.views import correlations as correlations_view

    return correlations_view.human_frame(Project(slug=slug, root=Path(root)), run_ids, consensus)


def human_frame(p: Project, runs: Sequence[dict[str, Any]], consensus: str = "median") -> Any:
    """The per-answer table of ``runs`` with the human consensus (rageval.views.correlations.human_frame), cached on
    the runs' states and the session's data version (bumped when ratings change)."""
    return _human_frame(str(p.root), p.slug, tuple(r["id"] for r in runs), consensus,
                        tuple(run_stamp(r) for r in runs))


@st.cache_data(show_spinner=False, max_entries=16)
def _comparison(root: str, slug: str, run_ids: tuple, metric: str, stamp: tuple) -> Any:
    from rageval.views import compare as compare_view

    p = Project(slug=slug, root=Path(root))
    per_answer = _human_frame(root, slug, run_ids, "median", stamp)  # the page's frame, cached: not rebuilt
    return compare_view.comparison(p, run_ids, metric, per_answer)


def comparison(p: Project, runs: Sequence[dict[str, Any]], metric: str) -> Any:
    """rageval.views.compare.comparison of ``runs`` on ``metric`` (tests and verdict) over the cached
    :func:`human_frame`, cached like it."""
    return _comparison(str(p.root), p.slug, tuple(r["id"] for r in runs), metric, tuple(run_stamp(r) for r in runs))


@st.cache_data(show_spinner=False, max_entries=16)
def _regressions(root: str, slug: str, run_ids: tuple, metric: str, stamp: tuple) -> Any:
    from rageval.views import compare as compare_view

    return compare_view.regressions(Project(slug=slug, root=Path(root)), run_ids[0], run_ids[1], metric)


def regressions(p: Project, runs: Sequence[dict[str, Any]], metric: str) -> Any:
    """rageval.views.compare.regressions of the two ``runs`` on ``metric``, cached on their states."""
    return _regressions(str(p.root), p.slug, tuple(r["id"] for r in runs), metric, tuple(run_stamp(r) for r in runs))


@st.cache_data(show_spinner=False, max_entries=16)
def _leaderboard(root: str, slug: str, stamp: tuple) -> Any:
    from rageval.views import home as home_view

    return home_view.leaderboard(Project(slug=slug, root=Path(root)), stamp[0])


def leaderboard(p: Project, runs: Sequence[dict[str, Any]]) -> Any:
    """The leaderboard of ``runs`` (cached on their ids and states)."""
    return _leaderboard(str(p.root), p.slug, (tuple(r["id"] for r in runs), tuple(run_stamp(r) for r in runs)))


@st.cache_data(show_spinner=False, max_entries=16)
def _claim_trust(root: str, slug: str, run_ids: tuple | None, stamp: tuple) -> tuple:
    from rageval.views import trust as trust_view

    return trust_view.claim_agreement(Project(slug=slug, root=Path(root)), run_ids, n_boot=500)


def claim_trust(p: Project, run_ids: Sequence[str] | None = None) -> tuple:
    """``(verifier rows, rater agreement)`` on claim labels over ``run_ids`` (all runs when None), cached
    on the database's change stamp (rageval.views.trust.claim_agreement)."""
    return _claim_trust(str(p.root), p.slug, tuple(run_ids) if run_ids is not None else None, stamp(p))


@st.cache_data(show_spinner=False, max_entries=16)
def _ppi_difference(root: str, slug: str, run_a: str, run_b: str, metric: str | None, stamp: tuple) -> dict:
    from rageval.views import trust as trust_view

    return trust_view.difference_row(Project(slug=slug, root=Path(root)), run_a, run_b, metric)


def ppi_difference(p: Project, run_a: str, run_b: str, metric: str | None) -> dict:
    """PPI of mean human rating B - A with ``metric`` as predictor (rageval.views.trust.difference_row)."""
    return _ppi_difference(str(p.root), p.slug, run_a, run_b, metric, stamp(p))


@st.cache_data(show_spinner=False, max_entries=8)
def _ppi_lines(root: str, slug: str, named: tuple, stamp: tuple) -> list[str]:
    from rageval.views import home as home_view

    return home_view.ppi_lines(Project(slug=slug, root=Path(root)), [r for r, _ in named], dict(named))


def ppi_lines(p: Project, runs: Sequence[dict[str, Any]], title) -> list[str]:
    """Home's lines of PPI estimates for the labelled runs among ``runs`` (``title(run)`` names each)."""
    return _ppi_lines(str(p.root), p.slug, tuple((r["id"], title(r)) for r in runs), stamp(p))
