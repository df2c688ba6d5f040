"""The project's runs as the CLI's ``runs`` and the Run page list them, and how to resume one."""
from __future__ import annotations

from typing import Any

from rageval.project import Project
from rageval.store import owners
from rageval.store import runs as run_store

#: the states of a pipeline run that ``run --resume`` continues (pending: made, never executed)
RESUMABLE = ("interrupted", "failed", "pending")


def listed_runs(project: Project) -> list[dict[str, Any]]:
    """Every run, newest first, after the runs whose process is gone are marked ``interrupted``
    (:func:`rageval.store.owners.reap`): a run killed with its process never shows ``running``."""
    owners.reap(project.db_path)
    return run_store.runs(project.db_path)


def resume_command(run: dict[str, Any]) -> str:
    """``python -m rageval run --resume ID`` for a pipeline run that stopped before finishing, else ""."""
    if run["kind"] == "pipeline" and run["status"] in RESUMABLE:
        return f"python -m rageval run --resume {run['id']}"
    return ""
