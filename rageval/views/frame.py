"""The read model of the page frame: what app.py and pages/parts/common.py show around every page.

The project switcher (projects, the demo build), the database's change stamp that cached reads
are keyed on, the runs announced when they end, the one readable name of a run and of a metric,
text hygiene for what a page shows, and the address-bar encoding of a view. Pure (no streamlit);
each page's own data comes from its own view module (``rageval.views.<page>``).

URL values (:func:`encode` / :func:`decode`): bools as ``1``/``0``, lists comma-joined, floats
with 6 significant digits, None and empty values left out of the address.
"""
from __future__ import annotations

from typing import Any, Callable

from rageval import settings
from rageval.access import (LOCAL, ROLES, Identity, add_member, allowed, audit_csv, audit_trail, create_link,
                            create_project, list_links, list_members, open_as, open_link, remove_member, revoke_link,
                            visible_projects)
from rageval.errors import AccessError
from rageval.project import Project, list_projects, open_project
from rageval.report import meaning
from rageval.report.exports import table_csv
from rageval.report.leaderboard import run_name
from rageval.report.summary import MetricSummary
from rageval.runs.ingest_worker import IngestJobs
from rageval.runs.worker import Progress, RunWorkers
from rageval.store import runs as run_store
from rageval.store.record import Run
from rageval.store.db import change_stamp
from rageval.text.hygiene import without_bidi
from rageval.util import shown
from rageval.types import VERDICTS
from rageval.views.highlight import Segment

__all__ = ["Project", "Run", "list_projects", "open_project", "MetricSummary", "Progress", "RunWorkers", "IngestJobs",
           "Segment",
           "VERDICTS", "without_bidi", "shown", "table_csv", "run_name", "DEMO_PROJECT", "autodemo", "demo_ready",
           "build_demo", "data_stamp", "ended_runs", "finished_runs", "metric_label", "metric_help",
           "higher_is_better", "arrow", "encode", "decode", "view_params", "LOCAL", "Identity", "AccessError",
           "allowed", "create_project", "open_as", "open_link", "visible_projects", "signed_in", "may", "ROLES",
           "add_member", "audit_csv", "audit_trail", "create_link", "list_links", "list_members", "remove_member",
           "revoke_link"]

#: the bundled demo project's slug (rageval.demo.DEMO_PROJECT, without importing the demo at start-up)
DEMO_PROJECT = "demo"


def autodemo() -> bool:
    """Whether the app builds the demo on its first start (``RAGEVAL_NO_AUTODEMO`` off)."""
    return not settings.value("RAGEVAL_NO_AUTODEMO")


def demo_ready() -> bool:
    """Whether the demo project has been built and evaluated (its run is stored)."""
    from rageval.demo import demo_run_id

    return demo_run_id() is not None


def build_demo(progress: Callable[[str, int, int], None]) -> set[str]:
    """Build (or resume building) the demo project, reporting ``progress(phase, done, total)``;
    returns the ids of the runs the build made (its pipeline run and the imported LLM answers)."""
    from rageval.demo import load_demo

    built = load_demo(progress=progress)
    return {r for r in (built["run_id"], built["import_run_id"]) if r}


def signed_in(user: dict[str, Any]) -> Identity:
    """The identity of a person signed in through the app's OpenID Connect provider (``st.user``'s claims:
    ``sub`` and ``email``); an AccessError when the provider gave no e-mail (members are named by e-mail)."""
    subject, email = str(user.get("sub") or "").strip(), str(user.get("email") or "").strip().lower()
    if not subject or "@" not in email:
        raise AccessError("the identity provider gave no subject or e-mail for this account; ask for the "
                          "'openid email' scopes in the [auth] section")
    return Identity(subject, email)


def may(project: Project, action: str) -> bool:
    """Whether the project's actor may ``action`` (rageval.access.ACTIONS): the pages show a control only then."""
    return project.actor.local or allowed(project, action)


def data_stamp(project: Project) -> tuple:
    """The project database's change stamp: cached reads are keyed on it (one stat(), no connection)."""
    return change_stamp(project.db_path)


def ended_runs(project: Project) -> list[Run]:
    """Runs that finished or failed (announced on every page), newest first."""
    return [r for r in run_store.runs(project.db_path) if r.status in ("finished", "failed")]


def finished_runs(project: Project) -> list[Run]:
    """Finished runs (pipeline and imported answers), newest first."""
    return [r for r in run_store.runs(project.db_path) if r.status == "finished"]


def metric_label(metric: str) -> str:
    """The readable name of a metric (rageval.report.meaning.label); its identifier goes in tooltips."""
    return meaning.label(metric)


def metric_help(metric: str, n_unscored: int | None = None) -> str:
    """What the metric measures, its range, direction and inputs (and how many items it left unscored)."""
    return meaning.info(metric).help(n_unscored)


def higher_is_better(metric: str) -> bool:
    return meaning.info(metric).higher_is_better


def arrow(metric: str) -> str:
    """``↑`` when higher is better, ``↓`` when lower is."""
    return "↑" if higher_is_better(metric) else "↓"


def encode(value: Any) -> str | None:
    """One URL value: bools as 1/0, lists comma-joined, None (nothing chosen) as absent."""
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def decode(text: str, like: Any) -> Any:
    """``text`` as the type of ``like`` (the widget's kind: bool, float, int, list or str)."""
    if isinstance(like, bool):
        return text in ("1", "true", "True", "yes")
    if isinstance(like, float):
        return float(text)
    if isinstance(like, int):
        return int(text)
    if isinstance(like, list):
        return [v for v in text.split(",") if v]
    return text


def view_params(page: str, params: dict[str, Any]) -> dict[str, str]:
    """The query parameters of a view: ``params`` encoded, empty ones left out (for links)."""
    return {k: v for k, v in ((k, encode(v)) for k, v in params.items()) if v is not None} | {"_page": page}
