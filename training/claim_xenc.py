"""The NLI cross-encoder: MiniLM-L6 with a low-rank adapter and a 3-way head, NumPy inference.

Trained by training/train_nli_adapter.py on human-labelled inference and fact-verification pairs
(training/prepare_nli_data.py); the shipped parameters are ``training/models/claim_xenc.npz`` (a
few MB) beside ``claim_xenc.json`` (their sha256, the training configuration and log, the
calibration and the low-confidence threshold).

Input: ``[CLS] premise [SEP] claim [SEP]`` with token types 0 / 1, at most ``max_len``
word-pieces (the longer side truncated first). At load the adapter is merged into the weights
the embedder already uses, ``W' = W + (alpha / r) B A`` for each dense weight of the adapted
layers (their LayerNorms replaced by the trained ones), so one pair costs one MiniLM forward
pass (:func:`rageval.embed.minilm._encode_batch`). With ``h`` the last layer's states,
``z = [h_CLS ; mean_i h_i]`` and::

    logits = W2 tanh(W1 z + b1) + b2            over (entailed, neutral, contradicted)
    p = softmax(logits / T)                     T: the temperature fitted on development rows

The verifier's version (``xenc-<10 hex>``) is the model's hash from :func:`rageval.models.load`
(the parameter file and the JSON beside it).
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from rageval import models
from rageval.embed.minilm import _encode_batch, _MiniLM, bucket_width, build_minilm, minilm_folder, minilm_tokenizer

NAME = "claim_xenc"
FOLDER = Path(__file__).resolve().parent / "models"
PARAMS_PATH = FOLDER / f"{NAME}.npz"
META_PATH = FOLDER / f"{NAME}.json"
LABELS = ("E", "N", "C")
_LINEARS = {
    "q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
    "o": "attention.output.dense", "fi": "intermediate.dense", "fo": "output.dense",
}
_LNS = {"ln1": "attention.output.LayerNorm", "ln2": "output.LayerNorm"}


@dataclass(frozen=True, eq=False)
class CrossEncoder:
    """The merged network, its head and calibration; :meth:`logits` and :meth:`probabilities`."""

    net: _MiniLM
    head: dict[str, np.ndarray]
    temperature: float
    meta: dict
    version: str
    batch_size: int = 32
    token_budget: int = 4096

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """(n, 3) raw logits (entailed, neutral, contradicted) for ``[(premise, claim), ...]``.

        Each pair is padded to :func:`bucket_width` of its own length, so a pair's logits do not
        depend on the other pairs of the call."""
        if not pairs:
            return np.zeros((0, 3), dtype=np.float32)
        encs = self.net.tokenizer.encode_batch([(p, c) for p, c in pairs])
        out = np.zeros((len(encs), 3), dtype=np.float32)
        by_width: dict[int, list[int]] = {}
        for i, e in enumerate(encs):
            by_width.setdefault(bucket_width(len(e.ids)), []).append(i)
        for width, members in sorted(by_width.items()):
            step = max(1, min(self.batch_size, self.token_budget // width))
            for lo in range(0, len(members), step):
                group = members[lo:lo + step]
                ids = np.zeros((len(group), width), dtype=np.int64)
                types = np.zeros((len(group), width), dtype=np.int64)
                mask = np.zeros((len(group), width), dtype=np.float32)
                for row, i in enumerate(group):
                    n = len(encs[i].ids)
                    ids[row, :n], types[row, :n], mask[row, :n] = encs[i].ids, encs[i].type_ids, 1.0
                h = _encode_batch(self.net, ids, mask, types)
                mean = np.einsum("bl,blh->bh", mask, h) / mask.sum(axis=1, keepdims=True)
                z = np.concatenate([h[:, 0], mean], axis=1)
                hidden = np.tanh(z @ self.head["W1"] + self.head["b1"])
                out[group] = hidden @ self.head["W2"] + self.head["b2"]
        return out

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """(n, 3) calibrated probabilities ``softmax(logits / T)``."""
        return softmax(self.logits(pairs) / self.temperature)


def softmax(z: np.ndarray) -> np.ndarray:
    z = np.asarray(z, dtype=np.float64)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def merged_weights(base: dict[str, np.ndarray], params: dict[str, np.ndarray], meta: dict) -> dict[str, np.ndarray]:
    """``base`` (checkpoint tensors) with each adapted dense weight ``W + (alpha / r) B A`` and the
    trained LayerNorms of the adapted layers."""
    w = dict(base)
    scale = np.float32(meta["alpha"] / meta["rank"])
    layers = sorted({int(k.split(".")[1].split("_")[0]) for k in params if k.startswith("lora.")})
    for i in layers:
        for key, name in _LINEARS.items():
            a, b = params[f"lora.{i}_{key}_A"], params[f"lora.{i}_{key}_B"]
            w[f"encoder.layer.{i}.{name}.weight"] = (base[f"encoder.layer.{i}.{name}.weight"]
                                                     + scale * (b @ a)).astype(np.float32)
        for key, name in _LNS.items():
            w[f"encoder.layer.{i}.{name}.weight"] = params[f"ln.{i}_{key}_g"]
            w[f"encoder.layer.{i}.{name}.bias"] = params[f"ln.{i}_{key}_b"]
    return w


def load(params_path: Path | str | None = None, meta_path: Path | str | None = None) -> CrossEncoder:
    """The shipped cross-encoder (or the one at the paths given) through
    :func:`rageval.models.load`; ConfigError names a bad file. Its version is ``xenc-`` and the
    model's hash (:func:`rageval.models.digest` of the ``.npz`` and ``.json`` bytes)."""
    from safetensors.numpy import load_file

    shipped_model = models.load(NAME, arrays_path=params_path or PARAMS_PATH, meta_path=meta_path or META_PATH)
    params, meta = shipped_model.arrays, shipped_model.meta
    folder = minilm_folder()
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    max_len = int(meta["max_len"])
    net = build_minilm(merged_weights(load_file(str(folder / "model.safetensors")), params, meta), config,
                       minilm_tokenizer(folder, max_len), max_len)
    head = {"W1": np.ascontiguousarray(params["head1.weight"].T), "b1": params["head1.bias"],
            "W2": np.ascontiguousarray(params["head2.weight"].T), "b2": params["head2.bias"]}
    temperature = float(meta.get("calibration", {}).get("temperature", 1.0))
    return CrossEncoder(net, head, temperature, meta, "xenc-" + shipped_model.hash)


@functools.lru_cache(maxsize=1)
def shipped() -> CrossEncoder:
    """The shipped cross-encoder, loaded once per process."""
    return load()

