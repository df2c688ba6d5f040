"""Offline scoring on every core: :func:`rageval.metrics.base.evaluate` on shards, in worker processes.

:func:`evaluate_parallel` cuts the samples into consecutive shards, runs the same ``evaluate`` on
each shard in a worker of :mod:`rageval.embed.processes` (one BLAS thread each, the model loaded
once per worker) and joins the scores in input order. Every offline value depends on its own
sample only (the embedder computes a text at a width fixed by its own length,
:func:`rageval.embed.minilm.bucket_width`), so the result equals one process's: statuses,
reasons and verdicts exactly, values within float32 rounding (1e-6; bit for bit where the BLAS
has a row period the packed pass aligns to), since a worker packs a text with other texts and
BLAS's summation order can depend on the product's shape
(:func:`rageval.embed.forward.row_period`; tests/test_parallel.py).

Vectors: before a shard goes out, the parent looks up the vectors of its known texts
(questions, answers, references, contexts and their sentences, :mod:`rageval.embed.sentences`) in
its own embedder's cache (memory, then the project's ``embedding_cache``) and sends them along; a
worker returns the vectors it had to compute, which the parent keeps (memory and project cache).
A context embedded at ingest or by an earlier run is never embedded again, whichever process
needs it. A context sentence that samples of two or more shards read (contexts drawn from a small
pool) is embedded across the workers once before the shards go out (:func:`shared_sentences`),
not once in each worker that meets it.

Metrics that embed nothing (retrieval, lexical) are scored in this process while the workers
score the others. The workers are used only where they can change nothing but the speed: every metric offline (no
online judge, no LLM client), the local MiniLM embedder, a metric that embeds, more than one
worker and at least two samples; anything else runs ``evaluate`` in this process.
"""
from __future__ import annotations

import importlib
import threading
from typing import Any, Callable, Sequence

from rageval.embed import processes
from rageval.embed.sentences import sentence_texts
from rageval.metrics.base import Metric, evaluate, with_default_embedder
from rageval.types import OFFLINE_JUDGE, Resources, Sample, Score


def offline_metrics(metrics: Sequence[Metric]) -> bool:
    """Every metric heuristic on the local embedder, and one at least that embeds."""
    if any(getattr(m, "judge", OFFLINE_JUDGE).online for m in metrics):
        return False
    if any(str(getattr(m, "embedder", "local")) not in ("local", "minilm") for m in metrics):
        return False
    return not all(getattr(m, "kind", "") in ("retrieval", "lexical") for m in metrics)  # else: cheaper here


def warm_up(metrics: Sequence[Metric], *, workers: int | None = None) -> None:
    """Start the workers now (not waiting for them) when ``metrics`` can use them, and import
    in a background thread the modules that the metrics scored here list in ``imports`` (NLTK
    for ROUGE: a second of CPU that would otherwise delay the first batch's scores, done while
    this process retrieves and answers and the workers are idle)."""
    if offline_metrics(metrics):
        processes.warm_up(workers=workers)
        modules = sorted({name for m in metrics for name in getattr(m, "imports", ())})
        if modules:
            threading.Thread(target=_import_all, args=(modules,), name="rageval-imports", daemon=True).start()


def _import_all(modules: Sequence[str]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:  # the metric's own import will say what is missing
            pass


def _known_texts(sample: Sample) -> list[str]:
    texts = [sample.question, sample.answer or "", *sample.references, *sample.contexts]
    return texts + sentence_texts(sample.contexts)


def shared_sentences(samples: Sequence[Sample], bounds: Sequence[tuple[int, int]]) -> list[str]:
    """The context sentences that samples of two or more shards ``bounds`` read, first seen first.

    Each worker would embed such a sentence for its own shard (contexts drawn from a small pool
    repeat across the whole file): embedded across the workers once, before the shards go out,
    they travel with the shards as known vectors instead."""
    seen: dict[str, int] = {}
    shared: dict[str, None] = {}
    for k, (a, b) in enumerate(bounds):
        for text in sentence_texts([c for s in samples[a:b] for c in s.contexts]):
            if seen.setdefault(text, k) != k:
                shared[text] = None
    return list(shared)


def _score_shard(task: tuple) -> tuple[dict[str, list[Score]], dict[str, Any]]:
    samples, metrics, language, known = task
    embedder, store = processes.worker_embedder(known)
    scores = evaluate(samples, metrics, Resources(embedder_factory=lambda: embedder, language=language))
    return scores, store.fresh


def evaluate_parallel(samples: Sequence[Sample], metrics: Sequence[Metric], resources: Resources | None = None,
                      *, workers: int | None = None,
                      progress: Callable[[str, int, int], None] | None = None) -> dict[str, list[Score]]:
    """``evaluate``, split across worker processes (see the module doc).

    ``progress(unit, done, total)``: ``("metrics", metrics done, metrics)`` in this process, or
    ``("rows", rows back from the workers, rows)``.
    """
    resources = with_default_embedder(resources or Resources())
    workers = processes.default_workers() if workers is None else processes.check_workers(workers)
    if (workers < 2 or len(samples) < 2 or resources.llm is not None or resources.judge_role().online
            or not offline_metrics(metrics) or not processes.local_model(resources.embedder)):
        return evaluate(samples, metrics, resources, progress=None if progress is None else
                        lambda _name, done, total: progress("metrics", done, total))
    embedder = resources.embedder
    light = [m for m in metrics if getattr(m, "kind", "") in ("retrieval", "lexical")]
    heavy = [m for m in metrics if m not in light]
    bounds = processes.shards(len(samples), workers)
    if any("contexts" in getattr(m, "needs", ()) for m in heavy):
        processes.embed_parallel(embedder, shared_sentences(samples, bounds), workers=workers)
    tasks = []
    for a, b in bounds:
        part = list(samples[a:b])
        known = embedder.lookup([t for s in part for t in _known_texts(s)])
        tasks.append((part, heavy, resources.language, known))
    results = processes.get_pool(workers).imap(_score_shard, tasks)
    # the metrics that embed nothing are scored here meanwhile (the workers skip their imports)
    out: dict[str, list[Score]] = evaluate(samples, light, resources) if light else {}
    out.update({m.name: [] for m in heavy})
    fresh: dict[str, Any] = {}
    done = 0
    for (part, *_), (scores, vectors) in zip(tasks, results):
        for m in heavy:
            out[m.name].extend(scores[m.name])
        fresh.update(vectors)
        done += len(part)
        if progress is not None:
            progress("rows", done, len(samples))
    embedder.remember(fresh)
    return {m.name: out[m.name] for m in metrics}
