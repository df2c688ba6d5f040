"""The claim analysis of one answer, shared by the three claim metrics: extraction, verification
and diagnosis, offline or by an LLM judge, computed once per (judge, embedder, sample) in one
``evaluate`` call (``Resources.memo``).

Offline: :func:`rageval.claims.extract.answer_claims` (a short answer read with its question),
then the offline check (:func:`rageval.claims.offline.offline_verify`: SUPPORTED when copied,
else UNVERIFIED with evidence and hints; its version goes into the signature). With a
judge: :mod:`rageval.claims.judge` (one pool task per answer: extract, then verify the claims that
are not copied from the contexts: those are SUPPORTED by :func:`rageval.claims.containment.contained`
on both paths). Both end in
:func:`rageval.claims.diagnose.diagnose`. Each claim is stored as :func:`claim_record` gives it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from rageval.claims import judge as judge_path
from rageval.claims.containment import contained
from rageval.claims.diagnose import diagnose
from rageval.claims.extract import answer_claims, why_no_claims
from rageval.claims.offline import offline_verify
from rageval.claims.offline import version as verifier_version
from rageval.claims.verdict import DECIDED, VERDICTS, Verdict
from rageval.types import Resources, Sample, Spec
from rageval.judge.ask import judge_client

PROMPTS = ("claim_extract", "claim_verify")


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

    @property
    def decided(self) -> int:
        """Claims with a verdict other than UNVERIFIED."""
        return sum(c["verdict"] in DECIDED for c in self.claims)

    def details(self) -> dict[str, Any]:
        counts = {label: self.count(label) for label in VERDICTS}
        return {"claims": [dict(c) for c in self.claims], "counts": counts, "n_claims": len(self.claims),
                "n_decided": self.decided, "diagnosis": dict(self.diagnosis), **self.meta}


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
        "low_confidence": v.low_confidence,
        "probabilities": v.probabilities,
        "evidence_role": v.evidence_role,
        "quote_span": list(v.quote_span) if v.quote_span else None,
        "hints": list(v.hints),
    }


def _finish(sample: Sample, records: list[dict], meta: dict) -> Analysis:
    if not records:  # why, for the metrics' unscored reason
        meta = {**meta, "no_claims": why_no_claims(sample.answer or "")}
    diag = diagnose(sample, records)
    for rec, cause in zip(records, diag["claim_causes"]):
        rec["cause"] = cause
    summary = {k: v for k, v in diag.items() if k != "claim_causes"}
    return Analysis("ok", None, tuple(records), summary, meta)


def _key(sample: Sample, judge: Spec, embedder_name: str) -> tuple:
    return ("claims", judge, embedder_name, sample.question, sample.answer, sample.contexts, sample.context_ids,
            sample.references)


def analyse(samples: Sequence[Sample], resources: Resources, judge: Spec, metric: str) -> list[Analysis]:
    """Claims, verdicts and diagnosis for each sample, once per ``evaluate`` call (``resources.memo``;
    a failed analysis is not kept)."""
    if not judge.online:
        embedder = resources.embedder
        name = getattr(embedder, "name", type(embedder).__name__)
    else:
        llm = judge_client(metric, judge, resources)
        name = ""

    def compute(todo: list[int]) -> list[Analysis]:
        batch = [samples[i] for i in todo]
        return _judged(batch, llm, judge) if judge.online else _heuristic(batch, embedder, name)

    return resources.memo.many([_key(s, judge, name) for s in samples], compute,
                               keep=lambda analysis: analysis.status == "ok")


def _heuristic(samples: Sequence[Sample], embedder: Any, name: str) -> list[Analysis]:
    claims = [answer_claims(s.question or "", s.answer or "") for s in samples]
    verdicts = offline_verify(embedder, [(c, s.contexts, s.question or "", s.answer or "")
                                         for c, s in zip(claims, samples)])
    meta = {"judge": "heuristic", "method": "offline", "verifier": verifier_version(), "embedder": name}
    return [_finish(s, [claim_record(s, t, v) for t, v in zip(c, vs)], meta)
            for s, c, vs in zip(samples, claims, verdicts)]


def _judged(samples: Sequence[Sample], llm: Any, judge: Spec) -> list[Analysis]:
    """Each answer's claims extracted, then verified, in ONE pool task per answer: the dependent
    calls pipeline across answers (answer 2 is extracted while answer 1 is verified) instead of
    waiting for every extraction before the first verification."""
    meta = {"judge": str(judge), "method": "llm"}

    def one(s: Sample) -> Analysis:
        claims = judge_path.extract_one(llm, s.question, s.answer or "")
        if isinstance(claims, judge_path.Failure):
            return Analysis(claims.status, claims.reason, (), {}, {**meta, "stage": "extract", "raw": claims.raw})
        copied = [contained(t, s.contexts, s.question or "", s.answer or "") for t in claims]  # copies skip the judge
        rest = [t for t, v in zip(claims, copied) if v is None]
        judged = judge_path.verify(llm, [(rest, s.contexts)])[0] if rest else []
        if isinstance(judged, judge_path.Failure):
            return Analysis(judged.status, judged.reason, tuple({"text": t} for t in claims), {},
                            {**meta, "stage": "verify", "raw": judged.raw})
        found = iter(judged)
        verdicts = [v if v is not None else next(found) for v in copied]
        return _finish(s, [claim_record(s, t, v) for t, v in zip(claims, verdicts)], dict(meta))

    return llm.map(one, list(samples))
