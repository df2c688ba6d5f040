"""Offline scoring on every core: worker processes, one BLAS thread each, over the same ``evaluate``.

A :class:`ScoringPool` holds ``workers`` processes (started with ``spawn``). Each starts with
``OPENBLAS_NUM_THREADS = OMP_NUM_THREADS = MKL_NUM_THREADS = 1`` in its environment before NumPy
loads (two BLAS threads in one process were 1.9-2.5x slower than one on this workload, and one
process per core keeps every core busy instead), and loads the MiniLM weights once, when it
starts. :func:`evaluate_parallel` cuts the samples into consecutive shards, runs
:func:`rageval.metrics.base.evaluate` on each shard in a worker, and joins the scores in input
order. Every offline value depends on its own sample only (the embedder computes a text at a
width fixed by its own length, :func:`rageval.minilm.bucket_width`), so the result equals one
process's value for value (tests/test_score_workers.py).

Vectors: the workers never open the project database. Before a shard goes out, the parent looks
up the vectors of its known texts (questions, answers, references, contexts and their sentences,
:mod:`rageval.context_vectors`) in its own embedder's cache (memory, then the project's
``embedding_cache``) and sends them along; a worker returns the vectors it had to compute, which
the parent keeps (memory and project cache). So a context embedded at ingest or by an earlier run
is never embedded again, whichever process needs it.

The pool is used only where it can change nothing but the speed: every metric offline (no
online judge, no LLM client), the local MiniLM embedder, more than one worker and at least two
samples; anything else runs :func:`evaluate` in this process. ``workers`` defaults to
``RAGEVAL_WORKERS`` if set, else the number of cores this process may run on.
"""
from __future__ import annotations

import atexit
import os
import threading
from typing import Any, Sequence

from rageval.errors import ConfigError
from rageval.metrics.base import Metric, Resources, Sample, Score, evaluate

BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
#: shards per worker: smaller shards even out the load; each costs one round trip
SHARDS_PER_WORKER = 4


def one_blas_thread() -> None:
    """Ask for one BLAS thread in this process and its children (a variable already set is kept);
    effective only before NumPy is first imported."""
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")


def default_workers() -> int:
    """``RAGEVAL_WORKERS`` when set, else the cores this process may run on."""
    raw = os.environ.get("RAGEVAL_WORKERS", "").strip()
    if raw:
        return check_workers(raw)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def check_workers(value: Any) -> int:
    """``value`` as a worker count >= 1, or ConfigError naming it."""
    try:
        n = int(value)
    except (TypeError, ValueError):
        n = 0
    if n < 1:
        raise ConfigError(f"workers={value!r} must be a whole number >= 1 (RAGEVAL_WORKERS or --workers)")
    return n


# ------------------------------------------------------------------ the worker side

_WORKER: dict[str, Any] = {}


class _ShardStore:
    """The worker's view of the parent's cache: the vectors sent with the shard; new ones are kept
    in ``fresh`` for the parent."""

    def __init__(self) -> None:
        self.known: dict[str, Any] = {}
        self.fresh: dict[str, Any] = {}

    def get_many(self, model: str, keys: list[str]) -> dict[str, Any]:
        return {k: self.known[k] for k in keys if k in self.known}

    def put_many(self, model: str, items: dict[str, Any]) -> None:
        self.fresh.update(items)


def _start_worker() -> None:
    """Pool initializer: the embedder of this worker, with the model's weights loaded now."""
    from rageval.embed import CachedEmbedder, MiniLMEmbedder

    store = _ShardStore()
    embedder = CachedEmbedder(MiniLMEmbedder(), store=store)
    embedder.embed(["load the weights once, when the worker starts"])
    store.fresh.clear()
    _WORKER.update(store=store, embedder=embedder)


def _score_shard(task: tuple) -> tuple[dict[str, list[Score]], dict[str, Any]]:
    samples, metrics, language, known = task
    store: _ShardStore = _WORKER["store"]
    store.known = known
    store.fresh = {}
    embedder = _WORKER["embedder"]
    scores = evaluate(samples, metrics, Resources(embedder_factory=lambda: embedder, language=language))
    return scores, store.fresh


def _embed_shard(texts: list[str]) -> Any:
    return _WORKER["embedder"].inner.embed(texts)


# ------------------------------------------------------------------ the parent side


class ScoringPool:
    """``workers`` spawned processes, one BLAS thread each, each with the model loaded once."""

    def __init__(self, workers: int):
        import multiprocessing

        self.workers = check_workers(workers)
        saved = {k: os.environ.get(k) for k in BLAS_THREAD_VARIABLES}
        os.environ.update({k: "1" for k in BLAS_THREAD_VARIABLES})  # inherited by the children only
        try:
            self._pool = multiprocessing.get_context("spawn").Pool(self.workers, initializer=_start_worker)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def map(self, fn: Any, tasks: list) -> list:
        return self._pool.map(fn, tasks, chunksize=1)

    def close(self) -> None:
        self._pool.terminate()
        self._pool.join()


_POOLS: dict[int, ScoringPool] = {}
_LOCK = threading.Lock()


def get_pool(workers: int) -> ScoringPool:
    """The process-wide pool of ``workers`` processes (started at the first call, then shared by
    every run and ``score`` of this process, the app's background runs included)."""
    with _LOCK:
        if workers not in _POOLS:
            _POOLS[workers] = ScoringPool(workers)
        return _POOLS[workers]


def warm_up(metrics: Sequence[Metric] | None = None, *, workers: int | None = None) -> None:
    """Start the pool now, without waiting for it, when the work ahead can use it (``metrics``
    all offline on the local embedder; None: embedding only): the workers import and load the
    model while this process reads, chunks and retrieves."""
    workers = default_workers() if workers is None else check_workers(workers)
    if workers >= 2 and (metrics is None or _offline_metrics(metrics)):
        get_pool(workers)


def close_pools() -> None:
    with _LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for pool in pools:
        pool.close()


atexit.register(close_pools)


def _offline_metrics(metrics: Sequence[Metric]) -> bool:
    """Every metric heuristic on the local embedder, and one at least that embeds."""
    if any(str(getattr(m, "judge", "heuristic")) != "heuristic" for m in metrics):
        return False
    if any(str(getattr(m, "embedder", "local")) not in ("local", "minilm") for m in metrics):
        return False
    return not all(getattr(m, "kind", "") in ("retrieval", "lexical") for m in metrics)  # else: cheaper here


def _offline(metrics: Sequence[Metric], resources: Resources) -> bool:
    from rageval.embed import CachedEmbedder, MiniLMEmbedder

    if resources.llm is not None or resources.judge is not None or not _offline_metrics(metrics):
        return False
    embedder = resources.embedder
    return isinstance(embedder, CachedEmbedder) and type(embedder.inner) is MiniLMEmbedder


def _known_texts(sample: Sample) -> list[str]:
    from rageval.context_vectors import sentence_texts

    texts = [sample.question, sample.answer or "", *sample.references, *sample.contexts]
    return texts + sentence_texts(sample.contexts)


def shards(n: int, workers: int) -> list[tuple[int, int]]:
    """``[start, end)`` ranges cutting ``n`` items into about ``SHARDS_PER_WORKER x workers``
    consecutive shards of sizes differing by at most one."""
    parts = max(1, min(n, workers * SHARDS_PER_WORKER))
    bounds = [n * i // parts for i in range(parts + 1)]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


def evaluate_parallel(samples: Sequence[Sample], metrics: Sequence[Metric], resources: Resources | None = None,
                      *, workers: int | None = None) -> dict[str, list[Score]]:
    """:func:`rageval.metrics.base.evaluate`, split across worker processes (see module doc)."""
    resources = resources or Resources()
    workers = default_workers() if workers is None else check_workers(workers)
    if workers < 2 or len(samples) < 2 or not _offline(metrics, resources):
        return evaluate(samples, metrics, resources)
    embedder = resources.embedder
    pool = get_pool(workers)
    tasks = []
    for a, b in shards(len(samples), workers):
        part = list(samples[a:b])
        known = embedder.lookup([t for s in part for t in _known_texts(s)])
        tasks.append((part, list(metrics), resources.language, known))
    results = pool.map(_score_shard, tasks)
    out: dict[str, list[Score]] = {m.name: [] for m in metrics}
    fresh: dict[str, Any] = {}
    for scores, vectors in results:
        for name in out:
            out[name].extend(scores[name])
        fresh.update(vectors)
    embedder.remember(fresh)
    return out


def embed_parallel(embedder: Any, texts: Sequence[str], *, workers: int | None = None) -> Any:
    """``embedder.embed(texts)``, the texts it lacks computed across the worker processes (a local
    MiniLM embedder with a cache; anything else embeds here)."""
    from rageval.embed import CachedEmbedder, MiniLMEmbedder

    workers = default_workers() if workers is None else check_workers(workers)
    if workers < 2 or not isinstance(embedder, CachedEmbedder) or type(embedder.inner) is not MiniLMEmbedder:
        return embedder.embed(texts)
    missing = embedder.missing(texts)
    if len(missing) >= 2 * workers:
        pool = get_pool(workers)
        parts = [missing[a:b] for a, b in shards(len(missing), workers)]
        from rageval.util import sha256_hex

        fresh = {}
        for part, rows in zip(parts, pool.map(_embed_shard, parts)):
            fresh.update({sha256_hex(t): row for t, row in zip(part, rows)})
        embedder.remember(fresh)
    return embedder.embed(texts)
