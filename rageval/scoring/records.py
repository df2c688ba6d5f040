"""What a project stores for scored samples: metric score rows with their signatures, claim rows.

Used by pipeline runs (:mod:`rageval.runs.pipeline`) and by the unit of work
(:mod:`rageval.scoring.unit`), so a run, ``score`` and ``import-scores`` store the same rows.
"""
from __future__ import annotations

from typing import Any, Sequence

from rageval.metrics.base import Metric, online_judged
from rageval.types import Sample, Score
from rageval.util import canonical_json


def stored_signature(metric: Metric, llm: Any = None) -> str:
    """``metric.signature()``, plus ``|out:MODE`` for an LLM-judged metric: the structured-output
    mode (json_schema, json_object, prompt) its judge's server and model were asked in."""
    sig = metric.signature()
    mode_of = getattr(llm, "output_mode", None)
    if mode_of is not None and online_judged(metric) and llm.has_role("judge"):
        sig += f"|out:{mode_of('judge')}"
    return sig


def score_rows(samples: Sequence[Sample], scores: dict[str, list[Score]], metrics: Sequence[Metric],
               judge: str, llm: Any = None) -> list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """Per sample: (metric score rows, claim rows) ready for storage.

    Claims leave the score details for the claims table. Metrics of one family (faithfulness
    and the contradicted / not-mentioned shares) carry the same claim list; it is stored once,
    under the signature of the first metric that carried it. Signatures are
    :func:`stored_signature` (``llm``: the client that judged them).
    """
    sigs = {metric.name: stored_signature(metric, llm) for metric in metrics}
    out = []
    for i, _sample in enumerate(samples):
        rows, claims, seen = [], [], set()
        for metric in metrics:
            score = scores[metric.name][i]
            details = dict(score.details) if score.details else None
            if details and isinstance(details.get("claims"), list):
                found = details.pop("claims")
                key = canonical_json(found)
                if key not in seen:
                    seen.add(key)
                    claims.extend(_claim_rows(found, sigs[metric.name], judge))
            rows.append({"metric": metric.name, "signature": sigs[metric.name], "value": score.value,
                         "status": score.status, "reason": score.reason, "details": details})
        out.append((rows, claims))
    return out


def _claim_rows(found: Sequence[dict[str, Any]], signature: str, judge: str) -> list[dict[str, Any]]:
    core = ("text", "verdict", "evidence", "evidence_chunk", "span", "reason")
    rows = []
    for ordinal, c in enumerate(found):
        span = c.get("span") or [None, None]
        rows.append({
            "signature": signature, "ordinal": ordinal, "text": c.get("text", ""),
            "verdict": c.get("verdict", "UNVERIFIED"), "evidence": c.get("evidence"),
            "evidence_chunk": c.get("evidence_chunk"), "span_start": span[0], "span_end": span[1],
            "reason": c.get("reason"), "judge": judge,
            "details": {k: v for k, v in c.items() if k not in core},
        })
    return rows
