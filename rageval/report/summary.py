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


def is_heuristic(signature: str | None) -> bool:
    return bool(signature) and "judge:heuristic" in signature


def run_summaries(project: Project, run_id: str) -> list[MetricSummary]:
    """The run's metric summaries in the order its config lists the metrics.

    Aggregated in DuckDB (``store.reports``): the same numbers as :func:`metric_summaries` over
    ``store.runs.scores``, without reading every score row into Python.
    """
    from rageval.store import reports as report_store

    run = run_store.get_run(project.db_path, run_id)
    order = {m: i for i, m in enumerate((run or {}).get("config", {}).get("metrics", []))}
    groups: dict[str, dict[str, Any]] = {}
    for s in report_store.metric_stats(project.db_path, [run_id]):
        g = groups.setdefault(s["metric"], {"sum": 0.0, "n_ok": 0, "n_unscored": 0, "n_failed": 0,
                                            "heuristic": False})
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
                           reasons=reasons.get(m, {}))
             for m, g in groups.items()]
    return sorted(found, key=lambda s: (order.get(s.metric, len(order)), s.metric))


# --- low-confidence claim verdicts ------------------------------------------------------------------

LOW_CONFIDENCE = "low confidence"
#: metrics whose card counts the run's low-confidence claims (the claims are stored once per answer)
CLAIM_METRICS = ("faithfulness", "hallucination_rate", "contradiction_rate")


def is_low_confidence(claim: dict[str, Any]) -> bool:
    """Whether a claim's verdict is low confidence: ``low_confidence`` of the stored claim (in its
    ``details``) or of the claim record itself (``Score.details["claims"]``)."""
    details = claim.get("details") or {}
    return bool(details.get("low_confidence", claim.get("low_confidence")))


def low_confidence_claims(project: Project, run_id: str) -> tuple[int, int]:
    """``(low-confidence claims, claims)`` of a run."""
    from rageval.store import reports as report_store

    return report_store.low_confidence_counts(project.db_path, run_id)


def low_confidence_text(low: int, total: int) -> str:
    """``"3 of 12 claims low confidence"``; ``""`` when the run has no claims.

    >>> low_confidence_text(3, 12), low_confidence_text(0, 0)
    ('3 of 12 claims low confidence', '')
    """
    return f"{low} of {total} claims {LOW_CONFIDENCE}" if total else ""
