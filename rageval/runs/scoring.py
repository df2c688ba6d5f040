"""Scoring answers produced by any RAG system ("bring your own answers").

Input rows (CSV, JSON, JSONL) carry ``id, question, answer, contexts, reference`` and optional
``retrieved_ids`` and ``relevant_ids``; RAGAS names (``user_input, response,
retrieved_contexts, reference``) work too. Each output row is ``{"id", <metric>: value}``,
with ``null`` and ``"<metric>_status"`` (the reason) where a metric could not score the row.
The scored answers are also stored in the project as an ``import`` run, so they appear in
the app exactly like generated ones.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from rageval.ingest.limits import RowLimits
from rageval.ingest.rows import RowProblem, read_table
from rageval.project import Project
from rageval.scale.imports import save_import_run
from rageval.scale.parallel import warm_up
from rageval.scale.unit import (  # noqa: F401 - clean_sample, output_rows, aligncheck_row: public here too
    ANSWER_COLUMNS, Plan, aligncheck_row, clean_sample, output_rows, samples_from_table, score_samples,
)
from rageval.text.hygiene import display_name
from rageval.types import Resources, Sample


@dataclass(frozen=True)
class ScoreResult:
    run_id: str | None
    rows: list[dict[str, Any]]
    errors: list[RowProblem] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)  # as stored (see rageval.scale.unit)


def parse_answers(source: str, data: bytes, *, limits: RowLimits | None = None) -> tuple[list[Sample], list[RowProblem]]:
    """Rows -> Samples; a row with unusable fields is an error, the others are kept.

    Problems of level ``note`` belong to kept rows (a lone surrogate replaced) or to the file
    (columns not used); the others name a rejected row: a field that is not text where text is
    needed (``contexts: 5``, ``id: ["x"]``, ``reference: NaN``, ``contexts: [Infinity]``), a row over
    ``limits`` (:class:`rageval.ingest.limits.RowLimits`, from the environment by default).
    """
    table = read_table(source, data, limits=limits)
    table.note_unused(ANSWER_COLUMNS)
    numbered, errors = samples_from_table(table)
    return [s for _, s in numbered], errors


def score(samples: Sequence[Sample], metric_names: Sequence[str] | str, *, judge: str = "heuristic",
          language: str = "en", embedder: str = "local", resources: Resources | None = None,
          project: Project | None = None,
          source: str = "answers", details: bool = False,
          metric_options: dict[str, Any] | None = None,
          progress: Callable[[str, int, int], None] | None = None, workers: int | None = None) -> ScoreResult:
    """Score ``samples`` with :func:`rageval.scale.unit.score_samples` (the unit every engine
    runs); with ``project``, also store them as an import run.

    ``metric_options`` go to the metrics that take them (``aligncheck_source="contexts"``);
    ``progress(phase, done, total)`` is called as each metric finishes over all rows (in one
    process), or as each shard of rows comes back from the worker processes. Offline metrics are
    scored in ``workers`` processes (default: one per core; equal values, :mod:`rageval.scale.parallel`).
    """
    plan = Plan.make(metric_names, judge=judge, language=language, embedder=embedder, details=details,
                     options=metric_options)
    metrics = plan.build()
    resources = resources or Resources(language=language)
    if len(samples) > 1 and embedder == "local":
        warm_up(metrics, workers=workers)
    scored = score_samples(samples, metrics, resources, judge=judge, details=details, progress=progress,
                           workers=workers)
    run_id = None
    if project is not None:
        config = {"source": display_name(source).name, "metrics": [m.name for m in metrics], "judge": judge,
                  "language": language, "embedder": embedder,
                  **{k: v for k, v in (metric_options or {}).items() if k != "rubrics"}}
        rubrics = [m.rubric.to_dict() for m in metrics if getattr(m, "rubric", None) is not None]
        if rubrics:  # the rubric text the values were judged with, kept with the run
            config["rubrics"] = rubrics
        run_id = save_import_run(project, scored.records, config)
    return ScoreResult(run_id=run_id, rows=scored.rows, errors=[], records=scored.records)
