"""The learned claim verifiers, kept for study and no part of the product (the product's offline
check never guesses: :mod:`rageval.claims.offline`): measured on claims written by people they are
wrong too often to show as verdicts (the cross-encoder: 0.32 3-way on
152 hand-written claims, where always SUPPORTED scores 0.39; 0.383 on Climate-FEVER, where the
majority class scores 0.673; training/VALIDATION.md). Labelled ``verifier:<version>`` in signatures: the
NLI cross-encoder (:class:`CrossEncoderVerifier`, :mod:`training.claim_xenc`; :data:`SHIPPED`)
and the feature MLP it replaced, kept for comparison (:class:`LearnedVerifier`, a learned model over
alignment, number, name and polarity features: :mod:`rageval.claims.features`, :mod:`training.claim_mlp`).

First, a claim copied from a context (:func:`rageval.claims.containment.contained`) is SUPPORTED
with confidence 1.0 and its whole sentence as evidence; the model runs only on the other claims.
A verdict whose confidence is below its verifier's ``low_below`` (the threshold stored with that
verifier's parameters) is marked ``low_confidence``.

For each claim the model gives ``p = (p_supported, p_contradicted, p_not_mentioned)``; the
verdict is the most probable label and its ``confidence`` that probability. Evidence and reason:

- SUPPORTED: the best sentence (highest coverage + cosine), ``evidence_role = "support"``;
- CONTRADICTED: the best sentence with the checks that fired on it (quantities, units, dates,
  names, negation, opposite words, quantifier, temporal order), or, when none fired, a reason
  saying that no single check names the difference; ``evidence_role = "refutes"``. ``conflict``
  is set only when its own check confirms it: another context has a sentence that states all of
  the claim's quantities and dates (:class:`~rageval.claims.features.PairFeatures` ``agreeing``)
  while the refuting sentence gives rival ones;
- NOT_MENTIONED: the closest sentence, shown as ``evidence_role = "closest passage"`` (never as
  support), with the claim's quantities, dates and names found in no context when there are any
  (:func:`rageval.claims.diagnose.specifics_missing`).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from training import claim_mlp as M
from training import claim_xenc as X
from rageval.claims.containment import contained
from rageval.claims.diagnose import specifics_missing
from rageval.claims.features import NAMES, FeatureExtractor, PairFeatures
from rageval.claims.verdict import CONTRADICTED, DEFAULT_LOW_CONFIDENCE_BELOW, NOT_MENTIONED, SUPPORTED, Verdict

_CHECKS = (
    ("num_rival", "numbers", "the claim gives a number the evidence does not: it gives another"),
    ("unit_rival", "units", "the claim gives the evidence's number with another unit"),
    ("date_rival", "dates", "the claim gives a date or year the evidence does not: it gives another"),
    ("month_rival", "dates", "the claim gives a month the evidence does not: it gives another"),
    ("name_rival", "entities", "the claim names someone or something the evidence does not: it names another"),
    ("neg_clause_diff", "negation", "the claim and the evidence differ in negation"),
    ("antonym", "antonyms", "the claim uses the opposite of a word of the evidence"),
    ("quantifier", "quantifier", "the claim uses another quantifier or bound than the evidence"),
    ("temporal", "temporal", "the claim states another temporal order than the evidence"),
)
_INDEX = {n: i for i, n in enumerate(NAMES)}


#: the offline verifier that ships: "xenc" (the NLI cross-encoder) or "mlp" (the feature MLP)
SHIPPED = "xenc"  # chosen on real-labelled development rows: 0.70 against 0.48 (training/VALIDATION.md)


def version() -> str:
    """The shipped verifier's version string (``xenc-<hash>`` or ``mlp-<hash>``)."""
    return X.shipped().version if SHIPPED == "xenc" else M.shipped().version


def shipped_verifier(embedder: Any = None) -> Any:
    """A verifier of the shipped kind over ``embedder``."""
    return CrossEncoderVerifier(embedder) if SHIPPED == "xenc" else LearnedVerifier(embedder)


def copied_first(jobs: Sequence[tuple[Sequence[str], Sequence[str]]], model_many: Any) -> list[list[Verdict]]:
    """Copied claims SUPPORTED by containment (:func:`rageval.claims.containment.contained`), the
    others by ``model_many`` (called once, with the claims that are not copied)."""
    copied = [[contained(t, contexts) for t in claims] for claims, contexts in jobs]
    rest = [([t for t, v in zip(claims, vs) if v is None], contexts)
            for (claims, contexts), vs in zip(jobs, copied)]
    modelled = iter([v for vs in model_many(rest) for v in vs])
    return [[v if v is not None else next(modelled) for v in vs] for vs in copied]


class LearnedVerifier:
    """Verifies claims against contexts; ``embedder`` as for :class:`FeatureExtractor`."""

    def __init__(self, embedder: Any = None, model: M.ClaimModel | None = None):
        self.model = model or M.shipped()
        self.features = FeatureExtractor(embedder)

    @property
    def low_below(self) -> float:
        """Confidence under which a verdict is marked low confidence: the model file's own threshold."""
        return self.model.low_confidence_below

    def verify(self, claims: Sequence[str], contexts: Sequence[str]) -> list[Verdict]:
        return self.verify_many([(claims, contexts)])[0]

    def verify_many(self, jobs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[Verdict]]:
        """``[(claims, contexts), ...]`` -> verdict lists: copied claims by containment, the others
        by the model (one batch of features and one of vectors)."""
        return copied_first(jobs, self._model_many)

    def _model_many(self, jobs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[Verdict]]:
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
        cov = float(f.vector[_INDEX["cov_best"]])
        sim = float(f.vector[_INDEX["sim_best"]])
        common = dict(confidence=probs[label], probabilities=probs, coverage=round(cov, 4), similarity=round(sim, 4),
                      low_confidence=probs[label] < self.low_below)
        if not contexts or f.best is None:
            return Verdict(NOT_MENTIONED, reason="no context sentences", evidence_role=None, **common)
        s = f.best
        if label == SUPPORTED:
            return Verdict(SUPPORTED, s.text, s.ctx, (s.start, s.end),
                           f"stated in the context ({round(100 * cov)}% of the claim's content words, "
                           f"cosine {sim:.2f})", evidence_role="support", **common)
        if label == CONTRADICTED:
            reason, mismatch, conflict = _contradiction(f, "the model", checks_apply=True)
            return Verdict(CONTRADICTED, s.text, s.ctx, (s.start, s.end), reason, mismatch, conflict=conflict,
                           evidence_role="refutes", **common)
        closest = f.closest or s
        novel = tuple(specifics_missing(text, contexts))
        why = (
            ("adds " + ", ".join(novel) + " which the context does not contain")
            if novel
            else "not stated in the context"
        )
        return Verdict(NOT_MENTIONED, closest.text, closest.ctx, (closest.start, closest.end),
                       why + "; the closest passage is shown", novel=novel, evidence_role="closest passage", **common)



#: candidate sentences per claim that the cross-encoder reads (the highest coverage + cosine)
XENC_CANDIDATES = 3
_XLABEL = {"E": SUPPORTED, "N": NOT_MENTIONED, "C": CONTRADICTED}


def decisive(probs: np.ndarray) -> tuple[int, str]:
    """(candidate index, label) from per-candidate probabilities ``probs`` (k, 3) over (E, N, C):
    the candidate of highest p_E if any candidate's most probable label is E (SUPPORTED); else the
    one of highest p_C if any candidate's is C (CONTRADICTED); else the one of highest p_E
    (NOT_MENTIONED, shown as the closest passage)."""
    top = probs.argmax(axis=1)
    if (top == 0).any():
        return int(probs[:, 0].argmax()), SUPPORTED
    if (top == 2).any():
        return int(probs[:, 2].argmax()), CONTRADICTED
    return int(probs[:, 0].argmax()), NOT_MENTIONED


def evidence_index(logits: np.ndarray, decisive_index: int, label_index: int | None) -> int:
    """The candidate shown as evidence: the highest-ranked one (candidates come in rank order)
    whose own reading (argmax of its logits) is the verdict's label, else the decisive one. Each
    candidate is read with its neighbours, so a lower-ranked row of a table can carry the
    decisive probability while the row the claim is about ranks first; the verdict's
    probabilities stay those of the decisive candidate."""
    if label_index is None:
        return decisive_index
    hits = np.flatnonzero(np.asarray(logits).argmax(axis=1) == label_index)
    return int(hits[0]) if len(hits) else decisive_index


class CrossEncoderVerifier:
    """Verifies claims with the NLI cross-encoder (:mod:`training.claim_xenc`) on the
    ``XENC_CANDIDATES`` sentences that :class:`FeatureExtractor` ranks first (keyword coverage,
    then cosine of the sentence vectors: the same single embedding call), each read with its
    neighbours. For candidate ``j`` the raw logits ``l_j`` give ``q_j = softmax(l_j / T)``; the
    decisive candidate ``d`` is :func:`decisive` of the ``q_j``; the claim's probabilities are
    ``p = softmax(l_d / T + c(x))`` where ``c(x) = ((x - mean) / std) W + b`` is the combiner over
    the feature vector ``x`` (:data:`rageval.claims.features.NAMES`), present only when it helped
    on the development rows (``combiner`` in claim_xenc.json), else 0. Label = argmax p, with
    ``confidence = p[label]`` and ``low_confidence = confidence < low_confidence_below``."""

    def __init__(self, embedder: Any = None, xenc: X.CrossEncoder | None = None):
        self.xenc = xenc or X.shipped()
        self.features = FeatureExtractor(embedder)
        meta = self.xenc.meta
        comb = meta.get("combiner") or None
        self.combiner = None if not comb else {k: np.asarray(comb[k], dtype=np.float64)
                                                for k in ("mean", "std", "W", "b")}

    @property
    def low_below(self) -> float:
        """Confidence under which a verdict is marked low confidence: the parameter file's own
        ``low_confidence_below`` (the smallest confidence at which CONTRADICTED verdicts reached
        precision 0.9 on development rows)."""
        return float(self.xenc.meta.get("low_confidence_below", DEFAULT_LOW_CONFIDENCE_BELOW))

    def verify(self, claims: Sequence[str], contexts: Sequence[str]) -> list[Verdict]:
        return self.verify_many([(claims, contexts)])[0]

    def raw(self, jobs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[tuple[PairFeatures, np.ndarray]]]:
        """Per job and claim: its features and the (k, 3) raw logits of its k candidates."""
        feats = self.features.many(jobs)
        pairs = [(w, claim) for (claims, _), fs in zip(jobs, feats) for claim, f in zip(claims, fs)
                 for w in f.windows[:XENC_CANDIDATES]]
        logits = self.xenc.logits(pairs)
        out, k = [], 0
        for (claims, _), fs in zip(jobs, feats):
            row = []
            for f in fs:
                n = min(len(f.windows), XENC_CANDIDATES)
                row.append((f, logits[k:k + n]))
                k += n
            out.append(row)
        return out

    def claim_logits(self, vector: np.ndarray, logits: np.ndarray) -> tuple[int, np.ndarray]:
        """(decisive candidate, calibrated claim logits ``l_d / T + c(x)``) over (E, N, C) from the
        feature vector ``x`` and the candidates' raw logits."""
        t = self.xenc.temperature
        d, _ = decisive(X.softmax(logits / t))
        z = logits[d].astype(np.float64) / t
        if self.combiner is not None:
            c = self.combiner
            z = z + ((vector - c["mean"]) / c["std"]) @ c["W"] + c["b"]
        return d, z

    def verify_many(self, jobs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[Verdict]]:
        """``[(claims, contexts), ...]`` -> verdict lists: copied claims by containment, the others
        by the cross-encoder."""
        return copied_first(jobs, self._model_many)

    def _model_many(self, jobs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[Verdict]]:
        return [[self._verdict(text, f, lg, contexts) for text, (f, lg) in zip(claims, row)]
                for (claims, contexts), row in zip(jobs, self.raw(jobs))]

    def _verdict(self, text: str, f: PairFeatures, logits: np.ndarray, contexts: Sequence[str]) -> Verdict:
        cov = float(f.vector[_INDEX["cov_best"]])
        sim = float(f.vector[_INDEX["sim_best"]])
        if not contexts or not f.ranked or len(logits) == 0:
            return Verdict(NOT_MENTIONED, reason="no context sentences", evidence_role=None,
                           coverage=round(cov, 4), similarity=round(sim, 4))
        d, z = self.claim_logits(f.vector, logits)
        p = X.softmax(z)
        label = _XLABEL[X.LABELS[int(p.argmax())]]
        probs = {_XLABEL[k]: round(float(v), 4) for k, v in zip(X.LABELS, p)}
        conf = probs[label]
        common = dict(confidence=conf, probabilities=probs, coverage=round(cov, 4), similarity=round(sim, 4),
                      low_confidence=conf < self.low_below)
        s = f.ranked[evidence_index(logits, d, {SUPPORTED: 0, CONTRADICTED: 2}.get(label))]
        span = (s.start, s.end)
        if label == SUPPORTED:
            return Verdict(SUPPORTED, s.text, s.ctx, span,
                           f"the cross-encoder reads this sentence as stating the claim (p = {conf:.2f})",
                           evidence_role="support", **common)
        if label == CONTRADICTED:
            reason, mismatch, conflict = _contradiction(f, "the cross-encoder",
                                                        checks_apply=s is f.best or s is f.closest)
            return Verdict(CONTRADICTED, s.text, s.ctx, span, reason, mismatch, conflict=conflict,
                           evidence_role="refutes", **common)
        novel = tuple(specifics_missing(text, contexts))
        why = (
            ("adds " + ", ".join(novel) + " which the context does not contain")
            if novel
            else "not stated in the context"
        )
        return Verdict(NOT_MENTIONED, s.text, s.ctx, span, why + "; the closest passage is shown", novel=novel,
                       evidence_role="closest passage", **common)

def _contradiction(f, reader: str, *, checks_apply: bool) -> tuple[str, str | None, bool]:
    """Why a claim reads as CONTRADICTED: the checks that fired on the evidence sentence (when
    ``checks_apply``: they were computed on that sentence), else what ``reader`` concluded; and
    whether another context states the claim's figures (a conflict between sources)."""
    fired = [(kind, why) for name, kind, why in _CHECKS if f.vector[_INDEX[name]] > 0] if checks_apply else []
    if fired:
        reason, mismatch = "; ".join(why for _, why in fired[:2]), fired[0][0]
    else:
        reason, mismatch = (f"{reader} reads this sentence as contradicting the claim; no single "
                            "check names the difference"), None
    conflict = f.agreeing is not None and mismatch in ("numbers", "units", "dates")
    if conflict:
        reason += f"; context {f.agreeing.ctx + 1} states the claim's figures"
    return reason, mismatch, conflict
