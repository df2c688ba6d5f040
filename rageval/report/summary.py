"""Summaries of a run's metric scores: the mean over scored items and the unscored counts.

``mean = sum(value_i for ok items) / n_ok``; unscored and failed items are counted, never
averaged in as 0. A score is "heuristic" (an offline judge) when its signature contains
``judge:heuristic``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

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


def metric_summaries(scores: Sequence[dict[str, Any]]) -> list[MetricSummary]:
    """Per metric (in first-seen order): mean over ok items, counts of unscored/failed, reasons."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for s in scores:
        groups.setdefault(s["metric"], []).append(s)
    out = []
    for metric, rows in groups.items():
        values = [r["value"] for r in rows if r["status"] == "ok" and r["value"] is not None]
        reasons: dict[str, int] = {}
        for r in rows:
            if r["status"] != "ok":
                key = f"{r['status']}: {r['reason']}"
                reasons[key] = reasons.get(key, 0) + 1
        out.append(MetricSummary(
            metric=metric, mean=(sum(values) / len(values)) if values else None, n_ok=len(values),
            n_unscored=sum(r["status"] == "unscored" for r in rows),
            n_failed=sum(r["status"] == "failed" for r in rows),
            heuristic=any(is_heuristic(r["signature"]) for r in rows), reasons=reasons,
        ))
    return out


def run_summaries(project: Project, run_id: str) -> list[MetricSummary]:
    """The run's metric summaries in the order its config lists the metrics."""
    run = run_store.get_run(project.db_path, run_id)
    order = {m: i for i, m in enumerate((run or {}).get("config", {}).get("metrics", []))}
    found = metric_summaries(run_store.scores(project.db_path, run_id))
    return sorted(found, key=lambda s: order.get(s.metric, len(order)))
