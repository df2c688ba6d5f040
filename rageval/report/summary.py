"""Summaries of a run's metric scores: the mean over scored items and the unscored counts.

``mean = sum(value_i for ok items) / n_ok``; unscored and failed items are counted, never
averaged in as 0. A score is "heuristic" (an offline judge) when its signature contains
``judge:heuristic``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rageval.project import Project
from rageval.store import runs as run_store


@dataclass(frozen=True)
class MetricSummary:
    """One metric over a run: ``mean`` of the ok values, and how many items were not scored."""

    metric: str
    mean: float | None
    n_ok: int
    n_unscored: int
    n_failed: int
    heuristic: bool
    reasons: dict[str, int] = field(default_factory=dict)
    coverage: float | None = None  # decided / all claims, for the metrics that count decided claims only


def coverage_text(coverage: float | None) -> str:
    """``"coverage 40%"`` (decided / all claims) or "" for a metric without coverage."""
    return "" if coverage is None else f"coverage {100 * coverage:.0f}%"


def is_heuristic(signature: str | None) -> bool:
    return bool(signature) and "judge:heuristic" in signature


def run_summaries(project: Project, run_id: str) -> list[MetricSummary]:
    """The run's metric summaries in the order its config lists the metrics.

    Aggregated in DuckDB (``store.reports``): the same numbers as :func:`metric_summaries` over
    ``store.runs.scores``, without reading every score row into Python.
    """
    from rageval.store import reports as report_store

    run = run_store.get_run(project.db_path, run_id)
    order = {m: i for i, m in enumerate(run.config.metrics if run else ())}
    groups: dict[str, dict[str, Any]] = {}
    for s in report_store.metric_stats(project.db_path, [run_id]):
        g = groups.setdefault(s["metric"], {"sum": 0.0, "n_ok": 0, "n_unscored": 0, "n_failed": 0,
                                            "heuristic": False, "decided": 0, "all": 0})
        g["decided"] += s.get("n_decided") or 0
        g["all"] += s.get("n_all") or 0
        g["sum"] += (s["mean"] or 0.0) * s["n_ok"]
        g["n_ok"] += s["n_ok"]
        g["n_unscored"] += s["n_unscored"]
        g["n_failed"] += s["n_failed"]
        g["heuristic"] = g["heuristic"] or is_heuristic(s["signature"])
    reasons: dict[str, dict[str, int]] = {}
    for metric, status, reason, n in report_store.score_reasons(project.db_path, run_id):
        reasons.setdefault(metric, {})[f"{status}: {reason}"] = int(n)
    found = [MetricSummary(metric=m, mean=(g["sum"] / g["n_ok"]) if g["n_ok"] else None, n_ok=g["n_ok"],
                           n_unscored=g["n_unscored"], n_failed=g["n_failed"], heuristic=g["heuristic"],
                           reasons=reasons.get(m, {}), coverage=g["decided"] / g["all"] if g["all"] else None)
             for m, g in groups.items()]
    found = _settled(project, run_id, found)
    return sorted(found, key=lambda s: (order.get(s.metric, len(order)), s.metric))


def _settled(project: Project, run_id: str, found: list[MetricSummary]) -> list[MetricSummary]:
    """The claim metrics' summaries on settled verdicts (:mod:`rageval.report.settle`) when settling
    changes them (people's labels, or more than one source of verdicts); the others as computed."""
    from rageval.report.settle import CLAIM_SHARES, run_settled_values, settled_scores

    if not any(s.metric in CLAIM_SHARES for s in found):
        return found
    values = run_settled_values(project, run_id)
    if not values:
        return found
    rows = settled_scores([s for s in run_store.scores(project.db_path, run_id) if s["metric"] in CLAIM_SHARES], values)
    out = []
    for s in found:
        mine = [r for r in rows if r["metric"] == s.metric]
        if s.metric not in CLAIM_SHARES or not mine:
            out.append(s)
            continue
        ok = [r["value"] for r in mine if r["status"] == "ok" and r["value"] is not None]
        reasons: dict[str, int] = {}
        for r in mine:
            if r["status"] != "ok":
                reasons[f"{r['status']}: {r['reason']}"] = reasons.get(f"{r['status']}: {r['reason']}", 0) + 1
        decided = sum(int((r["details"] or {}).get("n_decided") or 0) for r in mine)
        total = sum(int((r["details"] or {}).get("n_all") or 0) for r in mine)
        out.append(MetricSummary(metric=s.metric, mean=sum(ok) / len(ok) if ok else None, n_ok=len(ok),
                                 n_unscored=sum(r["status"] == "unscored" for r in mine),
                                 n_failed=sum(r["status"] == "failed" for r in mine), heuristic=s.heuristic,
                                 reasons=reasons, coverage=decided / total if total else None))
    return out


# --- low-confidence claim verdicts ------------------------------------------------------------------

LOW_CONFIDENCE = "low confidence"
#: metrics whose card counts the run's low-confidence claims (the claims are stored once per answer)
CLAIM_METRICS = ("faithfulness", "hallucination_rate", "contradiction_rate")


def is_low_confidence(claim: dict[str, Any]) -> bool:
    """Whether a claim's verdict is low confidence: ``low_confidence`` of the stored claim (in its
    ``details``) or of the claim record itself (``Score.details["claims"]``)."""
    details = claim.get("details") or {}
    return bool(details.get("low_confidence", claim.get("low_confidence")))


#: the signature part of claims the offline rules decided (:meth:`rageval.claims.offline.ContainChecker.signature`
#: in :func:`rageval.metrics.judged.offline_parts`): their verdicts carry no probability (SUPPORTED
#: by containment is certain, UNVERIFIED is no verdict), so "low confidence" says nothing of them
RULES_VERDICTS = "verifier:contain-"


def low_confidence_claims(project: Project, run_id: str) -> tuple[int, int]:
    """``(low-confidence claims, claims whose verdict carries a probability)`` of a run: claims an
    LLM judge or the opt-in cross-encoder decided; the offline rules' claims are left out
    (:data:`RULES_VERDICTS`), so a run scored by the rules alone gives ``(0, 0)``."""
    from rageval.store import reports as report_store

    return report_store.low_confidence_counts(project.db_path, run_id, without=RULES_VERDICTS)


def low_confidence_text(low: int, total: int) -> str:
    """``"3 of 12 claims low confidence"``; ``""`` when no claim carries a probability.

    >>> low_confidence_text(3, 12), low_confidence_text(0, 0)
    ('3 of 12 claims low confidence', '')
    """
    return f"{low} of {total} claims {LOW_CONFIDENCE}" if total else ""


# --- offline verdicts: what they are, an UNVERIFIED claim's evidence and hints -----------------------

#: what offline verdicts are (docs/validation.md); shown beside them when no judge was used
OFFLINE_VERDICT_NOTE = (
    "No judge was used: a claim copied from a retrieved chunk is SUPPORTED and every other claim is UNVERIFIED, "
    "shown with its most likely evidence and hints, for a judge or a person to decide (set the Judge on the Run "
    "page, or pass --judge openai:MODEL to rageval run / score)."
)


def evidence_prefix(claim: dict[str, Any]) -> str:
    """"closest passage: " for evidence that is only the nearest sentence (a NOT_MENTIONED claim),
    "likely evidence: " for an UNVERIFIED claim's most likely sentence; neither is shown as support;
    "" otherwise."""
    role = (claim.get("details") or {}).get("evidence_role")
    if role == "closest passage" or (role is None and claim.get("verdict") == "NOT_MENTIONED"):
        return "closest passage: "
    if role == "likely evidence" or claim.get("verdict") == "UNVERIFIED":
        return "likely evidence: "
    return ""


def claim_hints(claim: dict[str, Any]) -> list[str]:
    """The hints stored with an UNVERIFIED claim (what the offline checks noticed), [] when none."""
    found = (claim.get("details") or {}).get("hints") or claim.get("hints") or []
    return [str(h) for h in found] if isinstance(found, list) else []
