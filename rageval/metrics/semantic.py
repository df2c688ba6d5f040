"""Embedding-based answer metrics: BERTScore P/R/F1 and answer-reference similarity.

Both use ``resources.embedder`` (offline: all-MiniLM-L6-v2 run by rageval's NumPy forward pass).
The option ``embedder`` ("local" or "openai:MODEL") names the embedder the signature pins;
scoring with a different one raises ConfigError instead of storing a mislabelled value.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from rageval import models
from rageval.errors import ConfigError
from rageval.types import Resources, Sample, Score
from rageval.metrics.lexical import references_of

LOCAL_EMBEDDER = "minilm-l6-v2-numpy"  # rageval.embed.MiniLMEmbedder.name
MAX_WORDPIECES = 254  # MiniLM reads 256 word-pieces, [CLS] and [SEP] included


def embedder_name(spec: str) -> str:
    """The ``Embedder.name`` that an ``embedder`` option stands for."""
    return LOCAL_EMBEDDER if spec.strip().lower() in ("local", "minilm") else spec.strip()


def checked_embedder(spec: str, resources: Resources, metric: str) -> Any:
    """``resources.embedder``, after checking it is the one the metric's signature names."""
    embedder = resources.embedder
    want = embedder_name(spec)
    if getattr(embedder, "name", None) != want:
        raise ConfigError(
            f"{metric} was configured with embedder={spec!r} ({want}) but the run's embedder is "
            f"{getattr(embedder, 'name', '?')!r}; pass embedder= the same spec to the metric"
        )
    return embedder


def reference_cosines(embedder: Any, samples: Sequence[Sample]) -> list[list[float]]:
    """Per sample, cos(e(answer), e(reference)) for each reference in order (one embedding call
    for the distinct texts of the batch; vectors are L2-normalised, so the cosine is a dot product)."""
    texts = list(dict.fromkeys(t for s in samples for t in [s.answer or "", *references_of(s)]))
    vectors = embedder.embed(texts) if texts else np.zeros((0, 1), dtype=np.float32)
    row = {t: i for i, t in enumerate(texts)}
    return [[float(np.dot(vectors[row[s.answer or ""]], vectors[row[r]])) for r in references_of(s)]
            for s in samples]


def sentence_similarities(embedder: Any, samples: Sequence[Sample]) -> list[tuple[float, int]]:
    """Per sample: (max over references of cos(answer, reference), index of that reference)."""
    out = []
    for sims in reference_cosines(embedder, samples):
        best = int(np.argmax(sims))
        out.append((min(max(sims[best], -1.0), 1.0), best))
    return out


@dataclass(frozen=True)
class _Semantic:
    embedder: str = "local"

    needs = frozenset({"answer", "reference"})
    higher_is_better = True
    kind = "semantic"
    languages = ("en",)  # MiniLM was trained on English text
    needs_llm = False


@dataclass(frozen=True)
class AnswerSimilarity(_Semantic):
    """Cosine similarity of the answer's and a reference's sentence embeddings, max over references.

    Formula: sim = max_r cos(e(answer), e(r)), e = mean-pooled L2-normalised sentence vector
    """

    name = "answer_similarity"
    range = (-1.0, 1.0)

    def signature(self) -> str:
        return f"answer_similarity|model:{embedder_name(self.embedder)}|refs:max|v1"

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        embedder = checked_embedder(self.embedder, resources, self.name)
        return [Score.ok(v, {"best_reference": i}) for v, i in sentence_similarities(embedder, samples)]


# ---------------------------------------------------------------------------------- BERTScore
IDF_TABLE = models.path("wordpiece_idf")


@functools.lru_cache(maxsize=1)
def shipped_idf() -> tuple[dict[int, float], str]:
    """(idf per MiniLM word-piece id, ``table-<the table's hash>``, :func:`rageval.models.load`) from the fixed table
    built by training/build_idf.py: ``idf(w) = log((M + 1) / (df(w) + 1))`` over its M text units; a word-piece not in
    the table (df < 2) gets ``log(M + 1)`` (key -1, see :func:`idf_of`). The same table for
    every batch, shard and resume, so a value never depends on which items are scored with it."""
    shipped = models.load("wordpiece_idf")
    table = shipped.meta
    m = int(table["units"])
    idf = {int(w): math.log((m + 1) / (c + 1)) for w, c in table["df"]}
    return idf | {-1: math.log(m + 1)}, "table-" + shipped.hash


def idf_of(idf: dict[int, float] | None, ids: Sequence[int]) -> np.ndarray:
    if idf is None:
        return np.ones(len(ids), dtype=np.float64)
    return np.array([idf.get(w, idf[-1]) for w in ids], dtype=np.float64)


def greedy_match(
    cand: np.ndarray, ref: np.ndarray, w_cand: np.ndarray, w_ref: np.ndarray
) -> tuple[float, float, float, bool]:
    """BERTScore (P, R, F, idf_fallback) of two matrices of token vectors (rows need not be unit length).

    P = sum_i w_i max_j cos(c_i, r_j) / sum_i w_i; R likewise over reference tokens;
    F = 2PR / (P + R) when P > 0 and R > 0, else 0. A side whose weights sum to 0 (every
    token has idf 0) falls back to uniform weights, flagged by the fourth value.
    """
    c = cand / np.maximum(np.linalg.norm(cand, axis=1, keepdims=True), 1e-12)
    r = ref / np.maximum(np.linalg.norm(ref, axis=1, keepdims=True), 1e-12)
    sim = c.astype(np.float64) @ r.astype(np.float64).T
    fallback = False
    if w_cand.sum() <= 0:
        w_cand, fallback = np.ones_like(w_cand), True
    if w_ref.sum() <= 0:
        w_ref, fallback = np.ones_like(w_ref), True
    p = float(np.dot(w_cand, sim.max(axis=1)) / w_cand.sum())
    rc = float(np.dot(w_ref, sim.max(axis=0)) / w_ref.sum())
    f = 2 * p * rc / (p + rc) if p > 0 and rc > 0 else 0.0
    return p, rc, f, fallback


@dataclass(frozen=True)
class _BertScore(_Semantic):
    idf: bool = False

    range = (-1.0, 1.0)
    part = ""

    @property
    def name(self) -> str:
        return f"bertscore_{self.part}"

    def signature(self) -> str:
        idf = shipped_idf()[1] if self.idf else "no"
        return f"{self.name}|model:{embedder_name(self.embedder)}|layer:last|idf:{idf}|rescale:no|refs:max-f|v1"

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        if self.idf and self.embedder != "local":
            raise ConfigError(f"{self.name} with idf=true needs embedder=local: its idf table is over the "
                              f"local MiniLM tokenizer's word-pieces (got embedder={self.embedder})")
        embedder = checked_embedder(self.embedder, resources, self.name)
        texts = list(dict.fromkeys(t for s in samples for t in [s.answer or "", *references_of(s)]))
        tokens = dict(zip(texts, embedder.embed_tokens(texts)))
        idf = shipped_idf()[0] if self.idf else None
        out = []
        for s in samples:
            cand = tokens[s.answer or ""]
            if len(cand.ids) == 0:
                out.append(Score.unscored("no_answer_tokens"))
                continue
            best: tuple | None = None
            for i, ref_text in enumerate(references_of(s)):
                ref = tokens[ref_text]
                if len(ref.ids) == 0:
                    continue
                got = greedy_match(cand.vectors, ref.vectors, idf_of(idf, cand.ids), idf_of(idf, ref.ids))
                if best is None or got[2] > best[2]:
                    best = (*got, i)
            if best is None:
                out.append(Score.unscored("no_reference_tokens"))
                continue
            p, r, f, fallback, i = best
            truncated = len(cand.ids) >= MAX_WORDPIECES or len(tokens[references_of(s)[i]].ids) >= MAX_WORDPIECES
            details = {"precision": p, "recall": r, "f1": f, "best_reference": i, "truncated": truncated}
            if fallback:
                details["idf_fallback"] = "uniform"
            out.append(Score.ok({"precision": p, "recall": r, "f1": f}[self.part], details))
        return out


_BERT_DOC = """BERTScore {part} by greedy cosine matching of MiniLM's contextual word-piece vectors.

    Each answer token is matched to its most similar reference token (precision) and each
    reference token to its most similar answer token (recall); with ``idf=True`` tokens are
    weighted by a fixed idf table (:func:`shipped_idf`; never by the batch). No baseline rescaling: no
    baseline file exists for MiniLM, so values are raw cosine means (unrelated pairs do not score 0:
    about 0.11 F1 on NQ301; see docs/metrics.md). Texts beyond 254 word-pieces are truncated (``details["truncated"]``).
    With several references the one with the highest F1 is used for P, R and F1.

    Formula: {formula}
    """


@dataclass(frozen=True)
class BertScorePrecision(_BertScore):
    __doc__ = _BERT_DOC.format(part="precision", formula="P = sum_i w(c_i) max_j cos(c_i, r_j) / sum_i w(c_i)")
    part = "precision"


@dataclass(frozen=True)
class BertScoreRecall(_BertScore):
    __doc__ = _BERT_DOC.format(part="recall", formula="R = sum_j w(r_j) max_i cos(c_i, r_j) / sum_j w(r_j)")
    part = "recall"


@dataclass(frozen=True)
class BertScoreF1(_BertScore):
    __doc__ = _BERT_DOC.format(part="F1", formula="F1 = 2PR / (P + R) (0 when P <= 0 or R <= 0), P and R as above")
    part = "f1"
