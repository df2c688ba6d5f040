"""Scoring answers produced by any RAG system ("bring your own answers").

Input rows (CSV, JSON, JSONL) carry ``id, question, answer, contexts, reference`` and optional
``retrieved_ids`` and ``relevant_ids``; RAGAS names (``user_input, response,
retrieved_contexts, reference``) work too. Each output row is ``{"id", <metric>: value}``,
with ``null`` and ``"<metric>_status"`` (the reason) where a metric could not score the row.
The scored answers are also stored in the project as an ``import`` run, so they appear in
the app exactly like generated ones.
"""
from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator, Sequence

from rageval.config import ImportConfig, RunConfig
from rageval.ingest.limits import RowLimits
from rageval.ingest.rows import RowProblem, read_table
from rageval.project import Project
from rageval.metrics.base import online_judged, shared_embedder
from rageval.runs.pipeline import JUDGED_BATCHES
from rageval.scoring.imports import StoredImport
from rageval.scoring.parallel import warm_up
from rageval.scoring.unit import ANSWER_COLUMNS, Plan, clean_sample, samples_from_table, score_samples
from rageval.text.hygiene import display_name
from rageval.types import Resources, Sample


@dataclass(frozen=True)
class ScoreResult:
    run_id: str | None
    rows: list[dict[str, Any]]
    errors: list[RowProblem] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)  # as stored (see rageval.scoring.unit)
    metrics: list[str] = field(default_factory=list)  # the scored metrics' names, in order


def parse_answers(source: str, data: bytes, *,
                  limits: RowLimits | None = None) -> tuple[list[Sample], list[RowProblem]]:
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
          progress: Callable[[str, int, int], None] | None = None, workers: int | None = None,
          stored_as: dict[str, Any] | None = None, resume: str | None = None) -> ScoreResult:
    """Score ``samples`` with :func:`rageval.scoring.unit.score_samples` (the unit every engine
    runs); with ``project``, also store them as an import run, batch by batch as they are scored.

    ``metric_options`` go to the metrics that take them (``aligncheck_source="contexts"``);
    ``progress(phase, done, total)`` is called as each metric finishes over all rows (in one
    process), or as each shard of rows comes back from the worker processes. Offline metrics are
    scored in ``workers`` processes (default: one per core; equal values, :mod:`rageval.scoring.parallel`).

    A stored score is owned by this process (a heartbeat) and stores :func:`store_batch` rows at a
    time, so a killed ``score`` keeps what it stored and is shown ``interrupted``; with an online
    judge the next batch is already being scored while one finishes (:func:`in_order`), so a kill
    loses at most two batches of calls, all cached. ``stored_as``
    adds keys to the stored config (``input``: the file's path, ``input_sha256``: its digest);
    ``resume`` continues that stopped import run, scoring only the samples whose id it lacks
    (the returned rows are those scored now).
    """
    plan = Plan.make(metric_names, judge=judge, language=language, embedder=embedder, details=details,
                     options=metric_options)
    metrics = plan.build()
    names = [m.name for m in metrics]
    if not samples:  # nothing to score: no run is stored
        return ScoreResult(run_id=None, rows=[], metrics=names)
    resources = resources or Resources(language=language)
    if len(samples) > 1 and embedder == "local":
        warm_up(metrics, workers=workers)
    if project is None:
        scored = score_samples(samples, metrics, resources, judge=judge, details=details, progress=progress,
                               workers=workers)
        return ScoreResult(run_id=None, rows=scored.rows, records=scored.records, metrics=names)
    options = {**{k: v for k, v in (metric_options or {}).items() if k != "rubrics"}, **(stored_as or {})}
    config = ImportConfig(  # with the rubric texts the values were judged with
        source=display_name(source).name, metrics=tuple(names), judge=judge, language=language, embedder=embedder,
        options=tuple(sorted(options.items())),
        rubrics=tuple(m.rubric.to_dict() for m in metrics if getattr(m, "rubric", None) is not None)).to_dict()
    run = (StoredImport.resume(project, resume, config) if resume
           else StoredImport.begin(project, config, len(samples)))
    todo = [(n, s) for n, s in enumerate(samples) if clean_sample(s).id not in run.done_ids]
    size = store_batch(metrics, resources)
    parts = [todo[start:start + size] for start in range(0, len(todo), size)]
    judged = any(online_judged(m) for m in metrics) and resources.llm is not None
    if judged and len(parts) > 1:  # two batches score at once: one shared embedder, one caller at a time
        resources = shared_embedder(resources)

    def score_part(k: int) -> Any:
        report = progress if progress is None or len(parts) == 1 else (
            lambda phase, done, of: progress(f"{phase} (batch {k + 1} of {len(parts)})", done, of))
        return score_samples([s for _, s in parts[k]], metrics, resources, judge=judge, details=details,
                             progress=report, workers=workers)

    rows, records = [], []
    with run.owned():
        for k, scored in in_order(score_part, len(parts), ahead=1 if judged else 0):
            run.save([(n, rec) for (n, _), rec in zip(parts[k], scored.records)])
            rows += scored.rows
            records += scored.records
    return ScoreResult(run_id=run.run_id, rows=rows, records=records, metrics=names)


def in_order(work: Callable[[int], Any], n: int, *, ahead: int = 0) -> Iterator[tuple[int, Any]]:
    """``(k, work(k))`` for k = 0 .. n-1 in order, with up to ``ahead`` later ones running meanwhile
    in threads: a judged batch's last, slowest items then share the client's slots with the next
    batch's first calls instead of leaving slots idle (``ahead=0``: one after another, here)."""
    if ahead < 1 or n < 2:
        for k in range(n):
            yield k, work(k)
        return
    with ThreadPoolExecutor(max_workers=ahead + 1, thread_name_prefix="rageval-batch") as pool:
        running = {k: pool.submit(work, k) for k in range(min(n, ahead + 1))}
        try:
            for k in range(n):
                result = running.pop(k).result()
                if k + ahead + 1 < n:
                    running[k + ahead + 1] = pool.submit(work, k + ahead + 1)
                yield k, result
        finally:
            for future in running.values():
                future.cancel()


def store_batch(metrics: Sequence[Any], resources: Resources) -> int:
    """Rows a stored ``score`` scores and stores at a time: ``OFFLINE_BATCH`` for offline metrics
    (the worker processes stay busy), ``JUDGED_BATCHES`` x the client's concurrency when a metric
    asks an online judge (as a run's batches: a kill loses at most one batch of calls, all cached)."""
    if not any(online_judged(m) for m in metrics) or resources.llm is None:
        return OFFLINE_BATCH
    return JUDGED_BATCHES * max(1, int(getattr(resources.llm, "concurrency", 4) or 4))


OFFLINE_BATCH = 512


def score_file(project: Project, source: str, data: bytes, metric_names: Sequence[str], *, judge: str = "heuristic",
               embedder: str = "local", language: str = "en", rubrics: Sequence[Any] = (),
               metric_options: dict[str, Any] | None = None, limits: RowLimits | None = None, store: bool = True,
               details: bool = False, concurrency: int = RunConfig.concurrency, use_cache: bool = True,
               progress: Callable[[str, int, int], None] | None = None, workers: int | None = None,
               input_path: str | None = None, resume: str | None = None) -> ScoreResult:
    """Read the answers file ``source`` (its bytes ``data``) and score it: the one call behind
    ``rageval score`` and the app's upload.

    A stored score keeps the file's sha256 (and ``input_path``, the file's path, when there is one), so
    ``resume`` (the id of a stopped stored score) continues it only with the same bytes.

    Rows that cannot be read are ``result.errors`` (level ``error``: rejected; ``note``: kept); a file
    with no usable row scores and stores nothing. ``rubrics`` (parsed rubric files) name the
    ``rubric:NAME`` metrics first, then the project's stored rubrics. With ``store``, the scored
    answers are kept in ``project`` as an import run. The model clients the judge and the embedder
    need are opened for this call and closed after it (the cache is flushed, so a second call finds
    every reply).
    """
    from rageval.access import record, require
    from rageval.llm.session import model_session
    from rageval.runs.rubrics import resolve

    if store:
        require(project, "upload")
    samples, errors = parse_answers(source, data, limits=limits)
    if progress is not None:
        progress("reading rows", len(samples), len(samples))
    found = resolve(list(metric_names), {r.name: r for r in rubrics}, project)
    options = {**(metric_options or {}), **({"rubrics": {r.name: r for r in found}} if found else {})}
    roles = {"judge": judge, "embedder": embedder} if samples else {}  # nothing to score: no model
    with model_session(roles, project=project, concurrency=concurrency, use_cache=use_cache) as session:
        result = score(samples, metric_names, judge=judge, language=language, embedder=embedder,
                       resources=session.resources(language), project=project if store else None, source=source,
                       details=details, metric_options=options, progress=progress, workers=workers, resume=resume,
                       stored_as={"input_sha256": hashlib.sha256(data).hexdigest(),
                                  **({"input": input_path} if input_path else {})})
    if store and samples:
        record(project, "score_upload", result.run_id, file=display_name(source).name, rows=len(samples))
    return replace(result, errors=errors)
