"""Correlation analyses: every metric against the human consensus and against each other, per group,
stored in the ``correlations`` table so that an analysis can be listed, reopened and compared.

An analysis is a set of cells ``(group_value, metric_a, metric_b) -> rho, p, n, CI`` (both
orders of each pair; ``metric_b = "human"`` for the agreement of a metric with people, and the
row ``metric_a = "human ceiling"`` holds the leave-one-annotator-out ceiling of the group).
Groups: ``none`` (one group ``all``), ``dataset``, ``domain``, ``model`` or ``run``.
Filters (stored with the analysis): ``metrics`` (names to keep), and ``dataset`` / ``domain`` /
``model`` (lists of values to keep).
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Sequence

import numpy as np
import pandas as pd

from rageval import stats
from rageval.config import CorrelateConfig
from rageval.errors import ConfigError
from rageval.human.consensus import CONSENSUS, human_ceiling, ratings_frame
from rageval.human.frame import GROUPINGS, build_frame, metric_columns
from rageval.project import Project
from rageval.store import human as hstore
from rageval.store import runs as rstore

CEILING = "human ceiling"


@dataclass(frozen=True)
class Analysis:
    id: str
    runs: tuple[str, ...]
    grouping: str
    method: str
    filters: dict[str, Any]
    settings: dict[str, Any]
    cells: list[dict[str, Any]] = field(repr=False)
    created: Any = None
    _index: dict = field(init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        self._index.update({(c["group_value"], c["metric_a"], c["metric_b"]): c for c in self.cells})

    @property
    def groups(self) -> list[str]:
        return sorted({c["group_value"] for c in self.cells})

    @property
    def metrics(self) -> list[str]:
        names = []
        for c in self.cells:
            if c["metric_a"] not in names and c["metric_a"] != CEILING:
                names.append(c["metric_a"])
        return sorted(n for n in names if n != "human") + (["human"] if "human" in names else [])

    def cell(self, group: str, a: str, b: str) -> dict[str, Any] | None:
        return self._index.get((group, a, b))

    def matrix(self, group: str, attr: str = "rho") -> pd.DataFrame:
        """Square table of one attribute for one group (metrics and human)."""
        names = self.metrics
        out = pd.DataFrame(np.nan, index=names, columns=names)
        for c in self.cells:
            if c["group_value"] == group and c["metric_a"] in names and c["metric_b"] in names:
                out.loc[c["metric_a"], c["metric_b"]] = np.nan if c[attr] is None else c[attr]
        for n in names:
            out.loc[n, n] = 1.0 if attr == "rho" else out.loc[n, n]
        return out

    def table(self, attr: str = "rho") -> pd.DataFrame:
        """The paper's table: metrics as rows, groups as columns, correlation with the human
        score in each cell, the human ceiling as the last row."""
        rows = [m for m in self.metrics if m != "human"] + [CEILING]
        out = pd.DataFrame(np.nan, index=rows, columns=self.groups)
        for c in self.cells:
            if c["metric_b"] == "human" and c["metric_a"] in rows:
                out.loc[c["metric_a"], c["group_value"]] = np.nan if c[attr] is None else c[attr]
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "runs": list(self.runs), "grouping": self.grouping, "method": self.method,
                "filters": self.filters, "settings": self.settings, "created": self.created, "cells": self.cells}


def _apply_filters(frame: pd.DataFrame, filters: dict[str, Any]) -> pd.DataFrame:
    for key in ("dataset", "domain", "model"):
        if filters.get(key):
            frame = frame[frame[key].isin(list(filters[key]))]
    if filters.get("metrics"):
        keep = set(filters["metrics"]) | {"human"}
        frame = frame[[c for c in frame.columns if c not in metric_columns(frame) or c.split("#")[0] in keep]]
    return frame


def correlate_runs(project: Project, run_ids: Sequence[str], *, group_by: str = CorrelateConfig.group_by,
                   method: str = CorrelateConfig.method, consensus_method: str = CorrelateConfig.consensus,
                   filters: dict[str, Any] | None = None, n_boot: int = CorrelateConfig.n_boot,
                   seed: int = CorrelateConfig.seed, save: bool = True) -> Analysis:
    """Compute (and by default store) the correlation analysis of ``run_ids``; storing it is a change to the
    project, refused to a viewer (:func:`rageval.access.require`, action ``run``) and kept in the audit trail."""
    from rageval.access import record, require

    if save:
        require(project, "run")
    if group_by not in GROUPINGS:
        raise ConfigError(f"group_by={group_by!r} must be one of {', '.join(GROUPINGS)}")
    if method not in stats.METHODS:
        raise ConfigError(f"method={method!r} must be one of {', '.join(stats.METHODS)}")
    if consensus_method not in CONSENSUS:
        raise ConfigError(f"consensus={consensus_method!r} must be one of {', '.join(CONSENSUS)}")
    known = {r.id for r in rstore.runs(project.db_path)}
    unknown = [r for r in run_ids if r not in known]
    if unknown or not run_ids:
        raise ConfigError(f"no run {', '.join(unknown) or '(none given)'} in project {project.slug};"
                          " list them with: python -m rageval runs")
    filters = dict(filters or {})
    frame = _apply_filters(build_frame(project, run_ids, consensus_method=consensus_method), filters)
    cols = metric_columns(frame)
    long = ratings_frame(project, run_ids)
    key = {"dataset": "dataset", "domain": "domain", "model": "model", "run": "run_id"}.get(group_by)
    parts = [("all", frame)] if key is None else [(str(v), p) for v, p in frame.groupby(key, sort=True)]
    cells: list[dict[str, Any]] = []
    for value, part in parts:
        mat = stats.correlation_matrix(part[cols].to_numpy(dtype=float), cols, method=method, n_boot=n_boot, seed=seed)
        cells += [{"group_value": value, **row} for row in mat.long()]
        members = set(zip(part["run_id"], part["item_id"]))
        sub = long[[k in members for k in zip(long["run_id"], long["item_id"])]] if not long.empty else long
        ceiling = human_ceiling(sub, method=method, consensus_method=consensus_method)
        cells.append({"group_value": value, "metric_a": CEILING, "metric_b": "human", "rho": ceiling["rho"],
                      "p": None, "n": ceiling["n"], "ci_low": None, "ci_high": None, "ci_method": None,
                      "reason": ceiling["reason"]})
    for c in cells:
        c.pop("method", None)
    settings = {"consensus": consensus_method, "n_boot": n_boot, "seed": seed, "confidence": 0.95,
                "items": int(len(frame))}
    stamp = datetime.now(timezone.utc)
    analysis_id = f"corr-{stamp:%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"
    if save:
        hstore.save_correlations(project.db_path, analysis_id, runs=list(run_ids), grouping=group_by, method=method,
                                 filters=filters, settings=settings, cells=cells)
        record(project, "correlate", analysis_id, runs=list(run_ids), method=method)
    return Analysis(analysis_id, tuple(run_ids), group_by, method, filters, settings, cells, stamp)


def list_analyses(project: Project) -> list[dict[str, Any]]:
    """Stored analyses, newest first (id, runs, grouping, method, filters, settings, created, groups, cells)."""
    return hstore.analyses(project.db_path)


def open_analysis(project: Project, analysis_id: str) -> Analysis:
    """Reopen a stored analysis exactly as it was computed."""
    meta = next((a for a in list_analyses(project) if a["id"] == analysis_id), None)
    if meta is None:
        raise ConfigError(f"no stored analysis {analysis_id!r} in project {project.slug}")
    return Analysis(meta["id"], tuple(meta["runs"]), meta["grouping"], meta["method"], meta["filters"],
                    meta["settings"], hstore.correlation_cells(project.db_path, analysis_id), meta["created"])


def metric_vs_metric(project: Project, run_ids: Sequence[str], a: str, b: str, *, method: str = "spearman",
                     n_boot: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Does metric ``a`` agree with humans better than metric ``b``? (paired bootstrap of the difference)."""
    frame = build_frame(project, run_ids)
    for name in (a, b):
        if name not in frame.columns:
            raise ConfigError(f"no metric {name!r} in runs {', '.join(run_ids)}")
    return stats.correlation_diff(frame[a], frame[b], frame["human"], method=method, n_boot=n_boot, seed=seed)
