"""Scoring in worker processes equals scoring in one process: every status, reason, verdict and
evidence text exactly, every value and vector within float32 rounding (1e-6; a worker embeds a
text with other texts than one process does, and BLAS sums a row in an order that depends on the
product's shape on some CPUs, see devtools/rounding.py); the workers run one BLAS thread each and
hand back the vectors they computed."""
import os

import pytest

from rageval.config import DEFAULT_METRICS
from rageval.embed.cache import CachedEmbedder
from rageval.embed.minilm import MiniLMEmbedder
from rageval.errors import ConfigError
from rageval.metrics.base import evaluate, parse_metric_list
from rageval.types import Resources
from rageval.embed.processes import WorkerPool, check_workers, default_workers, embed_parallel, shards
from rageval.scoring.parallel import evaluate_parallel, shared_sentences
from rageval.util import sha256_hex
from devtools.rounding import assert_same_within_rounding, assert_vectors_close
from devtools.samples import parallel_samples





def test_worker_processes_give_the_values_of_one_process():
    samples = parallel_samples()
    metrics = parse_metric_list(list(DEFAULT_METRICS) + ["groundedness", "answer_relevance"])
    one = evaluate(samples, metrics, Resources(embedder_factory=lambda: CachedEmbedder(MiniLMEmbedder())))
    shared = CachedEmbedder(MiniLMEmbedder())
    many = evaluate_parallel(samples, metrics, Resources(embedder_factory=lambda: shared), workers=2)
    assert list(many) == list(one)
    for name in one:
        for a, b in zip(one[name], many[name]):
            assert (a.status, a.reason) == (b.status, b.reason), name
            assert_same_within_rounding((b.value, b.details), (a.value, a.details), where=name)
    # the vectors the workers computed came back to the parent's embedder, equal to its own
    for text in (samples[0].question, "Mount Etna is 3,357 metres high."):  # a question, a context sentence
        got = shared.lookup([text])[sha256_hex(text)]
        assert_vectors_close(got, MiniLMEmbedder().embed([text])[0])


def test_only_the_context_sentences_of_two_or_more_shards_are_embedded_ahead():
    # PARALLEL_CONTEXTS[0] in samples 0, 3 and 4; the "Passage i" sentences in one sample each
    samples = parallel_samples(6)
    got = shared_sentences(samples, [(0, 3), (3, 6)])
    assert "Mount Etna is 3,357 metres high." in got and "It lies in Sicily." in got
    assert not [t for t in got if t.startswith("Passage")]
    assert shared_sentences(samples, [(0, 6)]) == []  # one shard: nothing is read twice


def test_a_worker_runs_one_blas_thread_and_loads_the_model_when_it_starts(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    before = _worker_env(None)
    pool = WorkerPool(2)
    try:
        env = pool.map(_worker_env, [0, 1])
        loaded = pool.map(_weights_loaded, [0, 1])
    finally:
        pool.close()
    assert env == [{"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}] * 2
    assert loaded == [True, True]
    assert _worker_env(None) == before  # this process's environment is left as it was


def _worker_env(_):
    return {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}


def _weights_loaded(_):
    from rageval.embed.minilm import _load_minilm

    return _load_minilm.cache_info().currsize == 1


def test_embedding_across_workers_equals_embedding_here():
    texts = [f"Sentence number {i} about the harbour and its {i % 7} bridges." for i in range(12)]
    parent = CachedEmbedder(MiniLMEmbedder())
    got = embed_parallel(parent, texts, workers=2)
    assert_vectors_close(got, MiniLMEmbedder().embed(texts))


def test_shards_cover_every_item_once_in_order():
    for n in (1, 2, 7, 8, 9, 100):
        parts = shards(n, 2)
        assert [i for a, b in parts for i in range(a, b)] == list(range(n))
        assert max(b - a for a, b in parts) - min(b - a for a, b in parts) <= 1


def test_worker_counts_are_checked(monkeypatch):
    monkeypatch.setenv("RAGEVAL_WORKERS", "3")
    assert default_workers() == 3
    assert check_workers("2") == 2
    with pytest.raises(ConfigError, match="workers='0'"):
        check_workers("0")
    monkeypatch.setenv("RAGEVAL_WORKERS", "many")
    with pytest.raises(ConfigError, match="RAGEVAL_WORKERS"):
        default_workers()
