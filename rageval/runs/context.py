"""What a run's executor reads before its first item, loaded once: :class:`RunContext`.

:func:`load_context` reads the run's row, its QA items and the ids of the items already stored
through one store connection (:func:`rageval.store.runs.run_state`), rebuilds the frozen
``RunConfig``, and parses its metrics once, on first use; :func:`rageval.runs.pipeline.execute` and the
batches it runs take everything from the context instead of asking the store again.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from rageval.config import RunConfig
from rageval.errors import ConfigError
from rageval.metrics.base import Metric, parse_metric_list
from rageval.project import Project
from rageval.store import runs as store
from rageval.store.record import Run


@dataclass(frozen=True)
class RunContext:
    """A run as its executor sees it: the stored run, its config, QA items, stored item ids, metrics."""

    run_id: str
    run: Run
    config: RunConfig
    items: tuple[dict[str, Any], ...]
    done_ids: frozenset[str]

    @functools.cached_property
    def metrics(self) -> tuple[Metric, ...]:
        """The config's metrics with its options, parsed on first use (a ConfigError then)."""
        return tuple(parse_metric_list(self.config.metrics, **self.config.metric_options()))

    @property
    def todo(self) -> list[tuple[int, dict[str, Any]]]:
        """``(ordinal, item)`` of the QA items not stored yet, in QA-set order."""
        return [(i, it) for i, it in enumerate(self.items) if it["id"] not in self.done_ids]

    @property
    def finished(self) -> bool:
        """Finished and nothing left to do: such a run is never executed again."""
        return self.run.status == "finished" and not self.todo


def load_context(project: Project, run_id: str) -> RunContext:
    """The context of ``run_id``; ConfigError for an unknown run."""
    state = store.run_state(project.db_path, run_id)
    if state is None:
        raise ConfigError(f"run {run_id!r} does not exist in project {project.slug!r}")
    run, items, done = state
    if not isinstance(run.config, RunConfig):  # a `score`'s ImportConfig
        from rageval.store.owners import resume_hint

        what = f"run {run_id} is a stored `score` (answers scored from {run.config.source}), not a pipeline run"
        if run.status == "finished":
            raise ConfigError(f"{what}; it is finished, nothing to resume")
        raise ConfigError(f"{what}; resume it with: {resume_hint(run_id, run.config)}")
    return RunContext(run_id, run, run.config, tuple(items), frozenset(done))
