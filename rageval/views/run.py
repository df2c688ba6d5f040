"""The Run page's read model: what a run can start from, and the run list.

The run list first marks ``interrupted`` every ``running`` run whose owner process is gone
(:func:`rageval.store.owners.reap`), so a run killed with its process never shows ``running``
forever; each stopped pipeline run carries the command that resumes it.
"""
from __future__ import annotations

from typing import Any

from rageval.errors import ConfigError
from rageval.llm.roles import missing_settings
from rageval.project import Project
from rageval.report.leaderboard import judge_label, run_name
from rageval.store import corpus as corpus_store
from rageval.store import owners
from rageval.store import runs as run_store
from rageval.types import Spec


def sources(project: Project) -> tuple[list[str], list[str]]:
    """(corpora with documents, QA sets with items): what a new run can be started from."""
    corpora = [c["name"] for c in corpus_store.corpora(project.db_path) if c["documents"]]
    sets = [s["name"] for s in run_store.qa_sets(project.db_path) if s["items"]]
    return corpora, sets


def preset_spec(role: str, text: Any) -> Spec | None:
    """The spec a saved preset holds for ``role``, None when it holds none (or an unusable one)."""
    try:
        return Spec.parse(role, str(text)) if text else None
    except ConfigError:
        return None


def missing_llm_settings(specs: dict[str, str]) -> list[str]:
    """What to set for each online role (``{role: spec}``) that has neither a key nor a server."""
    return missing_settings(specs)


def runs(project: Project) -> list[dict[str, Any]]:
    """Every run, newest first, after dead runs are marked ``interrupted``."""
    owners.reap(project.db_path)
    return run_store.runs(project.db_path)


def get_run(project: Project, run_id: str) -> dict[str, Any] | None:
    return run_store.get_run(project.db_path, run_id)


def resume_command(run: dict[str, Any]) -> str:
    """``python -m rageval run --resume ID`` for a stopped pipeline run, else ""."""
    if run["kind"] == "pipeline" and run["status"] in ("interrupted", "failed"):
        return f"python -m rageval run --resume {run['id']}"
    return ""


def resumable(run: dict[str, Any], *, active: bool) -> bool:
    """A pipeline run that stopped before finishing and is not being executed right now."""
    return run["kind"] == "pipeline" and run["status"] != "finished" and not active


def run_rows(project: Project, listed: list[dict[str, Any]] | None = None, *,
             live: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The run list as table rows with a readable name; empty cells are "", never the text "None".

    ``listed`` is :func:`runs` when the caller already has it (dead runs are reaped there).
    ``live`` maps the ids of runs executing in this process to their progress
    (:class:`rageval.runs.worker.Progress`): their status is what the progress bar says
    (``answering 3/10``), so the table and the bar never disagree.
    """
    rows = []
    live = live or {}
    for r in runs(project) if listed is None else listed:
        cfg = r["config"]
        rows.append({
            "name": run_name(r), "status": live[r["id"]].short() if r["id"] in live else r["status"], "done": f"{r['done']}/{r['n_items']}", "failed": r["failed"],
            "judge": judge_label(r), "generator": str(cfg.get("generator") or ("imported" if r["kind"] != "pipeline" else "")),
            "started": r["started"] or r["created"], "finished": r["finished"] or "",
            "error": r["error"] or "", "resume": resume_command(r), "run": r["id"],
        })
    return rows
