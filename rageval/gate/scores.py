"""Per-answer scores of one side of a CI check: a stored run, or a file ``rageval score`` wrote.

A :class:`ScoreSet` holds, per metric, the value of every answer (``NaN`` where the metric did
not score it) and why each unscored answer was not scored. A file is JSONL, JSON, CSV or
Parquet with an ``id`` column, one column per metric and optional ``<metric>_status`` columns
(``"unscored: no_contexts"``), as ``rageval score --out`` writes it; a stored run is read from
the project's database with the metric signatures, so two runs whose settings differ are never
compared.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from rageval.errors import ConfigError
from rageval.project import Project
from rageval.store import runs as run_store

#: columns of a scored file that are not metrics
NOT_METRICS = {"id", "source", "claims", "aligncheck", "question", "answer", "contexts", "reference",
               "references", "retrieved_ids", "context_ids", "relevant_ids", "domain"}


@dataclass(frozen=True)
class ScoreSet:
    label: str                 # "run 2026...-ab12cd" or the file's name
    values: pd.DataFrame       # index: answer id; one float column per metric, NaN when not scored
    reasons: dict[str, Counter] = field(default_factory=dict)  # metric -> reason -> unscored answers
    signatures: dict[str, str] = field(default_factory=dict)   # metric -> signature (stored runs only)
    expected: int | None = None  # answers the run should have (stored runs only): its QA items
    status: str | None = None    # the run's status (stored runs only)
    coverage: dict[str, float] = field(default_factory=dict)  # claim metric -> decided / all claims

    @property
    def metrics(self) -> list[str]:
        return list(self.values.columns)

    def unscored(self, metric: str) -> int:
        return int(self.values[metric].isna().sum())


def from_run(project: Project, run_id: str) -> ScoreSet:
    """The stored scores of ``run_id`` (a ConfigError when there is no such run)."""
    run = run_store.get_run(project.db_path, run_id)
    if run is None:
        raise ConfigError(f"run {run_id!r} does not exist in project {project.slug!r}; see: rageval runs")
    rows = run_store.scores(project.db_path, run_id)
    if not rows:
        raise ConfigError(f"run {run_id!r} has no metric scores to check")
    values: dict[str, dict[str, float]] = {}
    reasons: dict[str, Counter] = {}
    signatures: dict[str, str] = {}
    decided: dict[str, list[int]] = {}
    for r in rows:
        d = r["details"] or {}
        if isinstance(d.get("n_all"), int):
            pair = decided.setdefault(r["metric"], [0, 0])
            pair[0], pair[1] = pair[0] + int(d.get("n_decided") or 0), pair[1] + d["n_all"]
        ok = r["status"] == "ok" and r["value"] is not None
        values.setdefault(r["metric"], {})[str(r["item_id"])] = float(r["value"]) if ok else math.nan
        signatures[r["metric"]] = r["signature"]
        if not ok:
            reasons.setdefault(r["metric"], Counter())[f"{r['status']}: {r['reason']}" if r["status"] != "unscored"
                                                       else str(r["reason"])] += 1
    return ScoreSet(f"run {run_id}", pd.DataFrame(values).sort_index(), reasons, signatures,
                    expected=int(run["n_items"]), status=str(run["status"]),
                    coverage={m: a / b for m, (a, b) in decided.items() if b})


def from_file(path: Path) -> ScoreSet:
    """The scores in a file ``rageval score --out`` wrote (JSONL, JSON, CSV or Parquet)."""
    if not path.is_file():
        raise ConfigError(f"{path}: no such file")
    if path.suffix.lower() == ".parquet":
        records = pd.read_parquet(path).to_dict("records")
    else:
        from rageval.ingest.rows import read_table

        records = [rec for _, rec in read_table(path.name, path.read_bytes()).records]
    if not records or not all("id" in r for r in records):
        raise ConfigError(f"{path}: a scored file needs rows with an 'id' column and one column per metric "
                          "(what `rageval score --out FILE` writes)")
    keys = dict.fromkeys(k for r in records for k in r if k not in NOT_METRICS
                         and not k.endswith(("_status", "_coverage")))
    metrics = sorted(k for k in keys if all(_number(r.get(k)) is not None or _empty(r.get(k)) for r in records)
                     and any(_number(r.get(k)) is not None or r.get(f"{k}_status") for r in records))
    if not metrics:
        raise ConfigError(f"{path}: no metric columns (numbers) found; score it first with `rageval score`")
    values: dict[str, dict[str, float]] = {m: {} for m in metrics}
    reasons: dict[str, Counter] = {}
    covered = {m: [c for r in records if (c := _number(r.get(f"{m}_coverage"))) is not None] for m in metrics}
    for r in records:
        rid = str(r["id"])
        for m in metrics:
            v = _number(r.get(m))
            values[m][rid] = math.nan if v is None else v
            if v is None:
                status = r.get(f"{m}_status") or "no value"
                reasons.setdefault(m, Counter())[str(status).removeprefix("unscored: ")] += 1
    # a file keeps each answer's coverage only: the file's is their mean
    return ScoreSet(path.name, pd.DataFrame(values).sort_index(), reasons,
                    coverage={m: sum(c) / len(c) for m, c in covered.items() if c})


def load(project_opener, spec: str) -> ScoreSet:
    """A file when ``spec`` names one, else a run id of the project (``project_opener()`` opens it)."""
    path = Path(spec)
    if path.suffix and (path.is_file() or path.suffix.lower() in (".jsonl", ".json", ".csv", ".parquet")):
        return from_file(path)
    return from_run(project_opener(), spec)


def _number(value) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return None if math.isnan(float(value)) else float(value)
    if isinstance(value, str) and value.strip():
        try:
            v = float(value)
        except ValueError:
            return None
        return None if math.isnan(v) else v
    return None


def _empty(value) -> bool:
    return value is None or value == "" or (isinstance(value, float) and math.isnan(value))
