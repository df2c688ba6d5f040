"""Vectors are computed once per text and shared by every metric of a run; chunks embedded at
ingest are never embedded again by a run's metrics (context_relevance reads them back)."""
import numpy as np

from rageval.embed import cache as shared
from rageval.config import RunConfig
from rageval.embed.cache import CachedEmbedder
from rageval.embed.sentences import sentence_texts
from rageval.metrics.base import evaluate, parse_metric_list
from rageval.types import Resources, Sample
from rageval.runs.pipeline import execute, start_run
from rageval.store import corpus as corpus_store
from tests.fakes import FakeEmbedder
from devtools.projects import small_project
from devtools.rounding import assert_vectors_close



def embedded_texts(monkeypatch) -> list[str]:
    """The texts the local MiniLM embeds from now on, in order (it still embeds them)."""
    from rageval.embed.minilm import MiniLMEmbedder

    seen: list[str] = []
    real = MiniLMEmbedder.embed

    def counting(self, texts):
        seen.extend(texts)
        return real(self, texts)

    monkeypatch.setattr(MiniLMEmbedder, "embed", counting)
    return seen

def test_every_text_is_embedded_once_for_all_metrics_of_a_run():
    inner = FakeEmbedder(name="minilm-l6-v2-numpy")  # under the local model's name, as a run uses it
    embedder = CachedEmbedder(inner)
    ctx = ("Mount Etna is 3,357 metres high. It is in Sicily.", "Green tea brews at 70 to 80 degrees.")
    samples = [
        Sample(
            id=f"s{i}",
            question=f"How high is Etna {i}?",
            answer="Mount Etna is 3,357 metres high. It is a volcano.",
            contexts=ctx,
            references=("3,357 metres",),
        )
        for i in range(4)
    ]
    metrics = parse_metric_list("answer_similarity,answer_relevance,context_relevance,faithfulness,"
                                "answer_correctness_offline,groundedness")
    scores = evaluate(samples, metrics, Resources(embedder_factory=lambda: embedder))
    # offline, a claim not copied from a context is UNVERIFIED, so the claim metrics are unscored here
    claim_metrics = {"faithfulness", "groundedness"}
    assert all(s.status == "ok" for name, col in scores.items() if name not in claim_metrics for s in col[:1]), scores
    assert all(col[0].status in ("ok", "unscored") for name, col in scores.items() if name in claim_metrics)
    assert inner.seen, "the metrics embedded nothing"
    assert len(inner.seen) == len(set(inner.seen)), [t for t in set(inner.seen) if inner.seen.count(t) > 1]
    assert ctx[0] not in inner.seen  # context_relevance reads its two sentences' vectors, not the whole context
    assert set(sentence_texts(ctx)) <= set(inner.seen)  # each context sentence embedded once, for every metric


def test_context_relevance_embeds_a_never_seen_context_once_sentence_by_sentence():
    """One pass for both: the metric's chunk vectors are the normalised mean of the sentence
    vectors, which then serve the claim verifier (faithfulness embeds nothing more of the contexts)."""
    from rageval.embed.sentences import context_vectors

    inner = FakeEmbedder(name="minilm-l6-v2-numpy")
    embedder = CachedEmbedder(inner)
    ctx = ("Mount Etna is 3,357 metres high. It is in Sicily.", "Green tea brews at 70 to 80 degrees.")
    sample = Sample(
        id="a", question="How high is Etna?", answer="Mount Etna is 3,357 metres high. It is a volcano.", contexts=ctx
    )
    [relevance] = evaluate([sample], parse_metric_list("context_relevance"),
                           Resources(embedder_factory=lambda: embedder))["context_relevance"]
    assert sorted(inner.seen) == sorted([sample.question, *sentence_texts(ctx)])
    sentences = sentence_texts(ctx[:1])
    mean = np.mean(inner.embed(sentences).astype(np.float64), axis=0)
    assert np.allclose(context_vectors(embedder, ctx[:1])[0], mean / np.linalg.norm(mean), atol=1e-6)
    q = inner.embed([sample.question])[0]
    assert relevance.details["chunks"][0]["cosine"] == round(float(np.dot(q, context_vectors(embedder, ctx[:1])[0])), 6)
    seen = len(inner.seen)
    evaluate([sample], parse_metric_list("faithfulness"), Resources(embedder_factory=lambda: embedder))
    assert not set(inner.seen[seen:]) & set(sentence_texts(ctx))  # the verifier found them cached


def test_context_relevance_from_cached_sentence_vectors_equals_a_fresh_computation(tmp_path):
    """Cached equals fresh: the values read back from the project's embedding cache (a new
    process, empty memory) are those computed from nothing."""
    from rageval.embed.cache import Memory
    from rageval.store.embed_cache import DuckDBEmbeddingCache

    db = tmp_path / "p.duckdb"
    ctx = ("Mount Etna is 3,357 metres high. It is in Sicily.", "Green tea brews at 70 to 80 degrees.", "")
    samples = [Sample(id=f"s{i}", question=q, contexts=ctx) for i, q in enumerate(["How high is Etna?", "Tea?"])]
    metric = parse_metric_list("context_relevance")

    def run(memory):
        embedder = CachedEmbedder(FakeEmbedder(name="minilm-l6-v2-numpy"), store=DuckDBEmbeddingCache(db),
                                  memory=memory)
        out = evaluate(samples, metric, Resources(embedder_factory=lambda: embedder))["context_relevance"]
        return [(s.value, s.details["chunks"]) for s in out], embedder.inner.seen

    fresh, seen_fresh = run(Memory())
    cached, seen_cached = run(Memory())
    assert seen_fresh and seen_cached == [] and cached == fresh


def test_a_run_never_re_embeds_the_chunks_embedded_at_ingest(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    project = small_project(tmp_path)
    chunk_texts = {
        c["text"]
        for c in corpus_store.chunks(project.db_path, "c", RunConfig(corpus="c", qa_set="qa").chunking.signature())
    }
    assert chunk_texts
    # a new process: nothing in memory, the ingest vectors only in the project's cache
    monkeypatch.setattr(shared, "_MEMORIES", {})
    seen = embedded_texts(monkeypatch)
    run_id = start_run(project, RunConfig(corpus="c", qa_set="qa", metrics=("context_relevance",), top_k=3))
    summary = execute(project, run_id)
    assert summary.done == 5
    assert not (set(seen) & chunk_texts), "chunks embedded again"
    assert seen  # the questions were embedded


def test_ingest_caches_every_sentence_of_every_chunk_within_rounding_of_a_fresh_computation(tmp_path, monkeypatch):
    from rageval.embed.sentences import sentence_texts
    from rageval.embed.minilm import MiniLMEmbedder
    from rageval.store.embed_cache import DuckDBEmbeddingCache
    from rageval.util import sha256_hex

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    project = small_project(tmp_path)
    chunks = corpus_store.chunks(project.db_path, "c", RunConfig(corpus="c", qa_set="qa").chunking.signature())
    texts = [c["text"] for c in chunks] + sentence_texts([c["text"] for c in chunks])
    cached = DuckDBEmbeddingCache(project.db_path).get_many(MiniLMEmbedder.name, [sha256_hex(t) for t in texts])
    assert len(cached) == len(set(texts)) > len(chunks)
    fresh = MiniLMEmbedder()
    for text in texts[:: max(1, len(texts) // 12)]:  # each alone: another batch, so within float32 rounding
        assert_vectors_close(cached[sha256_hex(text)], fresh.embed([text])[0], err_msg=text)


def test_a_run_reads_the_claim_verifier_s_context_sentences_from_the_ingest_cache(tmp_path, monkeypatch):
    from rageval.embed.sentences import sentence_texts

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    project = small_project(tmp_path)
    chunks = corpus_store.chunks(project.db_path, "c", RunConfig(corpus="c", qa_set="qa").chunking.signature())
    context_texts = {c["text"] for c in chunks} | set(sentence_texts([c["text"] for c in chunks]))
    monkeypatch.setattr(shared, "_MEMORIES", {})  # a new process: the ingest vectors only in the project's cache
    seen = embedded_texts(monkeypatch)
    run_id = start_run(project, RunConfig(corpus="c", qa_set="qa", metrics=("faithfulness", "context_relevance"),
                                          top_k=3))
    assert execute(project, run_id).done == 5
    assert seen and not (set(seen) & context_texts), sorted(set(seen) & context_texts)[:3]
