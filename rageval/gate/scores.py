"""Per-answer scores of one side of a CI check: a stored run, or a file ``rageval score`` wrote.

A :class:`ScoreSet` holds, per metric, the value of every answer (``NaN`` where the metric did
not score it), why each unscored answer was not scored, and every value the gate refused. A file
is read by :mod:`rageval.gate.read` (JSONL, JSON, CSV or Parquet with an ``id`` column, one
column per metric and optional ``<metric>_status`` columns, as ``rageval score --out`` writes
it); a stored run is read from the project's database with the metric signatures, so two runs
whose settings differ are never compared. Both sides go through the same rule
(:mod:`rageval.metrics.ranges`): a value that is not a finite number inside its metric's range is
rejected by id with its reason and counted as unscored.

A stored run's claim metrics are read on settled verdicts (:mod:`rageval.report.settle`): people's
labels count, then a judge's verdicts, then claims copied from a context. With ``claim_shares`` a
run also gets two keyless columns per answer, :data:`CLAIM_GATE_METRICS`: ``copied_share`` =
#claims copied from a context / #claims (a lower bound of the supported share that needs no judge)
and ``unverified_share`` = #claims nobody settled (no person, no judge, no copy) / #claims; an answer
without claims is unscored on both (``no_claims``).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from rageval.errors import ConfigError
from rageval.gate.read import NOT_METRICS, metrics_of, read_rows, reasons_and_rejections
from rageval.metrics.ranges import Rejection, problem, sound
from rageval.project import Project
from rageval.report.settle import COPIED, settled_claims, settled_scores, settled_values
from rageval.store import runs as run_store

#: the keyless claim columns ``from_run(..., claim_shares=True)`` adds (module docstring)
CLAIM_GATE_METRICS = ("copied_share", "unverified_share")
_NO_CLAIMS = "no_claims: the answer has no claims"

__all__ = ["CLAIM_GATE_METRICS", "NOT_METRICS", "ScoreSet", "from_file", "from_run", "load"]


@dataclass(frozen=True)
class ScoreSet:
    label: str                 # "run 2026...-ab12cd" or the file's name
    values: pd.DataFrame       # index: answer id; one float column per metric, NaN when not scored
    reasons: dict[str, Counter] = field(default_factory=dict)  # metric -> reason -> unscored answers
    signatures: dict[str, str] = field(default_factory=dict)   # metric -> signature (stored runs only)
    expected: int | None = None  # answers the run should have (stored runs only): its QA items
    status: str | None = None    # the run's status (stored runs only)
    coverage: dict[str, float] = field(default_factory=dict)  # claim metric -> decided / all claims
    rejected: list[Rejection] = field(default_factory=list)  # values (or rows) refused, in row order

    @property
    def metrics(self) -> list[str]:
        return list(self.values.columns)

    def unscored(self, metric: str) -> int:
        return int(self.values[metric].isna().sum())


def from_run(project: Project, run_id: str, *, claim_shares: bool = False) -> ScoreSet:
    """The stored scores of ``run_id``, the claim metrics on settled verdicts (a ConfigError when there
    is no such run); a stored ``ok`` value that is not sound (an imported or tampered database) is
    rejected like a file's. ``claim_shares`` adds :data:`CLAIM_GATE_METRICS`."""
    run = run_store.get_run(project.db_path, run_id)
    if run is None:
        raise ConfigError(f"run {run_id!r} does not exist in project {project.slug!r}; see: rageval runs")
    settled = settled_claims(project, run_id)
    rows = settled_scores(run_store.scores(project.db_path, run_id), settled_values(settled))
    if not rows:
        raise ConfigError(f"run {run_id!r} has no metric scores to check")
    if claim_shares:
        rows += _claim_share_rows(settled, {str(r["item_id"]) for r in rows})
    values: dict[str, dict[str, float]] = {}
    reasons: dict[str, Counter] = {}
    signatures: dict[str, str] = {}
    rejected: list[Rejection] = []
    decided: dict[str, list[int]] = {}
    for r in rows:
        metric, item = r["metric"], str(r["item_id"])
        d = r["details"] or {}
        if isinstance(d.get("n_all"), int):
            pair = decided.setdefault(metric, [0, 0])
            pair[0], pair[1] = pair[0] + int(d.get("n_decided") or 0), pair[1] + d["n_all"]
        ok = r["status"] == "ok" and r["value"] is not None
        found = problem(metric, r["value"]) if ok else None
        values.setdefault(metric, {})[item] = sound(metric, r["value"]) if ok and found is None else math.nan
        signatures[metric] = r["signature"]
        if found is not None:
            rejected.append(Rejection(f"run {run_id}: stored score", item, metric, found[1]))
            why = f"rejected: {found[0]}"
        elif not ok:
            why = f"{r['status']}: {r['reason']}" if r["status"] != "unscored" else str(r["reason"])
        else:
            continue
        reasons.setdefault(metric, Counter())[why] += 1
    return ScoreSet(f"run {run_id}", pd.DataFrame(values).sort_index(), reasons, signatures,
                    expected=run.n_items, status=run.status,
                    coverage={m: a / b for m, (a, b) in decided.items() if b}, rejected=rejected)


def _claim_share_rows(settled, items: set[str]) -> list[dict]:
    """Score-like rows of :data:`CLAIM_GATE_METRICS` for every answer of the run (module docstring)."""
    per_item: dict[str, list] = {}
    for c in settled:
        per_item.setdefault(str(c.item_id), []).append(c)
    out = []
    for item in sorted(items):
        claims = per_item.get(item, [])
        shares = {"copied_share": sum(any(x.kind == COPIED for x in c.sources) for c in claims),
                  "unverified_share": sum(not c.decided for c in claims)}
        for metric, n in shares.items():
            out.append({"item_id": item, "metric": metric, "signature": f"{metric}|settled|v1",
                        "value": n / len(claims) if claims else None, "status": "ok" if claims else "unscored",
                        "reason": None if claims else _NO_CLAIMS, "details": None})
    return out


def from_file(path: Path) -> ScoreSet:
    """The scores in a file ``rageval score --out`` wrote (JSONL, JSON, CSV or Parquet), read by
    :func:`rageval.gate.read.read_rows`; a ConfigError for a file the gate cannot use as a whole."""
    collected = read_rows(path)
    if not collected.ids:
        raise ConfigError(f"{path}: a scored file needs rows with an 'id' column and one column per metric "
                          "(what `rageval score --out FILE` writes)")
    metrics = metrics_of(collected)
    if not metrics:
        raise ConfigError(f"{path}: no metric columns (numbers) found; score it first with `rageval score`")
    reasons, rejected = reasons_and_rejections(collected, metrics)
    n = len(collected.ids)
    values = pd.DataFrame({m: np.frombuffer(collected.values[m], dtype=float, count=n) for m in metrics},
                          index=pd.Index(collected.ids, dtype=object))
    # a file keeps each answer's coverage only: the file's is their mean
    coverage = {m: total / count for m, (total, count) in collected.coverage.items() if m in metrics and count}
    return ScoreSet(path.name, values.sort_index(), reasons, coverage=coverage, rejected=rejected)


def load(project_opener, spec: str, *, claim_shares: bool = False) -> ScoreSet:
    """A file when ``spec`` names one, else a run id of the project (``project_opener()`` opens it)."""
    path = Path(spec)
    if path.suffix and (path.is_file() or path.suffix.lower() in (".jsonl", ".json", ".csv", ".parquet")):
        return from_file(path)
    return from_run(project_opener(), spec, claim_shares=claim_shares)
