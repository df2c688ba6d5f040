"""The learned claim verifier's parameters (training/models/claim_verifier.json) and its NumPy
forward pass.

The model (trained by training/train_claim_verifier.py) is a one-hidden-layer MLP over the feature
vector ``x`` of :mod:`rageval.claims.features`::

    z = (x - mean) / std
    p = softmax((W2 tanh(W1 z + b1) + b2) / T)  over (SUPPORTED, CONTRADICTED, NOT_MENTIONED)

``T`` (``temperature`` in the parameter file, 1 when absent) was fitted on human-labelled
development rows by ``python -m validation.validate_nli calibrate-mlp``.

The verifier's *version* is a hash of what changes its verdicts: the parameter file, the
decision rule's constants, the feature names, the cue lists of :mod:`rageval.claims.cues` and the
stop-word and negation lists of :mod:`rageval.text.words`. Every claim metric
puts it into its signature. (A change to the feature code that keeps these must retrain: the
parameter file then changes, and so does the version.)
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rageval import models
from rageval.claims.verdict import DEFAULT_LOW_CONFIDENCE_BELOW
from rageval.errors import ConfigError

NAME = "claim_verifier"
MODEL_PATH = Path(__file__).resolve().parent / "models" / f"{NAME}.json"
#: constants of the decision rule (part of the version): the verdict is the most probable label
DECISION = {"rule": "argmax"}


@dataclass(frozen=True, eq=False)
class ClaimModel:
    labels: tuple[str, ...]
    features: tuple[str, ...]
    mean: np.ndarray
    std: np.ndarray
    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray
    version: str
    temperature: float = 1.0
    low_confidence_below: float = DEFAULT_LOW_CONFIDENCE_BELOW  # chosen with the calibration, in the file

    def probabilities(self, X: np.ndarray) -> np.ndarray:
        """Rows of ``X`` (n, d) -> (n, 3) probabilities in the order of ``labels``."""
        Z = (np.asarray(X, dtype=np.float64) - self.mean) / self.std
        logits = (np.tanh(Z @ self.W1 + self.b1) @ self.W2 + self.b2) / self.temperature
        logits = logits - logits.max(axis=1, keepdims=True)
        P = np.exp(logits)
        return P / P.sum(axis=1, keepdims=True)


def version_of(raw: bytes) -> str:
    """``mlp-<10 hex>``: :func:`rageval.models.digest` of the parameter bytes, decision rule,
    feature names and word lists."""
    from rageval.claims import cues, features
    from rageval.text import words

    return "mlp-" + models.digest(raw, json.dumps(DECISION, sort_keys=True), " ".join(features.NAMES),
                                  cues.cue_lists_text(), words.word_lists_text())


def load(path: Path | str | None = None) -> ClaimModel:
    """The shipped model (or the one at ``path``) through :func:`rageval.models.load`; a
    ConfigError names a missing or bad file."""
    from rageval.claims.features import NAMES

    shipped_model = models.load(NAME, meta_path=path or MODEL_PATH)
    data = shipped_model.meta
    if tuple(data.get("features", ())) != NAMES:
        raise ConfigError(f"{path or MODEL_PATH} was trained on other features than rageval.claims.features.NAMES; "
                          "retrain with python -m training.train_claim_verifier --write")
    arr = {k: np.asarray(data[k], dtype=np.float64) for k in ("mean", "std", "W1", "b1", "W2", "b2")}
    return ClaimModel(tuple(data["labels"]), tuple(data["features"]), version=version_of(shipped_model.raw),
                      temperature=float(data.get("temperature", 1.0)),
                      low_confidence_below=float(data.get("low_confidence_below", DEFAULT_LOW_CONFIDENCE_BELOW)), **arr)


@functools.lru_cache(maxsize=1)
def shipped() -> ClaimModel:
    """The shipped model, loaded once."""
    return load()
