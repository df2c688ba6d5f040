"""Claim-level faithfulness: every answer split into atomic claims, each labelled SUPPORTED,
CONTRADICTED or NOT_MENTIONED against the retrieved contexts, with quoted evidence.

Pipeline (per answer, computed once per judge and shared by the three metrics below):
extraction (:mod:`claim_extract` offline, or the judge), verification (offline: the learned
verifier of :mod:`rageval.claims.verifier`, whose version is in the signature; or the judge,
several claims per call), diagnosis (:mod:`claim_diagnose`).

``Score.details`` of all three metrics holds ``claims``: a list of ``{"text", "verdict",
"evidence", "evidence_chunk", "span", "reason", "cause"}`` (plus ``mismatch`` and
``conflict``) where ``evidence_chunk`` is ``Sample.context_ids[i]`` (or ``"context[i]"``),
``span`` the ``[start, end]`` character offsets of the evidence inside that context string (or
null), and ``cause`` the hallucination diagnosis of an unsupported claim (or null). Offline
claims also carry ``confidence`` (the model's probability of the verdict), ``probabilities``
and ``evidence_role``: ``support``, ``refutes`` or ``closest passage`` (a NOT_MENTIONED claim's
evidence is only the closest passage, never support).
"""
from __future__ import annotations

import math

import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from rageval.claims.verifier import learned_verify, version as verifier_version
from rageval.metrics import claim_judge
from rageval.metrics.base import Resources, Sample, Score, register
from rageval.metrics.claim_diagnose import diagnose
from rageval.metrics.claim_extract import extract_claims
from rageval.metrics.claim_verify import CONTRADICTED, LABELS, NOT_MENTIONED, SUPPORTED, HeuristicVerifier, Verdict
from rageval.metrics.judge_io import judge_client, signature

PROMPTS = ("claim_extract", "claim_verify")
_MEMO_SIZE = 4096


@dataclass(frozen=True)
class Analysis:
    """One answer's claims, or why there are none: status ``ok`` / ``unscored`` / ``failed``."""

    status: str
    reason: str | None
    claims: tuple[dict, ...]
    diagnosis: Mapping[str, Any]
    meta: Mapping[str, Any]

    def count(self, label: str) -> int:
        return sum(c["verdict"] == label for c in self.claims)

    def details(self) -> dict[str, Any]:
        counts = {label: self.count(label) for label in LABELS}
        return {"claims": [dict(c) for c in self.claims], "counts": counts, "n_claims": len(self.claims),
                "diagnosis": dict(self.diagnosis), **self.meta}


def chunk_id(sample: Sample, i: int | None) -> str | None:
    """The id of context ``i`` (``Sample.context_ids[i]``, else ``"context[i]"``)."""
    if i is None:
        return None
    return sample.context_ids[i] if i < len(sample.context_ids) else f"context[{i}]"


def claim_record(sample: Sample, text: str, v: Verdict) -> dict[str, Any]:
    """The stored shape of one verified claim (``cause`` is filled by the diagnosis)."""
    return {
        "text": text,
        "verdict": v.label,
        "evidence": v.evidence,
        "evidence_chunk": chunk_id(sample, v.context_index),
        "span": list(v.span) if v.span else None,
        "reason": v.reason,
        "cause": None,
        "mismatch": v.mismatch,
        "conflict": v.conflict,
        "confidence": v.confidence,
        "probabilities": v.probabilities,
        "evidence_role": v.evidence_role,
    }


def _finish(sample: Sample, records: list[dict], meta: dict) -> Analysis:
    diag = diagnose(sample, records)
    for rec, cause in zip(records, diag["claim_causes"]):
        rec["cause"] = cause
    summary = {k: v for k, v in diag.items() if k != "claim_causes"}
    return Analysis("ok", None, tuple(records), summary, meta)


_memo: OrderedDict[tuple, Analysis] = OrderedDict()
_verifier: list[Any] = [None, None]  # [embedder, HeuristicVerifier] reused while the embedder is
_lock = threading.RLock()  # runs may score from several worker threads; the caches are shared


def heuristic_verify(embedder: Any, jobs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[Verdict]]:
    """:meth:`HeuristicVerifier.verify_many` on one verifier per embedder object (so sentence
    splits and vectors are reused), one caller at a time."""
    with _lock:
        if _verifier[0] is not embedder:
            _verifier[0], _verifier[1] = embedder, HeuristicVerifier(embedder)
        return _verifier[1].verify_many(jobs)


def _key(sample: Sample, judge: str, embedder_name: str) -> tuple:
    return (judge, embedder_name, sample.question, sample.answer, sample.contexts, sample.context_ids,
            sample.references)


def analyse(samples: Sequence[Sample], resources: Resources, judge: str, metric: str) -> list[Analysis]:
    """Claims, verdicts and diagnosis for each sample (memoised; failures are not memoised)."""
    if judge == "heuristic":
        embedder = resources.embedder
        name = getattr(embedder, "name", type(embedder).__name__)
    else:
        llm = judge_client(metric, judge, resources)
        name = ""
    out: list[Analysis | None] = []
    todo: list[int] = []
    with _lock:
        for i, s in enumerate(samples):
            hit = _memo.get(_key(s, judge, name))
            out.append(hit)
            if hit is None:
                todo.append(i)
    if todo:
        fresh = (_heuristic([samples[i] for i in todo], embedder, name) if judge == "heuristic"
                 else _judged([samples[i] for i in todo], llm, judge))
        with _lock:
            for i, analysis in zip(todo, fresh):
                out[i] = analysis
                if analysis.status == "ok":
                    _memo[_key(samples[i], judge, name)] = analysis
                    if len(_memo) > _MEMO_SIZE:
                        _memo.popitem(last=False)
    return [a for a in out if a is not None]


def _heuristic(samples: Sequence[Sample], embedder: Any, name: str) -> list[Analysis]:
    claims = [extract_claims(s.answer or "") for s in samples]
    verdicts = learned_verify(embedder, [(c, s.contexts) for c, s in zip(claims, samples)])
    meta = {"judge": "heuristic", "method": "learned", "verifier": verifier_version(), "embedder": name}
    return [_finish(s, [claim_record(s, t, v) for t, v in zip(c, vs)], meta)
            for s, c, vs in zip(samples, claims, verdicts)]


def _judged(samples: Sequence[Sample], llm: Any, judge: str) -> list[Analysis]:
    """Each answer's claims extracted, then verified, in ONE pool task per answer: the dependent
    calls pipeline across answers (answer 2 is extracted while answer 1 is verified) instead of
    waiting for every extraction before the first verification."""
    meta = {"judge": judge, "method": "llm"}

    def one(s: Sample) -> Analysis:
        claims = claim_judge.extract_one(llm, s.question, s.answer or "")
        if isinstance(claims, claim_judge.Failure):
            return Analysis(claims.status, claims.reason, (), {}, {**meta, "stage": "extract", "raw": claims.raw})
        verdicts = claim_judge.verify(llm, [(claims, s.contexts)])[0] if claims else []
        if isinstance(verdicts, claim_judge.Failure):
            return Analysis(verdicts.status, verdicts.reason, tuple({"text": t} for t in claims), {},
                            {**meta, "stage": "verify", "raw": verdicts.raw})
        return _finish(s, [claim_record(s, t, v) for t, v in zip(claims, verdicts)], dict(meta))

    return llm.map(one, list(samples))


@dataclass(frozen=True)
class _ClaimShare:
    """Shared behaviour: share of claims with one verdict among all claims of the answer."""

    label = SUPPORTED
    needs = frozenset({"answer", "contexts"})
    range = (0.0, 1.0)
    kind = "claims"
    languages = ("en",)
    needs_llm = True
    judge: str = "heuristic"
    embedder: str = "local"  # the sentence embedder of the offline path (pinned in the signature)

    llm_family = "claims"  # the three shares use one claim analysis (memoised): its calls count once

    def signature(self) -> str:
        if self.judge == "heuristic":  # the offline verifier's version pins weights, word lists, rules
            return signature(self.name, self.judge, PROMPTS, f"emb:{self.embedder}", f"verifier:{verifier_version()}")
        return signature(self.name, self.judge, PROMPTS, f"emb:{self.embedder}")

    def llm_calls(self, shape: Any) -> int:
        """At most 1 extraction + ``ceil(MAX_CLAIMS / CLAIMS_PER_CALL)`` verification calls."""
        if not shape.passages:
            return 0
        return 1 + math.ceil(claim_judge.MAX_CLAIMS / claim_judge.CLAIMS_PER_CALL)

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        scores = []
        for a in analyse(samples, resources, self.judge, self.name):
            details = a.details() if a.status == "ok" else {"claims": list(a.claims), **a.meta}
            if a.status == "unscored":
                scores.append(Score.unscored(a.reason or "unscored", details))
            elif a.status == "failed":
                scores.append(Score.failed(a.reason or "failed", details))
            elif not a.claims:
                scores.append(Score.unscored("no_claims", details))
            else:
                scores.append(Score.ok(a.count(self.label) / len(a.claims), details))
        return scores


@register("faithfulness")
@dataclass(frozen=True)
class Faithfulness(_ClaimShare):
    """Share of the answer's claims that the retrieved context supports.

    ``faithfulness = #SUPPORTED / #claims``; an answer with no claims (only greetings, hedges or
    "I don't know") is unscored with reason ``no_claims``.

    >>> Faithfulness().signature()  # doctest: +ELLIPSIS
    'faithfulness|judge:heuristic|emb:local|verifier:mlp-...|v1'
    """

    name = "faithfulness"
    higher_is_better = True
    label = SUPPORTED


@register("contradicted_share")
@dataclass(frozen=True)
class ContradictedShare(_ClaimShare):
    """Share of the answer's claims that the retrieved context refutes (hallucinations).

    ``contradicted_share = #CONTRADICTED / #claims``; no claims -> unscored ``no_claims``.
    """

    name = "contradicted_share"
    higher_is_better = False
    label = CONTRADICTED


@register("not_mentioned_share")
@dataclass(frozen=True)
class NotMentionedShare(_ClaimShare):
    """Share of the answer's claims that the retrieved context neither supports nor refutes
    (extrapolation).

    ``not_mentioned_share = #NOT_MENTIONED / #claims``; no claims -> unscored ``no_claims``.
    """

    name = "not_mentioned_share"
    higher_is_better = False
    label = NOT_MENTIONED


def claim_counts(scores: Sequence[Score]) -> Counter:
    """Verdict counts over the ``claims`` in a list of scores' details (for summaries)."""
    total: Counter = Counter()
    for s in scores:
        for c in (s.details or {}).get("claims", []):
            if "verdict" in c:
                total[c["verdict"]] += 1
    return total
