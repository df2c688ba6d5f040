"""Cached reads for the pages (not a page): the project chosen in the sidebar, the session's change
counter, and the cached readers of the view modules, each made by :func:`cached_query`. A view module
is imported on a reader's first call, so the app's first page does not import what only other pages
need (scipy.stats, the report); only these wrappers know Streamlit.

What changes with every write (the run list, counts, ratings) is keyed on the change stamp
(:func:`stamp`); what never changes once a run is finished (its answers, scores, tables) on the run's
state (:func:`run_stamp`). pages/parts/common.py re-exports every public name here.
"""
from __future__ import annotations

import functools
import importlib
from pathlib import Path
from typing import Any, Callable, Sequence

import streamlit as st

from rageval.errors import AccessError
from rageval.views import frame
from rageval.views.frame import Identity, Project, Run, open_project


def auth_configured() -> bool:
    """Whether ``.streamlit/secrets.toml`` has an ``[auth]`` section: then every page needs sign-in."""
    try:
        return bool(st.secrets.load_if_toml_exists() and "auth" in st.secrets)
    except Exception:  # noqa: BLE001 - an unreadable secrets file: Streamlit reports it; no sign-in then
        return False


def identity() -> Identity:
    """Who acts in this session, worked out again on every call (so a revoked demo link, or a sign-out,
    stops at the next click whichever script runs): the viewer of a demo link app.py accepted, else with
    ``[auth]`` the signed-in person, else the local user. AccessError when the link is no longer valid or
    nobody has signed in."""
    token = st.session_state.get("_demo_token")
    if token:
        return frame.open_link(token)
    if auth_configured():
        if not st.user.is_logged_in:
            raise AccessError("sign in to see this page")
        return frame.signed_in(st.user.to_dict())
    return frame.LOCAL


def project() -> Project:
    """The project chosen in the sidebar (``default`` before app.py has chosen one), acted on by
    :func:`identity`: a project it may not open stops the page, showing nothing of it."""
    try:
        who, slug = identity(), st.session_state.get("project") or None
        if who.local:
            return open_project(slug)
        if slug is None:
            raise AccessError(f"{who.email} is not a member of any project yet: create one in the sidebar, "
                              "or ask a project's owner to add you")
        return frame.open_as(slug, who)
    except AccessError as exc:
        st.info(str(exc))
        st.stop()


def can(action: str) -> bool:
    """Whether this session may ``action`` (upload, run, rate, label, manage) in the chosen project: pages
    draw a control only then (the library refuses it anyway)."""
    return frame.may(project(), action)


def version() -> int:
    """The session's change counter: bumped after every write so cached queries refresh."""
    return int(st.session_state.get("data_version", 0))


def bump() -> None:
    st.session_state["data_version"] = version() + 1


def stamp(p: Project) -> tuple:
    """The project database's change stamp (rageval.store.db.change_stamp): cached queries are keyed on
    it, so a click re-reads nothing unless something (any tab, any process) wrote meanwhile."""
    return frame.data_stamp(p)


def run_stamp(run: Run) -> tuple:
    """A run's state and the session's change counter: a finished run's reads are keyed on it."""
    return (run.status, run.done, run.failed, str(run.finished), version())


def cached_query(view: str | Callable[..., Any], *, max_entries: int, ttl: int | None = None) -> Callable[..., Any]:
    """Decorator of a cached reader of ``view``: the decorated function maps a page's arguments to
    ``(key, args)``; the reader returns ``view(project, *args)``, read again only when the project,
    ``key`` (a change stamp: :func:`stamp` or :func:`run_stamp`) or ``args`` change (``st.cache_data``,
    at most ``max_entries`` results, each for ``ttl`` seconds when given). ``view`` is
    ``"<module>.<function>"`` of ``rageval.views`` (imported on the first read) or a function of this
    module. ``reader.by_key(p, key, args)`` reads the same cache with a key and arguments at hand."""

    def decorate(keyed: Callable[..., tuple]) -> Callable[..., Any]:
        def read(root: str, slug: str, key: Any, args: tuple) -> Any:
            if isinstance(view, str):
                module, _, function = view.rpartition(".")
                found = getattr(importlib.import_module(f"rageval.views.{module}"), function)
            else:
                found = view
            return found(Project(slug=slug, root=Path(root)), *args)

        # st.cache_data tells caches apart by a function's name and source: every reader shares
        # read's source, so each gets its own name
        read.__qualname__ = f"cached_query[{keyed.__name__}]"
        cached = st.cache_data(show_spinner=False, max_entries=max_entries, ttl=ttl)(read)

        @functools.wraps(keyed, assigned=("__module__", "__name__", "__qualname__", "__doc__"))
        def reader(p: Project, *given: Any, **options: Any) -> Any:
            key, args = keyed(p, *given, **options)
            return cached(str(p.root), p.slug, key, args)

        reader.by_key = lambda p, key, args: cached(str(p.root), p.slug, key, args)  # type: ignore[attr-defined]
        return reader

    return decorate


def _ids(runs: Sequence[Run]) -> tuple:
    return tuple(r.id for r in runs)


def _states(runs: Sequence[Run]) -> tuple:
    return tuple(run_stamp(r) for r in runs)


@cached_query("frame.finished_runs", max_entries=32)
def finished_runs(p: Project) -> tuple:
    """The project's finished runs, newest first (cached on the database's change stamp)."""
    return stamp(p), ()


@cached_query("frame.ended_runs", max_entries=32)
def ended_runs(p: Project) -> tuple:
    """The project's runs that finished or failed, newest first (cached on the database's change stamp)."""
    return stamp(p), ()


@cached_query("home.project_counts", max_entries=32)
def project_counts(p: Project) -> tuple:
    return stamp(p), ()


@cached_query("human_review.ratings_by_item", max_entries=32)
def _review_ratings(p: Project, run: Run) -> tuple:
    return stamp(p), (run.id,)


@cached_query("human_review.answers_and_scores", max_entries=8)
def _review_base(p: Project, run: Run) -> tuple:
    # keyed on the run's own state only: a rating (which bumps the session's data version) leaves
    # the run's answers and scores as they are, so "Save and next" never re-reads them
    return (run.status, run.done, run.failed, str(run.finished)), (run.id,)


def review_annotators(p: Project, run: Run) -> list[str]:
    """Who has rated answers of ``run`` (from the cached ratings: no extra read)."""
    return sorted({name for given in _review_ratings(p, run).values() for name in given})


def review_queue(p: Project, run: Run, annotator: str) -> list:
    """One annotator's queue (rageval.views.human_review.with_ratings): the run's answers (cached per
    run) and its ratings (cached on the database's change stamp)."""
    from rageval.views import human_review as review_view

    return review_view.with_ratings(_review_base(p, run), _review_ratings(p, run), annotator)


@cached_query("answers.answer_table", max_entries=16)
def answer_table(p: Project, run: Run) -> tuple:
    """The run's answers as one table row each (rageval.views.answers.answer_table), cached on the run's
    state and the database's change stamp (a claim labelled anywhere changes its settled counts)."""
    return (run_stamp(run), stamp(p)), (run.id,)


@cached_query("answers.item_values", max_entries=16)
def item_values(p: Project, runs: Sequence[Run], metrics: Sequence[str] | None = None) -> tuple:
    """Long per-item metric values of ``runs`` (of ``metrics`` only, when given) for plots, cached."""
    return _states(runs), (list(_ids(runs)), None if metrics is None else list(metrics))


@cached_query("answers.answer_view", max_entries=64)
def answer_view(p: Project, run: Run, item_id: str) -> tuple:
    """One answer's view (rageval.views.answers.answer_view), read for that answer only (fast on runs
    of any size), cached on the run's state and the database's change stamp (settled verdicts)."""
    return (run_stamp(run), stamp(p)), (run.id, item_id)


@cached_query("answers.card_notes", max_entries=32)
def card_notes(p: Project, run: Run) -> tuple:
    """rageval.views.answers.card_notes of ``run``, cached on the run's state (a finished run's claims stay)."""
    return run_stamp(run), (run.id,)


@cached_query("answers.ppi_lines", max_entries=16)
def answer_ppi_lines(p: Project, run: Run) -> tuple:
    """rageval.views.answers.ppi_lines of ``run``, cached on the database's change stamp (labels change it)."""
    return stamp(p), (run.id,)


@cached_query("answers.summaries", max_entries=32)
def summaries(p: Project, run: Run) -> tuple:
    """rageval.views.answers.summaries of ``run`` (a list of MetricSummary), cached on the run's state
    and the database's change stamp (the claim metrics are on settled verdicts)."""
    return (run_stamp(run), stamp(p)), (run.id,)


@cached_query("home.agreement", max_entries=16, ttl=30)
def agreement(p: Project) -> tuple:
    """Metric -> its agreement with the raters in the latest stored analysis (rageval.human.trust)."""
    return version(), ()


@cached_query("correlations.human_frame", max_entries=8)
def human_frame(p: Project, runs: Sequence[Run], consensus: str = "median") -> tuple:
    """The per-answer table of ``runs`` with the human consensus (rageval.views.correlations.human_frame), cached on
    the runs' states and the session's data version (bumped when ratings change)."""
    return _states(runs), (_ids(runs), consensus)


def _compare_over_frame(p: Project, run_ids: tuple, metric: str, states: tuple) -> Any:
    """rageval.views.compare.comparison over the page's cached :func:`human_frame` (not rebuilt)."""
    from rageval.views import compare as compare_view

    return compare_view.comparison(p, run_ids, metric, human_frame.by_key(p, states, (run_ids, "median")))


@cached_query(_compare_over_frame, max_entries=16)
def comparison(p: Project, runs: Sequence[Run], metric: str) -> tuple:
    """rageval.views.compare.comparison of ``runs`` on ``metric`` (tests and verdict) over the cached
    :func:`human_frame`, cached like it."""
    return _states(runs), (_ids(runs), metric, _states(runs))


@cached_query("compare.regressions", max_entries=16)
def regressions(p: Project, runs: Sequence[Run], metric: str) -> tuple:
    """rageval.views.compare.regressions of the two ``runs`` on ``metric``, cached on their states."""
    return _states(runs), (runs[0].id, runs[1].id, metric)


@cached_query("home.leaderboard", max_entries=16)
def leaderboard(p: Project, runs: Sequence[Run]) -> tuple:
    """The leaderboard of ``runs`` (cached on their ids and states)."""
    return _states(runs), (_ids(runs),)


def _claim_agreement(p: Project, run_ids: tuple | None) -> tuple:
    """rageval.views.trust.claim_agreement with 500 bootstrap resamples (the page's interval)."""
    from rageval.views import trust as trust_view

    return trust_view.claim_agreement(p, run_ids, n_boot=500)


@cached_query(_claim_agreement, max_entries=16)
def claim_trust(p: Project, run_ids: Sequence[str] | None = None) -> tuple:
    """``(verifier rows, rater agreement)`` on claim labels over ``run_ids`` (all runs when None), cached
    on the database's change stamp (rageval.views.trust.claim_agreement)."""
    return stamp(p), (tuple(run_ids) if run_ids is not None else None,)


def _ppi_over_frame(p: Project, run_ids: tuple, metric: str | None, states: tuple) -> Any:
    """rageval.views.trust.difference_row over the page's cached :func:`human_frame` of the two runs
    (the frame the comparison reads: not built a second time)."""
    from rageval.views import trust as trust_view

    frame_of_runs = human_frame.by_key(p, states, (run_ids, "median"))
    return trust_view.difference_row(p, run_ids[0], run_ids[1], metric, frame=frame_of_runs)


@cached_query(_ppi_over_frame, max_entries=16)
def ppi_difference(p: Project, runs: Sequence[Run], metric: str | None) -> tuple:
    """PPI of mean human rating B - A of the two ``runs`` with ``metric`` as predictor
    (rageval.views.trust.difference_row), cached on the database's change stamp and the runs' states."""
    return (stamp(p), _states(runs)), (_ids(runs), metric, _states(runs))


@cached_query("home.ppi_lines", max_entries=8)
def ppi_lines(p: Project, runs: Sequence[Run], title: Callable[[Run], str]) -> tuple:
    """Home's lines of PPI estimates for the labelled runs among ``runs`` (``title(run)`` names each)."""
    return stamp(p), (list(_ids(runs)), {r.id: title(r) for r in runs})
