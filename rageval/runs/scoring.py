"""Scoring answers produced by any RAG system ("bring your own answers").

Input rows (CSV, JSON, JSONL) carry ``id, question, answer, contexts, reference`` and optional
``retrieved_ids`` and ``relevant_ids``; RAGAS names (``user_input, response,
retrieved_contexts, reference``) work too. Each output row is ``{"id", <metric>: value}``,
with ``null`` and ``"<metric>_status"`` (the reason) where a metric could not score the row.
The scored answers are also stored in the project as an ``import`` run, so they appear in
the app exactly like generated ones.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from rageval.config import ImportConfig, RunConfig
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
    metrics: list[str] = field(default_factory=list)  # the scored metrics' names, in order


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
    if not samples:  # nothing to score: no run is stored
        return ScoreResult(run_id=None, rows=[], metrics=[m.name for m in metrics])
    resources = resources or Resources(language=language)
    if len(samples) > 1 and embedder == "local":
        warm_up(metrics, workers=workers)
    scored = score_samples(samples, metrics, resources, judge=judge, details=details, progress=progress,
                           workers=workers)
    run_id = None
    if project is not None:
        config = ImportConfig(  # with the rubric texts the values were judged with
            source=display_name(source).name, metrics=tuple(m.name for m in metrics), judge=judge, language=language,
            embedder=embedder, options=tuple(sorted((k, v) for k, v in (metric_options or {}).items() if k != "rubrics")),
            rubrics=tuple(m.rubric.to_dict() for m in metrics if getattr(m, "rubric", None) is not None))
        run_id = save_import_run(project, scored.records, config.to_dict())
    return ScoreResult(run_id=run_id, rows=scored.rows, errors=[], records=scored.records,
                       metrics=[m.name for m in metrics])


def score_file(project: Project, source: str, data: bytes, metric_names: Sequence[str], *, judge: str = "heuristic",
               embedder: str = "local", language: str = "en", rubrics: Sequence[Any] = (),
               metric_options: dict[str, Any] | None = None, limits: RowLimits | None = None, store: bool = True,
               details: bool = False, concurrency: int = RunConfig.concurrency, use_cache: bool = True,
               progress: Callable[[str, int, int], None] | None = None, workers: int | None = None) -> ScoreResult:
    """Read the answers file ``source`` (its bytes ``data``) and score it: the one call behind
    ``rageval score`` and the app's upload.

    Rows that cannot be read are ``result.errors`` (level ``error``: rejected; ``note``: kept); a file
    with no usable row scores and stores nothing. ``rubrics`` (parsed rubric files) name the
    ``rubric:NAME`` metrics first, then the project's stored rubrics. With ``store``, the scored
    answers are kept in ``project`` as an import run. The model clients the judge and the embedder
    need are opened for this call and closed after it (the cache is flushed, so a second call finds
    every reply).
    """
    from rageval.embed.cache import get_embedder
    from rageval.llm.client import make_llm_client
    from rageval.metrics.rubric import resolve

    samples, errors = parse_answers(source, data, limits=limits)
    if progress is not None:
        progress("reading rows", len(samples), len(samples))
    found = resolve(list(metric_names), {r.name: r for r in rubrics}, project)
    options = {**(metric_options or {}), **({"rubrics": {r.name: r for r in found}} if found else {})}
    client = make_llm_client({"judge": judge, "embedder": embedder}, store_path=project.db_path, run_id=None,
                             concurrency=concurrency, use_cache=use_cache) if samples else None
    try:
        resources = Resources(embedder_factory=lambda: get_embedder(project, embedder, client=client), llm=client,
                              language=language)
        result = score(samples, metric_names, judge=judge, language=language, embedder=embedder,
                       resources=resources, project=project if store else None, source=source, details=details,
                       metric_options=options, progress=progress, workers=workers)
    finally:
        if client is not None:
            client.close()
    return replace(result, errors=errors)
