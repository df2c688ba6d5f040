"""Worker processes on every core, one BLAS thread each, the model loaded once per worker.

A :class:`WorkerPool` holds ``workers`` processes (started with ``spawn``). Each starts with
``OPENBLAS_NUM_THREADS = OMP_NUM_THREADS = MKL_NUM_THREADS = 1`` in its environment, so NumPy
loads with one BLAS thread (two BLAS threads in one process were 1.9-2.5x slower than one on
this workload, and one process per core keeps every core busy instead), and loads the MiniLM
weights once, when it starts. Each worker has one :class:`~rageval.embed.CachedEmbedder` whose
"store" is :class:`ShardStore`: the vectors the parent sent with the current task, plus a record
of the vectors the worker had to compute, which go back to the parent. The workers never open
the project database.

:func:`embed_parallel` embeds texts across the workers (ingest); :mod:`rageval.scoring.parallel`
scores metrics in the same workers. The pool is process-wide (:func:`get_pool`), started at the
first use (or by :func:`warm_up`, which does not wait) and shared by every run, ``score`` and
ingest of the process, the app's background runs included. ``workers`` defaults to
``RAGEVAL_WORKERS`` if set, else the number of cores this process may run on.
"""
from __future__ import annotations

import atexit
import os
import threading
from typing import Any, Callable, Sequence

from rageval import settings
from rageval.errors import ConfigError

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
    workers = settings.value("RAGEVAL_WORKERS")
    if workers is not None:
        return check_workers(workers)
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


def shards(n: int, workers: int) -> list[tuple[int, int]]:
    """``[start, end)`` ranges cutting ``n`` items into about ``SHARDS_PER_WORKER x workers``
    consecutive shards of sizes differing by at most one."""
    parts = max(1, min(n, workers * SHARDS_PER_WORKER))
    bounds = [n * i // parts for i in range(parts + 1)]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


# ------------------------------------------------------------------ the worker side

_WORKER: dict[str, Any] = {}


class ShardStore:
    """A worker's view of the parent's cache: the vectors sent with the task (``known``); the
    ones computed here are kept in ``fresh`` for the parent."""

    def __init__(self) -> None:
        self.known: dict[str, Any] = {}
        self.fresh: dict[str, Any] = {}

    def get_many(self, model: str, keys: list[str]) -> dict[str, Any]:
        return {k: self.known[k] for k in keys if k in self.known}

    def put_many(self, model: str, items: dict[str, Any]) -> None:
        self.fresh.update(items)


def _start_worker() -> None:
    """Pool initializer: this worker's embedder, with the model's weights loaded now."""
    from rageval.embed.cache import CachedEmbedder
    from rageval.embed.minilm import MiniLMEmbedder

    store = ShardStore()
    embedder = CachedEmbedder(MiniLMEmbedder(), store=store)
    embedder.embed(["load the weights once, when the worker starts"])
    store.fresh.clear()
    _WORKER.update(store=store, embedder=embedder)


def worker_embedder(known: dict[str, Any]) -> tuple[Any, ShardStore]:
    """In a worker: its embedder, told the vectors ``known`` for this task (and nothing fresh yet)."""
    store: ShardStore = _WORKER["store"]
    store.known, store.fresh = known, {}
    return _WORKER["embedder"], store


def _embed_shard(texts: list[str]) -> Any:
    return _WORKER["embedder"].inner.embed(texts)


# ------------------------------------------------------------------ the parent side


class WorkerPool:
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

    def map(self, fn: Callable[[Any], Any], tasks: Sequence[Any]) -> list:
        """``[fn(t) for t in tasks]`` in the workers, in order (``fn`` importable by name)."""
        return self._pool.map(fn, list(tasks), chunksize=1)

    def imap(self, fn: Callable[[Any], Any], tasks: Sequence[Any]) -> Any:
        """Like :meth:`map`, yielding each result (in order) as soon as it and those before it are done."""
        return self._pool.imap(fn, list(tasks), chunksize=1)

    def close(self) -> None:
        self._pool.terminate()
        self._pool.join()


_POOLS: dict[int, WorkerPool] = {}
_LOCK = threading.Lock()


def get_pool(workers: int) -> WorkerPool:
    """The process-wide pool of ``workers`` processes (started at the first call, then shared)."""
    with _LOCK:
        if workers not in _POOLS:
            _POOLS[workers] = WorkerPool(workers)
        return _POOLS[workers]


def close_pools() -> None:
    with _LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for pool in pools:
        pool.close()


atexit.register(close_pools)


def local_model(embedder: Any) -> bool:
    """Whether ``embedder`` is the cached local MiniLM (the one the workers run)."""
    from rageval.embed.cache import CachedEmbedder
    from rageval.embed.minilm import MiniLMEmbedder

    return isinstance(embedder, CachedEmbedder) and type(embedder.inner) is MiniLMEmbedder


def embed_parallel(embedder: Any, texts: Sequence[str], *, workers: int | None = None) -> Any:
    """``embedder.embed(texts)``, the texts it lacks computed across the worker processes (the
    local MiniLM with its cache; any other embedder embeds here). Equal to embedding here within
    float32 rounding (1e-6), bit for bit where the BLAS has a row period the pass aligns to: a
    worker packs a text with other texts, and BLAS's summation order can depend on the product's
    shape (:func:`rageval.embed.forward.row_period`)."""
    from rageval.util import sha256_hex

    workers = default_workers() if workers is None else check_workers(workers)
    if workers < 2 or not local_model(embedder):
        return embedder.embed(texts)
    missing = embedder.missing(texts)
    if len(missing) >= 2 * workers:
        parts = [missing[a:b] for a, b in shards(len(missing), workers)]
        fresh = {}
        for part, rows in zip(parts, get_pool(workers).map(_embed_shard, parts)):
            fresh.update({sha256_hex(t): row for t, row in zip(part, rows)})
        embedder.remember(fresh)
    return embedder.embed(texts)


def warm_up(*, workers: int | None = None) -> None:
    """Start the pool now, without waiting for it: the workers import and load the model while
    this process reads, chunks and retrieves."""
    workers = default_workers() if workers is None else check_workers(workers)
    if workers >= 2:
        get_pool(workers)
