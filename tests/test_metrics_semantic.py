"""Semantic metrics: BERTScore matching by hand with a fake embedder, then a check with real MiniLM."""
from __future__ import annotations

import hashlib
import json
import math

import numpy as np
import pytest

from rageval.embed.minilm import TokenVectors
from rageval.errors import ConfigError
from rageval.metrics.base import evaluate, get_metric
from rageval.types import Resources, Sample
from rageval.metrics.semantic import greedy_match


class FakeEmbedder:
    """Deterministic, context-free: a word's vector comes from its hash (or from ``fixed``).

    Tokens are lowercase whitespace-separated words; ids are stable integers; the sentence
    vector is the L2-normalised mean of the word vectors.
    """

    name = "fake-hash-embedder"

    def __init__(self, dim: int = 16, fixed: dict[str, list[float]] | None = None):
        self.dim = dim
        self.fixed = {k: np.asarray(v, dtype=np.float32) for k, v in (fixed or {}).items()}
        self.calls: list[int] = []

    def _vec(self, word: str) -> np.ndarray:
        if word in self.fixed:
            return self.fixed[word]
        seed = int(hashlib.sha256(word.encode()).hexdigest()[:8], 16)
        return np.random.default_rng(seed).normal(size=self.dim).astype(np.float32)

    def embed_tokens(self, texts):
        self.calls.append(len(texts))
        out = []
        for t in texts:
            words = tuple(t.lower().split())
            vecs = np.stack([self._vec(w) for w in words]) if words else np.zeros((0, self.dim), np.float32)
            ids = tuple(int(hashlib.sha256(w.encode()).hexdigest()[:6], 16) for w in words)
            out.append(TokenVectors(tokens=words, vectors=vecs, ids=ids))
        return out

    def embed(self, texts):
        rows = []
        for tv in self.embed_tokens(texts):
            m = tv.vectors.mean(axis=0) if len(tv.tokens) else np.zeros(self.dim, np.float32)
            rows.append(m / max(float(np.linalg.norm(m)), 1e-12))
        return np.stack(rows).astype(np.float32) if rows else np.zeros((0, self.dim), np.float32)


def fake_resources(embedder=None) -> Resources:
    embedder = embedder or FakeEmbedder()
    return Resources(embedder_factory=lambda: embedder)


HAND = {"a": [1, 0, 0], "b": [0, 1, 0], "c": [0, 0.6, 0.8], "d": [0, 0, 2]}


def _bert(name, samples, embedder, **opts):
    return evaluate(samples, [get_metric(name, embedder=embedder.name, **opts)], fake_resources(embedder))[name]


def test_bertscore_by_hand():
    # candidate "a b", reference "a c d"; cos(b,c) = 0.6, cos(c,d) = 0.8, others 0 or 1
    emb = FakeEmbedder(dim=3, fixed=HAND)
    s = [Sample(id="1", answer="a b", references=("a c d",))]
    p = _bert("bertscore_precision", s, emb)[0]
    r = _bert("bertscore_recall", s, emb)[0]
    f = _bert("bertscore_f1", s, emb)[0]
    assert p.value == pytest.approx((1 + 0.6) / 2)
    assert r.value == pytest.approx((1 + 0.6 + 0.0) / 3)
    assert f.value == pytest.approx(2 * 0.8 * (1.6 / 3) / (0.8 + 1.6 / 3))
    assert f.details["precision"] == pytest.approx(p.value) and f.details["recall"] == pytest.approx(r.value)


def test_bertscore_idf_by_hand(monkeypatch):
    # a fixed table: M = 2 units, df(a) = 2, df(b) = df(c) = df(d) = 1 (ids of FakeEmbedder)
    from rageval.metrics import semantic

    emb = FakeEmbedder(dim=3, fixed=HAND)
    emb.name = semantic.embedder_name("local")  # stands in for the local MiniLM, whose tokenizer the table is over
    ids = {t: emb.embed_tokens([t])[0].ids[0] for t in "abcd"}
    table = {ids["a"]: math.log(3 / 3), **{ids[t]: math.log(3 / 2) for t in "bcd"}, -1: math.log(3)}
    monkeypatch.setattr(semantic, "shipped_idf", lambda: (table, "table-test"))
    s = [Sample(id="1", answer="a b", references=("a c d",)), Sample(id="2", answer="d", references=("a b",))]
    metric = get_metric("bertscore_precision", embedder="local", idf=True)  # the table is for the local tokenizer
    got = evaluate(s, [metric], fake_resources(emb))["bertscore_precision"]
    w_a, w_other = math.log(3 / 3), math.log(3 / 2)
    assert got[0].value == pytest.approx((w_a * 1 + w_other * 0.6) / (w_a + w_other))
    # sample 2: the candidate "d" matches nothing in "a b"
    assert got[1].value == pytest.approx(0.0)
    assert "idf:table-test" in get_metric("bertscore_f1", idf=True).signature()
    alone = evaluate(s[:1], [metric], fake_resources(emb))["bertscore_precision"]  # the batch no longer matters
    assert alone[0].value == got[0].value


def test_shipped_idf_table_is_fixed_small_and_pinned_in_the_signature():
    from rageval.metrics.semantic import IDF_TABLE, shipped_idf

    idf, tag = shipped_idf()
    table = json.loads(IDF_TABLE.read_text())
    m = table["units"]
    w, df = table["df"][0]
    assert idf[w] == pytest.approx(math.log((m + 1) / (df + 1))) and idf[-1] == pytest.approx(math.log(m + 1))
    assert min(c for _, c in table["df"]) >= table["min_df"] and IDF_TABLE.stat().st_size < 400_000
    assert tag.startswith("table-") and tag in get_metric("bertscore_f1", idf=True).signature()
    with pytest.raises(ConfigError, match="embedder=local"):
        get_metric("bertscore_f1", idf=True, embedder="openai").score_batch([], Resources())


def test_bertscore_idf_is_the_same_whatever_the_batch():
    from rageval.embed.cache import make_embedder

    emb = make_embedder("local")
    s = [Sample(id=str(i), answer=a, references=(r,)) for i, (a, r) in enumerate([
        ("The wall fell in 1989.", "The Berlin Wall fell on 9 November 1989."),
        ("Paris is the capital.", "The capital of France is Paris."),
        ("It weighs 2 kg.", "The tent weighs 2.1 kg packed.")])]
    together = [x.value for x in _bert("bertscore_f1", s, emb, idf=True)]
    alone = [_bert("bertscore_f1", [x], emb, idf=True)[0].value for x in s]
    assert together == alone


def test_idf_zero_weights_fall_back_to_uniform():
    v = np.eye(2, dtype=np.float32)
    p, r, f, fallback = greedy_match(v, v, np.zeros(2), np.zeros(2))
    assert (p, r, f, fallback) == (pytest.approx(1.0), pytest.approx(1.0), pytest.approx(1.0), True)


def test_bertscore_best_reference_and_one_embedding_call_per_batch():
    emb = FakeEmbedder(dim=3, fixed=HAND)
    s = [Sample(id="1", answer="a b", references=("d", "a b", "c")), Sample(id="2", answer="c", references=("a b",))]
    got = _bert("bertscore_f1", s, emb)
    assert got[0].value == pytest.approx(1.0) and got[0].details["best_reference"] == 1
    assert emb.calls == [3]  # the 3 distinct texts of the batch, embedded once


def test_answer_similarity_is_max_cosine_and_order_free():
    emb = FakeEmbedder(dim=3, fixed=HAND)
    s = [Sample(id="1", answer="a", references=("b", "c a")), Sample(id="2", answer="b", references=("c",))]
    got = _bert("answer_similarity", s, emb)
    mean = np.array([0.5, 0.3, 0.4])  # mean of c and a; its cosine with "a" beats cos(a, b) = 0
    assert got[0].value == pytest.approx(0.5 / np.linalg.norm(mean)) and got[0].details["best_reference"] == 1
    assert got[1].value == pytest.approx(0.6)
    back = _bert("answer_similarity", s[::-1], emb)
    assert [x.value for x in back[::-1]] == pytest.approx([x.value for x in got])


def test_a_different_embedder_than_the_signature_names_fails_loudly():
    s = [Sample(id="1", answer="a", references=("a",))]
    got = evaluate(s, [get_metric("answer_similarity")], fake_resources())["answer_similarity"]
    assert got[0].status == "failed" and "embedder" in got[0].reason
    assert get_metric("answer_similarity").signature() == "answer_similarity|model:minilm-l6-v2-numpy|refs:max|v1"


def test_bertscore_raises_config_error_when_embedder_has_no_tokens():
    class SentenceOnly(FakeEmbedder):
        name = "openai:text-embedding-3-small"

        def embed_tokens(self, texts):
            raise ConfigError("token embeddings need the local embedder")

    emb = SentenceOnly()
    got = _bert("bertscore_f1", [Sample(id="1", answer="a", references=("a",))], emb)
    assert got[0].status == "failed" and "local embedder" in got[0].reason


@pytest.fixture(scope="module")
def minilm():
    try:
        from rageval.embed.cache import make_embedder

        embedder = make_embedder("local")
        embedder.embed(["warm up"])
    except Exception as exc:  # the weights package is an optional install
        pytest.skip(f"MiniLM not available: {exc}")
    return embedder


def test_real_minilm_bertscore_and_similarity(minilm):
    res = Resources(embedder_factory=lambda: minilm)
    samples = [
        Sample(id="same", answer="The cat sits on the mat.", references=("The cat sits on the mat.",)),
        Sample(id="para", answer="A cat is sitting on the rug.", references=("The cat sits on the mat.",)),
        Sample(id="far", answer="Quarterly revenue rose by twelve percent.", references=("The cat sits on the mat.",)),
    ]
    got = evaluate(samples, [get_metric("bertscore_f1"), get_metric("answer_similarity")], res)
    f1 = [s.value for s in got["bertscore_f1"]]
    sim = [s.value for s in got["answer_similarity"]]
    assert f1[0] == pytest.approx(1.0, abs=1e-5) and sim[0] == pytest.approx(1.0, abs=1e-5)
    assert f1[0] > f1[1] > f1[2] and sim[0] > sim[1] > sim[2]
    assert got["bertscore_f1"][0].details["truncated"] is False
