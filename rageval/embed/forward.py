"""The MiniLM forward pass in NumPy (formulas in :mod:`rageval.embed.minilm`), two ways.

- :func:`encode_batch`: padded token ids ``(B, L)``, every row of the batch through every
  layer (the cross-encoder's pairs, which carry token types).
- :func:`encode_packed`: the texts' word-pieces packed one after another, each text starting on
  a multiple of the BLAS row period (:func:`row_period`: 12 with OpenBLAS 0.3.31's Haswell
  kernel, whose row results depend on the row's place in a block of 12; dummy rows fill the
  gaps, on average (period - 1) / 2 a text). Every row-wise step (embeddings, the q/k/v, output
  and feed-forward matmuls, the LayerNorms, about 95% of the FLOPs) runs on those rows; only
  attention pads, each text to ``width(n)`` (:func:`rageval.embed.minilm.bucket_width`, a
  multiple of 16 fixed by the text's own length), texts of one width together. A padded key
  gets probability exactly 0 and a row's matmul result depends only on its place in the period
  (two rows or more, see :func:`_row_blocks`), so a text's states are bit for bit those of
  :func:`encode_batch` with the text padded to ``width(n)``, whatever else is packed with it,
  wherever :func:`row_period` finds a period. Where it finds none (returns 1) they are equal
  within float32 rounding only (differences under 1e-6 measured, docs/benchmarks.md "Batch
  composition and float32 rounding"), and so are the values of metrics computed in other packs,
  processes or shards; the tests compare those within 1e-6 (devtools/rounding.py). Within a project
  a text is embedded once and read from the cache after that, so a project's values agree.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np


@dataclass(frozen=True, eq=False)
class _MiniLM:
    """The arrays of one MiniLM network (made by :func:`rageval.embed.minilm.build_minilm`)."""

    tokenizer: Any  # tokenizers.Tokenizer, truncating to max_len, no padding
    embeddings: dict[str, np.ndarray]  # word, position, type0, types, ln_g, ln_b
    layers: tuple[dict[str, np.ndarray], ...]  # minilm._LAYER_TENSORS keys plus qkv_w, qkv_b
    heads: int
    eps: float
    max_len: int
    dim: int


class Scratch:
    """Named float32 work arrays, reused from step to step, layer to layer and pack to pack.

    Every step of the pass writes into one of these (``out=``, in place) instead of a fresh
    temporary: a fresh array of a megabyte or more is new pages from the kernel (about 150,000
    page faults and a tenth of the CPU time for 512 sentences before this), and a reused one is
    already mapped and often still in cache. ``get`` returns a view of the first ``prod(shape)``
    elements of the buffer called ``name`` (grown when too small); two arrays alive at once must
    have different names. The values computed are those of plain NumPy expressions: the same
    operations, in the same order, on the same layouts (tests/test_embed_fused.py checks it bit
    for bit against the pass before this one).
    """

    def __init__(self) -> None:
        self._flat: dict[str, np.ndarray] = {}

    def get(self, name: str, *shape: int) -> np.ndarray:
        size = math.prod(shape)
        buf = self._flat.get(name)
        if buf is None or buf.size < size:
            buf = self._flat[name] = np.empty(size, dtype=np.float32)
        return buf[:size].reshape(shape)


def _layer_norm(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float, scratch: Scratch | None = None
) -> np.ndarray:
    """``(x - mean) / sqrt(var + eps) * gamma + beta`` over the last axis of a 2-D float32 ``x``,
    in place (``x`` is returned)."""
    s = scratch or Scratch()
    n, width = x.shape
    mu = s.get("ln_mu", n, 1)
    np.mean(x, axis=-1, keepdims=True, out=mu)
    np.subtract(x, mu, out=x)
    var = s.get("ln_var", n)
    np.einsum("ij,ij->i", x, x, out=var)
    var *= 1.0 / width
    var += eps
    np.sqrt(var, out=var)
    np.divide(1.0, var, out=var)
    x *= var[:, None]
    x *= gamma
    x += beta
    return x


#: tanh-form GELU ``x/2 (1 + tanh(c (p0 + p1 c^2 + p2 c^4)))``, ``c = clip(x, -8, 8)``: the
#: coefficients were fitted (weighted least squares over x in [-12, 12], clip at 5) to the exact
#: GELU, which they match within 5.5e-5 everywhere (the classic ``sqrt(2/pi) (x + 0.044715 x^3)``
#: is off by up to 4.7e-4). The tanh argument rises monotonically up to |x| = 8, where it is
#: 12.9 and float32 tanh is exactly +-1, so gelu(x) = x above 8 and 0 below -8.
_GELU_P = (np.float32(7.97230299e-01), np.float32(3.72196712e-02), np.float32(-3.82395474e-04))
_GELU_CLIP = np.float32(8.0)


def _gelu(x: np.ndarray, scratch: Scratch | None = None) -> np.ndarray:
    """Twice GELU in a tanh form, in place on a float32 array (formula and accuracy at ``_GELU_P``).

    Returns ``2 gelu(x)``: the forward pass multiplies the result by ``ffn_w / 2`` (halving is
    exact in float32), which saves one pass over the largest activation.

    Exact GELU is ``x/2 * (1 + erf(x / sqrt(2)))``; scipy's ``erf`` took 13-50 ns a value here,
    a third of the forward pass, where NumPy's vectorised float32 ``tanh`` and the few
    multiply-adds around it take a few ns. Sentence and token vectors stay within cosine
    0.99999 of sentence-transformers' (tests/test_embed.py, tests/data/minilm_reference.json).
    """
    s = scratch or Scratch()
    c = np.clip(x, -_GELU_CLIP, _GELU_CLIP, out=s.get("gelu_c", *x.shape))
    u = np.multiply(c, c, out=s.get("gelu_u", *x.shape))
    t = np.multiply(u, _GELU_P[2], out=s.get("gelu_t", *x.shape))
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


def _row_blocks(n: int, align: int = 1) -> list[tuple[int, int]]:
    """``[lo, hi)`` blocks of about ``_FFN_ROWS`` rows covering ``n`` rows, none of one row; with
    ``align`` > 1 (``n`` a multiple of it) every bound is a multiple of ``align``.

    A one-row product goes through BLAS's matrix-vector routine, whose sums are ordered
    differently from the matrix-matrix one; with at least two rows per block (and aligned bounds,
    :func:`row_period`) a row's result is the same whatever block it lands in (checked bit for bit
    in tests/test_embed_packed.py where the probe finds a period, within 1e-6 where it does not).
    """
    size = -(-_FFN_ROWS // align) * align
    bounds = list(range(0, n, size)) + [n]
    if len(bounds) > 2 and bounds[-1] - bounds[-2] == 1:
        del bounds[-2]
    return list(zip(bounds, bounds[1:]))


@functools.lru_cache(maxsize=1)
def row_period() -> int:
    """The row alignment under which this process's BLAS gives a row of ``X @ W`` the same bits
    whatever other rows share the call (probed once, on random float32 matrices of the model's
    four weight shapes).

    Some ``sgemm`` kernels compute a row differently by its position in the kernel's block of rows
    (OpenBLAS 0.3.31's Haswell kernel: blocks of 12, and the last, partial block another way), so
    a text's vectors would depend on where the pack put it, by about 1e-6. Starting every text,
    and ending every call, on a multiple of the period makes each text's rows sit in the same
    places whatever the pack. Candidates from 2 up (a one-row call is a matrix-vector product);
    1 when none works (no alignment helps: vectors may then differ by ~1e-6 between packs).
    """
    rng = np.random.default_rng(0)
    rows = 576  # a multiple of every candidate
    shapes = ((384, 1152), (384, 384), (384, 1536), (1536, 384))
    probes = []
    for k, n in shapes:
        x = rng.standard_normal((rows, k), dtype=np.float32)
        w = rng.standard_normal((k, n), dtype=np.float32)
        probes.append((x, w, x @ w))
    for p in (2, 4, 6, 8, 12, 16, 24, 32, 48, 64):
        spans = ((0, p), (p, 3 * p), (3 * p, 8 * p), (2 * p, 9 * p))
        if all(np.array_equal(x[a:b] @ w, full[a:b]) for x, w, full in probes for a, b in spans):
            return p
    return 1


def _feed_forward(x: np.ndarray, layer: dict[str, np.ndarray], out: np.ndarray, s: Scratch, align: int) -> np.ndarray:
    """``out = W2 gelu(W1 x + b1) + b2 + x`` (the residual included), a block of rows at a time."""
    for lo, hi in _row_blocks(x.shape[0], align):
        rows = x[lo:hi]
        inner = np.matmul(rows, layer["in_w"], out=s.get("ffn_inner", hi - lo, layer["in_w"].shape[1]))
        inner += layer["in_b"]
        block = out[lo:hi]
        np.matmul(_gelu(inner, s), layer["ffn_w"], out=block)
        block += layer["ffn_b"]
        block += rows
    return out


def _attention(qkv: np.ndarray, index: np.ndarray, bias: np.ndarray, heads: int, s: Scratch) -> np.ndarray:
    """``concat_h softmax(q_h k_h^T + bias) v_h`` for the rows ``qkv[index]`` (``index``
    ``(B, L)``; ``qkv`` ``(N, 3H)`` with the scale folded into q) and an additive key mask
    ``bias`` ``(B, 1, 1, L)``; returns ``(B * L, H)`` (a scratch view)."""
    b, length = index.shape
    three_h = qkv.shape[1]
    h = three_h // 3
    dh = h // heads
    rows = np.take(qkv, index.reshape(-1), axis=0, mode="clip", out=s.get("att_rows", b * length, three_h))
    split = rows.reshape(b, length, 3, heads, dh)
    q = s.get("att_q", b, heads, length, dh)
    np.copyto(q, split[:, :, 0].transpose(0, 2, 1, 3))
    k_t = s.get("att_kt", b, heads, dh, length)
    np.copyto(k_t, split[:, :, 1].transpose(0, 2, 3, 1))
    v = s.get("att_v", b, heads, length, dh)
    np.copyto(v, split[:, :, 2].transpose(0, 2, 1, 3))
    scores = np.matmul(q, k_t, out=s.get("att_scores", b, heads, length, length))
    scores += bias
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores *= 1.0 / scores.sum(axis=-1, keepdims=True)
    mixed = np.matmul(scores, v, out=s.get("att_mixed", b, heads, length, dh))
    out = s.get("att_out", b, length, heads, dh)
    np.copyto(out, mixed.transpose(0, 2, 1, 3))
    return out.reshape(b * length, h)


def _key_bias(mask: np.ndarray) -> np.ndarray:
    """Additive mask over keys ``(B, 1, 1, L)``: 0 where attended, -1e9 on padding."""
    return ((mask - 1.0) * 1e9).astype(np.float32)[:, None, None, :]


def _layer_tail(model: _MiniLM, layer: dict[str, np.ndarray], x: np.ndarray, ctx: np.ndarray, s: Scratch,
                names: tuple[str, str], align: int) -> np.ndarray:
    """Output projection, residual and LayerNorm, then the feed-forward block and LayerNorm.

    ``x`` lives in the scratch buffer ``names[0]``; the attention block's result goes to
    ``names[1]`` and the layer's output back to ``names[0]`` (``x`` is no longer needed then),
    so a pass of any depth uses two state buffers."""
    n, h = x.shape
    attn = np.matmul(ctx, layer["out_w"], out=s.get(names[1], n, h))
    attn += layer["out_b"]
    attn += x
    mid = _layer_norm(attn, layer["ln1_g"], layer["ln1_b"], model.eps, s)
    out = _feed_forward(mid, layer, s.get(names[0], n, h), s, align)
    return _layer_norm(out, layer["ln2_g"], layer["ln2_b"], model.eps, s)


def encode_batch(model: _MiniLM, ids: np.ndarray, mask: np.ndarray, types: np.ndarray | None = None,
                 align: int | None = None) -> np.ndarray:
    """Last hidden states ``(B, L, H)`` for padded token ids ``(B, L)`` with 0/1 ``mask`` (and
    token types ``(B, L)`` for a sentence pair; all 0 when None). Each sequence's rows start on a
    multiple of ``align`` (default :func:`row_period`; the rows between are dummies, never read)."""
    b, length = ids.shape
    h, emb = model.dim, model.embeddings
    align = row_period() if align is None else align
    stride = -(-length // align) * align
    rows = np.zeros((b, stride), dtype=np.int64)
    rows[:, :length] = ids
    pos = np.arange(stride)
    pos[length:] = 0
    s, names = Scratch(), ("state", "state_mid")
    x = np.take(emb["word"], rows.reshape(-1), axis=0, mode="clip", out=s.get(names[0], b * stride, h))
    x += np.tile(emb["position"][pos], (b, 1))
    if types is None:
        x += emb["type0"]
    else:
        kinds = np.zeros((b, stride), dtype=np.int64)
        kinds[:, :length] = types
        x += emb["types"][kinds.reshape(-1)]
    x = _layer_norm(x, emb["ln_g"], emb["ln_b"], model.eps, s)
    bias = _key_bias(mask)
    index = (np.arange(b)[:, None] * stride + np.arange(length)[None, :])
    for layer in model.layers:
        qkv = np.matmul(x, layer["qkv_w"], out=s.get("qkv", b * stride, 3 * h))
        qkv += layer["qkv_b"]
        ctx = s.get("ctx", b * stride, h)
        ctx.fill(0.0)
        ctx[index.reshape(-1)] = _attention(qkv, index, bias, model.heads, s)
        x = _layer_tail(model, layer, x, ctx, s, names, align)
    return x.reshape(b, stride, h)[:, :length]


@dataclass(frozen=True, eq=False)
class WidthGroup:
    """The texts of one pack padded to one attention width ``w``: ``index`` ``(len(texts), w)``
    gives the packed row of each position (one past the last row on padding), ``mask`` is 1 on
    real positions; ``real`` (flat positions) and ``rows`` (their packed rows) move states in
    and out of the padded layout."""

    texts: list[int]
    index: np.ndarray
    mask: np.ndarray
    real: np.ndarray
    rows: np.ndarray


def pack_layout(lengths: list[int], width: Callable[[int], int], align: int = 1) -> tuple[np.ndarray, list[WidthGroup]]:
    """``offsets`` (text ``i`` is packed rows ``offsets[i] : offsets[i] + lengths[i]``, each start
    a multiple of ``align``; ``offsets[-1]``: the rows in all, a multiple of ``align``; the rows
    between texts are dummies) and one :class:`WidthGroup` per attention width ``width(n)``
    present, widest first."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum([-(-n // align) * align for n in lengths], out=offsets[1:])
    by_width: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        by_width.setdefault(width(n), []).append(i)
    groups = []
    for w, texts in sorted(by_width.items(), reverse=True):
        pos = np.arange(w)
        real = pos[None, :] < np.array([lengths[i] for i in texts])[:, None]
        index = np.where(real, offsets[texts][:, None] + pos[None, :], offsets[-1])
        flat = np.flatnonzero(real)
        groups.append(WidthGroup(texts, index, real.astype(np.float32), flat, index.reshape(-1)[flat]))
    return offsets, groups


def encode_packed(
    model: _MiniLM, id_lists: list[list[int]], width: Callable[[int], int], scratch: Scratch | None = None,
    align: int | None = None,
) -> tuple[np.ndarray, np.ndarray, list[WidthGroup]]:
    """Last hidden states of the packed word-pieces ``(N, H)``, text ``i`` at rows ``offsets[i] :
    offsets[i] + len(id_lists[i])``, plus the layout of :func:`pack_layout` (``width(n)``: the
    padded attention width of a text of ``n`` word-pieces; ``align``: default :func:`row_period`).
    With a ``scratch`` (reused pack after pack) the states are a view of it, valid until its next use."""
    align = row_period() if align is None else align
    lengths = [len(x) for x in id_lists]
    offsets, groups = pack_layout(lengths, width, align)
    emb, h = model.embeddings, model.dim
    s, names = scratch or Scratch(), ("state", "state_mid")
    n_rows = int(offsets[-1])
    ids = np.zeros(n_rows, dtype=np.int64)  # dummy rows between texts: word 0 at position 0
    pos = np.zeros(n_rows, dtype=np.int64)
    for start, text in zip(offsets, id_lists):
        ids[start:start + len(text)] = text
        pos[start:start + len(text)] = np.arange(len(text))
    x = np.take(emb["word"], ids, axis=0, mode="clip", out=s.get(names[0], n_rows, h))
    x += emb["position"][pos]
    x += emb["type0"]
    x = _layer_norm(x, emb["ln_g"], emb["ln_b"], model.eps, s)
    biases = [_key_bias(g.mask) for g in groups]
    for layer in model.layers:
        qkv = s.get("qkv", n_rows + 1, 3 * h)  # the last row: zeros, for padding
        np.matmul(x, layer["qkv_w"], out=qkv[:n_rows])
        qkv[:n_rows] += layer["qkv_b"]
        qkv[n_rows] = 0.0
        ctx = s.get("ctx", n_rows, h)
        if align > 1:
            ctx.fill(0.0)  # the dummy rows
        for g, bias in zip(groups, biases):
            ctx[g.rows] = _attention(qkv, g.index, bias, model.heads, s)[g.real]
        x = _layer_tail(model, layer, x, ctx, s, names, align)
    return x, offsets, groups
