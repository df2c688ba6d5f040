"""The MiniLM forward pass as it was before the fused one (rageval/embed/forward.py at
d503637), kept verbatim as the reference the fused pass must equal bit for bit
(tests/test_embed_fused.py). Not used by rageval."""
from __future__ import annotations

from typing import Callable

import numpy as np

from rageval.embed.forward import WidthGroup, _MiniLM, pack_layout
from rageval.embed.minilm import MiniLMEmbedder


def _layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """``(x - mean) / sqrt(var + eps) * gamma + beta`` over the last axis, in float32."""
    mu = x.mean(axis=-1, keepdims=True)
    xc = x - mu
    var = np.einsum("ij,ij->i", xc, xc)[:, None] * (1.0 / x.shape[-1])
    xc *= 1.0 / np.sqrt(var + eps)
    xc *= gamma
    xc += beta
    return xc


#: tanh-form GELU ``x/2 (1 + tanh(c (p0 + p1 c^2 + p2 c^4)))``, ``c = clip(x, -8, 8)``: the
#: coefficients were fitted (weighted least squares over x in [-12, 12], clip at 5) to the exact
#: GELU, which they match within 5.5e-5 everywhere (the classic ``sqrt(2/pi) (x + 0.044715 x^3)``
#: is off by up to 4.7e-4). The tanh argument rises monotonically up to |x| = 8, where it is
#: 12.9 and float32 tanh is exactly +-1, so gelu(x) = x above 8 and 0 below -8.
_GELU_P = (np.float32(7.97230299e-01), np.float32(3.72196712e-02), np.float32(-3.82395474e-04))
_GELU_CLIP = np.float32(8.0)


def _gelu(x: np.ndarray) -> np.ndarray:
    """Twice GELU in a tanh form, in place on a float32 array (formula and accuracy at ``_GELU_P``).

    Returns ``2 gelu(x)``: the forward pass multiplies the result by ``ffn_w / 2`` (halving is
    exact in float32), which saves one pass over the largest activation.

    Exact GELU is ``x/2 * (1 + erf(x / sqrt(2)))``; scipy's ``erf`` took 13-50 ns a value here,
    a third of the forward pass, where NumPy's vectorised float32 ``tanh`` and the few
    multiply-adds around it take a few ns. Sentence and token vectors stay within cosine
    0.99999 of sentence-transformers' (tests/test_embed.py, tests/data/minilm_reference.json).
    """
    c = np.clip(x, -_GELU_CLIP, _GELU_CLIP)
    u = np.multiply(c, c)
    t = np.multiply(u, _GELU_P[2])
    t += _GELU_P[1]
    t *= u
    t += _GELU_P[0]
    t *= c
    np.tanh(t, out=t)
    t += 1.0
    x *= t
    return x  # 2 * gelu(x): the 1/2 is folded into the next layer's weights (ffn_w, exact)


#: rows of the (tokens x 1536) feed-forward activation handled at once, so that it stays in cache
_FFN_ROWS = 256


def _row_blocks(n: int) -> list[tuple[int, int]]:
    """``[lo, hi)`` blocks of about ``_FFN_ROWS`` rows covering ``n`` rows, none of one row.

    A one-row product goes through BLAS's matrix-vector routine, whose sums are ordered
    differently from the matrix-matrix one; with at least two rows per block a row's result is
    the same whatever block it lands in (checked bit for bit in tests/test_embed_packed.py).
    """
    bounds = list(range(0, n, _FFN_ROWS)) + [n]
    if len(bounds) > 2 and bounds[-1] - bounds[-2] == 1:
        del bounds[-2]
    return list(zip(bounds, bounds[1:]))


def _feed_forward(x: np.ndarray, layer: dict[str, np.ndarray]) -> np.ndarray:
    """``W2 gelu(W1 x + b1) + b2 + x`` (the residual included), a block of rows at a time."""
    out = np.empty_like(x)
    for lo, hi in _row_blocks(x.shape[0]):
        rows = x[lo:hi]
        inner = rows @ layer["in_w"]
        inner += layer["in_b"]
        block = out[lo:hi]
        np.matmul(_gelu(inner), layer["ffn_w"], out=block)
        block += layer["ffn_b"]
        block += rows
    return out


def _attention(qkv: np.ndarray, bias: np.ndarray, heads: int) -> np.ndarray:
    """``concat_h softmax(q_h k_h^T + bias) v_h`` for ``qkv`` of shape ``(B, L, 3H)`` (the scale
    folded into q) and an additive key mask ``bias`` ``(B, 1, 1, L)``; returns ``(B * L, H)``."""
    b, length, three_h = qkv.shape
    h = three_h // 3
    dh = h // heads
    qkv = np.ascontiguousarray(qkv.reshape(b, length, 3, heads, dh).transpose(2, 0, 3, 1, 4))
    q, k, v = qkv[0], qkv[1], qkv[2]
    scores = q @ np.ascontiguousarray(k.transpose(0, 1, 3, 2))
    scores += bias
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores *= 1.0 / scores.sum(axis=-1, keepdims=True)
    return np.ascontiguousarray((scores @ v).transpose(0, 2, 1, 3)).reshape(b * length, h)


def _key_bias(mask: np.ndarray) -> np.ndarray:
    """Additive mask over keys ``(B, 1, 1, L)``: 0 where attended, -1e9 on padding."""
    return ((mask - 1.0) * 1e9).astype(np.float32)[:, None, None, :]


def _layer_tail(model: _MiniLM, layer: dict[str, np.ndarray], x: np.ndarray, ctx: np.ndarray) -> np.ndarray:
    """Output projection, residual and LayerNorm, then the feed-forward block and LayerNorm."""
    attn = ctx @ layer["out_w"]
    attn += layer["out_b"]
    attn += x
    x = _layer_norm(attn, layer["ln1_g"], layer["ln1_b"], model.eps)
    return _layer_norm(_feed_forward(x, layer), layer["ln2_g"], layer["ln2_b"], model.eps)


def encode_batch(model: _MiniLM, ids: np.ndarray, mask: np.ndarray, types: np.ndarray | None = None) -> np.ndarray:
    """Last hidden states ``(B, L, H)`` for padded token ids ``(B, L)`` with 0/1 ``mask`` (and
    token types ``(B, L)`` for a sentence pair; all 0 when None)."""
    b, length = ids.shape
    h, emb = model.dim, model.embeddings
    x = emb["word"][ids.reshape(-1)]
    x += np.tile(emb["position"][:length], (b, 1))
    x += emb["type0"] if types is None else emb["types"][types.reshape(-1)]
    x = _layer_norm(x, emb["ln_g"], emb["ln_b"], model.eps)
    bias = _key_bias(mask)
    for layer in model.layers:
        qkv = x @ layer["qkv_w"]
        qkv += layer["qkv_b"]
        x = _layer_tail(model, layer, x, _attention(qkv.reshape(b, length, 3 * h), bias, model.heads))
    return x.reshape(b, length, h)


def encode_packed(
    model: _MiniLM, id_lists: list[list[int]], width: Callable[[int], int]
) -> tuple[np.ndarray, np.ndarray, list[WidthGroup]]:
    """Last hidden states of every real word-piece, packed: ``(N, H)`` with ``N = sum n_i``, plus
    the layout of :func:`pack_layout` (``width(n)``: the padded attention width of a text of
    ``n`` word-pieces)."""
    lengths = [len(x) for x in id_lists]
    offsets, groups = pack_layout(lengths, width)
    emb, h = model.embeddings, model.dim
    x = emb["word"][np.concatenate(id_lists)]
    x += emb["position"][np.concatenate([np.arange(n) for n in lengths])]
    x += emb["type0"]
    x = _layer_norm(x, emb["ln_g"], emb["ln_b"], model.eps)
    n_rows = int(offsets[-1])
    biases = [_key_bias(g.mask) for g in groups]
    for layer in model.layers:
        qkv = np.empty((n_rows + 1, 3 * h), dtype=np.float32)  # the last row: zeros, for padding
        np.matmul(x, layer["qkv_w"], out=qkv[:n_rows])
        qkv[:n_rows] += layer["qkv_b"]
        qkv[n_rows] = 0.0
        ctx = np.empty((n_rows, h), dtype=np.float32)
        for g, bias in zip(groups, biases):
            ctx[g.rows] = _attention(qkv[g.index], bias, model.heads)[g.real]
        x = _layer_tail(model, layer, x, ctx)
    return x, offsets, groups


class UnfusedEmbedder(MiniLMEmbedder):
    """The embedder with the pass before the fused one: same packs, same pooling."""

    def _encode(self, model, id_lists, width, scratch=None):
        return encode_packed(model, id_lists, width)
