"""The project's runs as the CLI's ``runs`` and the Run page list them, and how to resume one."""
from __future__ import annotations

from rageval.project import Project
from rageval.store import owners
from rageval.store import runs as run_store
from rageval.store.record import Run

#: the states of a run that ``run --resume`` / ``score --resume`` continues (pending: made, never executed)
RESUMABLE = ("interrupted", "failed", "pending")


def listed_runs(project: Project) -> list[Run]:
    """Every run, newest first, after the runs whose process is gone are marked ``interrupted``
    (:func:`rageval.store.owners.reap`): a run killed with its process never shows ``running``."""
    owners.reap(project.db_path)
    return run_store.runs(project.db_path)


def resume_command(run: Run) -> str:
    """The command that continues a run that stopped before finishing, else "": ``run --resume ID``
    for a pipeline run, ``score INPUT --resume ID`` for a stored score
    (:func:`rageval.store.owners.resume_hint`)."""
    if run.status in RESUMABLE:
        return owners.resume_hint(run.id, run.config)
    return ""
