"""The default offline claim verifier: a learned model over alignment, number, name and polarity
features (:mod:`rageval.claims.features`, :mod:`rageval.claims.model`), labelled
``judge:heuristic|verifier:<version>`` in signatures.

For each claim the model gives ``p = (p_supported, p_contradicted, p_not_mentioned)``; the
verdict is the most probable label and its ``confidence`` that probability. Evidence and reason:

- SUPPORTED: the sentence the rule verifier quoted as support when it found one, else the best
  sentence (highest coverage + cosine); ``evidence_role = "support"``;
- CONTRADICTED: the sentence the rule verifier found in conflict when it found one (its reason
  names the mismatch), else the best sentence with the checks that fired on it (numbers, units,
  dates, names, negation, antonym, quantifier, temporal order), or, when none fired, a reason
  saying that no single check names the difference; ``evidence_role = "refutes"``;
- NOT_MENTIONED: the closest sentence, shown as ``evidence_role = "closest passage"`` (never as
  support), with the claim's numbers, years and names found in no context when there are any.
"""
from __future__ import annotations

import threading
from typing import Any, Sequence

import numpy as np

from rageval.claims import model as M
from rageval.claims.features import NAMES, FeatureExtractor, PairFeatures
from rageval.metrics.claim_verify import CONTRADICTED, NOT_MENTIONED, SUPPORTED, Verdict

_CHECKS = (
    ("num_rival", "numbers", "the claim gives a number the evidence does not: it gives another"),
    ("unit_rival", "units", "the claim gives the evidence's number with another unit"),
    ("year_rival", "dates", "the claim gives a year the evidence does not: it gives another"),
    ("month_rival", "dates", "the claim gives a month the evidence does not: it gives another"),
    ("name_rival", "entities", "the claim names someone or something the evidence does not: it names another"),
    ("neg_clause_diff", "negation", "the claim and the evidence differ in negation"),
    ("antonym", "antonyms", "the claim uses the opposite of a word of the evidence"),
    ("quantifier", "quantifier", "the claim uses another quantifier or bound than the evidence"),
    ("temporal", "temporal", "the claim states another temporal order than the evidence"),
)
_INDEX = {n: i for i, n in enumerate(NAMES)}


def version() -> str:
    """The shipped verifier's version string (``mlp-<hash>``)."""
    return M.shipped().version


class LearnedVerifier:
    """Verifies claims against contexts; ``embedder`` as for :class:`FeatureExtractor`."""

    def __init__(self, embedder: Any = None, model: M.ClaimModel | None = None):
        self.model = model or M.shipped()
        self.features = FeatureExtractor(embedder)

    def verify(self, claims: Sequence[str], contexts: Sequence[str]) -> list[Verdict]:
        return self.verify_many([(claims, contexts)])[0]

    def verify_many(self, jobs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[Verdict]]:
        """``[(claims, contexts), ...]`` -> verdict lists (one batch of features and one of vectors)."""
        feats = self.features.many(jobs)
        flat = [f for fs in feats for f in fs]
        P = self.model.probabilities(np.stack([f.vector for f in flat])) if flat else np.zeros((0, 3))
        out, k = [], 0
        for (claims, contexts), fs in zip(jobs, feats):
            row = []
            for text, f in zip(claims, fs):
                row.append(self._verdict(text, f, P[k], contexts))
                k += 1
            out.append(row)
        return out

    def _verdict(self, text: str, f: PairFeatures, p: np.ndarray, contexts: Sequence[str]) -> Verdict:
        labels = self.model.labels
        label = labels[int(np.argmax(p))]
        probs = {lab: round(float(v), 4) for lab, v in zip(labels, p)}
        conf = probs[label]
        h = f.heuristic
        cov = float(f.vector[_INDEX["cov_best"]])
        sim = float(f.vector[_INDEX["sim_best"]])
        common = dict(confidence=conf, probabilities=probs, novel=h.novel, coverage=round(cov, 4),
                      similarity=round(sim, 4))
        if not contexts or f.best is None:
            return Verdict(NOT_MENTIONED, reason="no context sentences", evidence_role=None, **common)
        if label == SUPPORTED:
            if h.label == SUPPORTED and h.evidence:
                return Verdict(SUPPORTED, h.evidence, h.context_index, h.span, h.reason, evidence_role="support", **common)
            s = f.best
            return Verdict(SUPPORTED, s.text, s.ctx, (s.start, s.end),
                           f"stated in the context ({round(100 * cov)}% of the claim's content words, "
                           f"cosine {sim:.2f})", evidence_role="support", **common)
        if label == CONTRADICTED:
            if h.label == CONTRADICTED and h.evidence:
                return Verdict(CONTRADICTED, h.evidence, h.context_index, h.span, h.reason, h.mismatch,
                               conflict=h.conflict, evidence_role="refutes", **common)
            fired = [(kind, why) for name, kind, why in _CHECKS if f.vector[_INDEX[name]] > 0]
            s = f.best
            if fired:
                reason, mismatch = "; ".join(why for _, why in fired[:2]), fired[0][0]
            else:
                reason, mismatch = ("the model reads this sentence as contradicting the claim; no single "
                                    "check names the difference"), None
            return Verdict(CONTRADICTED, s.text, s.ctx, (s.start, s.end), reason, mismatch,
                           evidence_role="refutes", **common)
        s = f.closest or f.best
        if h.novel:
            why = "adds " + ", ".join(h.novel) + " which the context does not contain"
        else:
            why = "not stated in the context"
        return Verdict(NOT_MENTIONED, s.text, s.ctx, (s.start, s.end), why + "; the closest passage is shown",
                       evidence_role="closest passage", **common)


_shared: list[Any] = [None, None]
_lock = threading.RLock()


def learned_verify(embedder: Any, jobs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[Verdict]]:
    """:meth:`LearnedVerifier.verify_many` on one verifier per embedder object, one caller at a time."""
    with _lock:
        if _shared[0] is not embedder:
            _shared[0], _shared[1] = embedder, LearnedVerifier(embedder)
        return _shared[1].verify_many(jobs)
