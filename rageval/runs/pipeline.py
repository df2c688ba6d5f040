"""Runs: retrieve -> generate -> evaluate for every QA item, stored item by item, resumable.

A run is created with its full ``RunConfig`` (and hash), then executed in batches: the
finished items of a batch (answers, retrieved chunks, metric scores, claims) are stored
together, through one connection and one transaction, as soon as the batch completes. Executing a run
again skips the items already stored, so an
interrupted run resumes without redoing or duplicating work. An item whose generation fails
is stored as failed with its reason and the run goes on.

The executing process records itself as the run's owner and beats a heartbeat
(:mod:`rageval.store.owners`), so a run whose process died is shown ``interrupted``; a lock
timeout mid-run marks it ``interrupted`` too; a finished run is never executed again.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from rageval.config import RunConfig
from rageval.errors import ConfigError, ProjectBusyError, RagevalError, StoreFullError
from rageval.metrics.base import Metric, online_judged, parse_metric_list
from rageval.types import Resources, Sample, Spec
from rageval.project import Project
from rageval.runs.context import RunContext, load_context
from rageval.scoring.parallel import evaluate_parallel, warm_up
from rageval.store import owners
from rageval.scoring.records import score_rows
from rageval.store import runs as store
from rageval.store.items import save_items
from rageval.store.runs import new_run_id

Progress = Callable[[str, int, int], None]  # (phase, done, total)
JUDGED_BATCHES = 4  # a run with online-judged metrics takes batches of 4 x concurrency items
FIRST_BATCH = 2  # an offline run's first batch: its first answers are stored (and counted) in seconds


def batch_bounds(n: int, batch_size: int, *, ramp: bool) -> list[tuple[int, int]]:
    """``[start, end)`` of the batches of ``n`` items: ``batch_size`` each, or with ``ramp``
    sizes ``FIRST_BATCH, 2 x FIRST_BATCH, 4 x ...`` up to ``batch_size``, so the first answers
    are stored after a few seconds instead of after a whole batch of 16.

    >>> batch_bounds(43, 16, ramp=True)
    [(0, 2), (2, 6), (6, 14), (14, 30), (30, 43)]
    >>> batch_bounds(5, 16, ramp=False)
    [(0, 5)]
    """
    bounds, start, size = [], 0, min(FIRST_BATCH, batch_size) if ramp else batch_size
    while start < n:
        bounds.append((start, min(n, start + size)))
        start, size = start + size, min(batch_size, size * 2)
    return bounds


@dataclass(frozen=True)
class RunSummary:
    run_id: str
    status: str
    items: int
    done: int
    failed: int
    seconds: float


def start_run(project: Project, config: RunConfig) -> str:
    """Validate ``config`` against the project and record a pending run; returns its id."""
    from rageval.access import record, require
    from rageval.store import corpus as corpus_store

    require(project, "run")
    if not any(c["name"] == config.corpus for c in corpus_store.corpora(project.db_path)):
        raise ConfigError(f"corpus {config.corpus!r} does not exist in project {project.slug!r}; "
                          "ingest documents first")
    items = store.qa_items(project.db_path, config.qa_set)
    if not items:
        raise ConfigError(f"QA set {config.qa_set!r} does not exist or is empty in project {project.slug!r}")
    parse_metric_list(config.metrics, **config.metric_options())
    run_id = new_run_id()
    store.create_run(project.db_path, run_id, kind="pipeline", corpus=config.corpus, qa_set=config.qa_set,
                     config=config.to_dict(), config_hash=config.config_hash(), n_items=len(items))
    record(project, "run_start", run_id, corpus=config.corpus, qa_set=config.qa_set, metrics=list(config.metrics))
    return run_id


def open_models(project: Project, config: RunConfig, run_id: str | None) -> Any:
    """The run's model session (:mod:`rageval.llm.session`): a client for its ``openai:`` roles
    (generator, judge, embedder) at the run's concurrency and cache setting, calls logged under
    ``run_id``. Each role's server is checked (reachable, model known) before that role's first
    network call, not before the run: an unchanged re-run answered from the cache makes zero calls."""
    from rageval.llm.session import ModelSession

    return ModelSession.open(config.roles(), project=project, run_id=run_id, concurrency=config.concurrency,
                             use_cache=config.use_cache)


def _relevance(item: dict[str, Any], retrieved: Sequence[dict[str, Any]],
               docs: dict[str, str]) -> tuple[tuple[str, ...], dict[str, float], str]:
    """Retrieved ids and relevance at the level the QA item's ids speak of (chunk or document).

    Ids that name documents (by id or file name) make the comparison document-level: the
    retrieved list becomes the distinct documents of the retrieved chunks, in rank order.
    """
    relevant = dict(item.get("relevant") or {})
    chunk_ids = tuple(h["chunk_id"] for h in retrieved)
    if not relevant or any(rid not in docs and rid not in docs.values() for rid in relevant):
        return chunk_ids, relevant, "chunk"
    id_of = {name: doc_id for doc_id, name in docs.items()}
    by_id = {id_of.get(rid, rid): grade for rid, grade in relevant.items()}
    doc_ids: list[str] = []
    for h in retrieved:
        if h["doc_id"] not in doc_ids:
            doc_ids.append(h["doc_id"])
    return tuple(doc_ids), by_id, "document"


def execute(project: Project, run_id: str, *, progress: Progress | None = None,
            should_stop: Callable[[], bool] | None = None, batch_size: int | None = None,
            workers: int | None = None, context: RunContext | None = None) -> RunSummary:
    """Execute (or resume) run ``run_id`` until every item is stored or ``should_stop()``.

    What the run needs from the store before its first item (row, config, QA items, stored
    ids) comes from one :class:`~rageval.runs.context.RunContext` (``context``, or loaded here).

    Items go in batches of ``batch_size``; each batch is stored before the next starts. The
    default is the run's concurrency (reached from batches of 2, 4, 8, ... in an offline run,
    :func:`batch_bounds`, so the first answers are counted early), and four times that when a metric is
    judged by an online
    LLM: all metrics' judge calls of a batch share the one pool, and a batch ends only when its
    slowest chain of dependent calls does, so longer batches leave the pool idle less often.
    Offline metrics (and the chunks the index lacks) are computed in ``workers`` processes
    (default: one per core, :mod:`rageval.scoring.parallel`); the values do not depend on it.
    """
    from rageval.access import require
    from rageval.ingest.corpus import sync_index
    from rageval.generate.generators import ExtractiveGenerator, LLMGenerator

    require(project, "run")
    started = time.monotonic()
    ctx = context or load_context(project, run_id)
    if ctx.run.kind != "pipeline":
        raise ConfigError(f"run {run_id} holds imported answers; there is nothing to execute")
    config, todo = ctx.config, ctx.todo
    if ctx.finished:
        return _summary(project, run_id, started)  # finished: never executed again
    if config.embedder == "local" and len(todo) > 1:  # the workers load the model while the index syncs
        warm_up(list(ctx.metrics), workers=workers)
    _check_not_owned(project, run_id)
    store.set_run_status(project.db_path, run_id, "running")
    owners.claim(project.db_path, run_id)
    heartbeat = owners.Heartbeat(project.db_path, run_id).start()
    session = None
    try:
        session = open_models(project, config, run_id)
        client, embedder = session.llm, session.embedder
        index, chunks, _ = sync_index(project, config.corpus, config.chunking, config.embedder, embedder,
                                      progress=progress, workers=workers)
        docs = {c["doc_id"]: c["doc_name"] for c in chunks}
        generator = (ExtractiveGenerator(embedder) if config.generator == "extractive"
                     else LLMGenerator(client, temperature=config.temperature))
        metrics = list(ctx.metrics)
        resources = session.resources(config.language)
        judged = any(online_judged(m) for m in metrics)
        ramp = batch_size is None and not judged  # a judged run's pool wants full batches
        batch_size = batch_size or config.concurrency * (JUDGED_BATCHES if judged else 1)
        total, finished = len(ctx.items), len(ctx.done_ids)
        if progress:
            progress("items", finished, total)
        for start, end in batch_bounds(len(todo), batch_size, ramp=ramp):
            if should_stop is not None and should_stop():
                store.set_run_status(project.db_path, run_id, "interrupted")
                return _summary(project, run_id, started)
            _run_batch(project, run_id, todo[start:end], config, embedder, index,
                       generator, metrics, resources, docs, workers, report=_batch_report(progress, finished, total))
            finished += end - start
            if progress:
                progress("items", finished, total)
    except KeyboardInterrupt:
        store.set_run_status(project.db_path, run_id, "interrupted")
        raise
    except (ProjectBusyError, StoreFullError) as exc:  # a lock timeout or a full disk: resumable, never 'running'
        hint = f"resume with: python -m rageval run --resume {run_id}"
        _close_quietly(project, run_id, "interrupted", f"{exc}; {hint}")
        raise type(exc)(f"{exc}; then {hint}") from exc
    except RagevalError as exc:
        store.set_run_status(project.db_path, run_id, "failed", str(exc))
        raise
    except Exception as exc:
        store.set_run_status(project.db_path, run_id, "failed", f"{type(exc).__name__}: {exc}")
        raise
    finally:
        heartbeat.stop()
        if session is not None:
            session.close()  # flushes the call log and cache
    store.set_run_status(project.db_path, run_id, "finished")
    return _summary(project, run_id, started)


def _check_not_owned(project: Project, run_id: str) -> None:
    """Refuse to execute a run that another live process is executing right now."""
    info = owners.other_live_owner(project.db_path, run_id)
    if info is None:
        return
    raise ConfigError(f"run {run_id} is being executed by process {info['pid']} on {info['host']}; "
                      "wait for it to finish, or stop that process and resume")


def _close_quietly(project: Project, run_id: str, status: str, error: str) -> None:
    try:
        store.set_run_status(project.db_path, run_id, status, error)
    except Exception:  # still locked: the stale heartbeat will show the run interrupted
        pass


def _batch_report(progress: Progress | None, stored: int, total: int) -> Callable[[str, int, int], None] | None:
    """Progress inside one batch, in the run's terms: ``answering`` (answers of the run so far, of
    ``total``) per answer, then ``scoring`` (the batch's share scored: metrics done of all, or rows back
    from the worker processes of all)."""
    if progress is None:
        return None

    def report(phase: str, done: int, of: int) -> None:
        progress(phase, stored + done if phase == "answering" else done, total if phase == "answering" else of)

    return report


def _run_batch(project: Project, run_id: str, batch: Sequence[tuple[int, dict[str, Any]]],
               config: RunConfig, embedder: Any, index: Any, generator: Any,
               metrics: Sequence[Metric], resources: Resources, docs: dict[str, str],
               workers: int | None = None, *, report: Callable[[str, int, int], None] | None = None) -> None:
    t0 = time.monotonic()
    questions = [it["question"] for _, it in batch]
    hits = index.search(embedder.embed(questions), config.top_k)
    retrieved = [[{"chunk_id": h.chunk_id, "score": h.score, "text": h.text, "doc_id": h.doc_id}
                  for h in row] for row in hits]
    answered = (lambda n: report("answering", n, len(batch))) if report else None
    generations = generator.generate_batch(questions, [[h["text"] for h in row] for row in retrieved],
                                           answered=answered)
    samples, records = [], []
    for (ordinal, item), row, gen in zip(batch, retrieved, generations):
        ids, relevant, level = _relevance(item, row, docs)
        record = {
            "item_id": item["id"], "ordinal": ordinal, "question": item["question"], "answer": gen.text,
            "references": item["references"], "contexts": [h["text"] for h in row],
            "retrieved": [(h["chunk_id"], h["score"]) for h in row], "status": gen.status,
            "reason": gen.reason,
            "details": {**gen.details, "generator": generator.signature(), "relevance_level": level},
        }
        records.append(record)
        if gen.status == "ok":
            samples.append(Sample(
                id=item["id"], question=item["question"], answer=gen.text,
                contexts=tuple(h["text"] for h in row), references=tuple(item["references"]),
                retrieved_ids=ids, relevant_ids=relevant,
                context_ids=tuple(h["chunk_id"] for h in row), domain=item.get("domain"),
            ))
    # scoring progress: metrics done of all (one process) or rows back from the worker processes
    scores = evaluate_parallel(samples, metrics, resources, workers=workers,
                               progress=(lambda _unit, done, of: report("scoring", done, of)) if report else None)
    if resources.llm is not None and resources.llm.preflight_error is not None:
        raise resources.llm.preflight_error  # an unreachable server fails the run, not each item
    per_sample = dict(zip((s.id for s in samples), score_rows(samples, scores, metrics, config.judge, resources.llm)))
    elapsed_ms = (time.monotonic() - t0) * 1000.0 / max(len(batch), 1)
    entries = []
    for record in records:
        record["latency_ms"] = round(elapsed_ms, 1)
        rows, claims = per_sample.get(record["item_id"], ([], []))
        entries.append((record, rows, claims))
    save_items(project.db_path, run_id, entries)  # the whole batch in one transaction


def _summary(project: Project, run_id: str, started: float) -> RunSummary:
    run = store.get_run(project.db_path, run_id)
    return RunSummary(run_id=run_id, status=run.status, items=run.n_items, done=run.done,
                      failed=run.failed, seconds=round(time.monotonic() - started, 2))


def estimate(project: Project, config: RunConfig) -> Any:
    """The LLM layer's upper-bound estimate (calls, tokens, cost) for running ``config``.

    None when every role is offline (no model calls, no cost).
    """
    roles = config.roles()
    if not any(Spec.parse(role, spec).online for role, spec in roles.items()):
        return None
    from rageval.runs.estimate import estimate_run

    items = store.qa_items(project.db_path, config.qa_set)
    samples = [{"question": it["question"], "references": it["references"]} for it in items]
    metrics = parse_metric_list(config.metrics, **config.metric_options())
    return estimate_run(len(items), metrics, roles, samples=samples, top_k=config.top_k)


def estimate_text(est: Any) -> str:
    """``at most 86 model calls, ~61,000 tokens in / 9,000 out, ~$0.04 (upper bound ...)``."""
    cost = "cost unknown" if est.cost_usd is None else f"~${est.cost_usd:,.2f}"
    text = f"at most {est.calls:,} model calls, ~{est.tokens_in:,} tokens in / {est.tokens_out:,} out, {cost}"
    if est.unpriced:
        text += f" (no price for {', '.join(est.unpriced)})"
    return f"{text}; {est.note}"


def run(project: Project, config: RunConfig, *, progress: Progress | None = None) -> RunSummary:
    """Create and execute a run in one go."""
    return execute(project, start_run(project, config), progress=progress)


def check_models(project: Project, config: RunConfig) -> None:
    """Refuse a config whose LLM roles lack a key or a reachable server, before any run exists.

    Raises ConfigError (what to set) or LLMError (server unreachable, model unknown); does
    nothing when every role is offline.
    """
    open_models(project, config, None).close()
