"""The per-answer table every analysis starts from: one row per (run, item), one column per metric.

Columns: ``run_id``, ``item_id``, ``question``, ``dataset`` (the run's QA set, or the source
file of an imported run), ``domain`` (the QA item's), ``model`` (:func:`rageval.config.run_model`:
the run's generator, or ``imported <source>``), one column per metric (its ``ok`` values; unscored
items are NaN and are excluded pairwise later), and ``human`` (the consensus score, the agreed score when set). A
metric stored with two different signatures across the runs (values that are not comparable)
becomes two columns, ``name#<6 hex of the signature's hash>``.
"""
from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np
import pandas as pd

from rageval.human.consensus import agreement_of, consensus, ratings_frame
from rageval.config import ImportConfig, run_model
from rageval.project import Project
from rageval.store import human as hstore
from rageval.store import runs as run_store
from rageval.store.record import Run

GROUPINGS = ("none", "dataset", "domain", "model", "run")
META = ("run_id", "item_id", "question", "dataset", "domain", "model")


def _labels(it: dict, run: Run) -> dict:
    """The grouping labels of an item row of ``run``."""
    source = run.config.source if isinstance(run.config, ImportConfig) else "import"
    return {"dataset": it["qa_set"] or source, "domain": it["domain"] or "(none)", "model": run_model(run.config),
            "run": it["run_id"]}


def _labelled(project: Project, run_ids: Sequence[str]) -> list[tuple[dict, dict]]:
    """``(item row, its grouping labels)`` per answer of the runs (:func:`rageval.store.human.item_labels`)."""
    runs = run_store.get_runs(project.db_path, run_ids)
    return [(it, _labels(it, runs[it["run_id"]])) for it in hstore.item_labels(project.db_path, run_ids)]


def group_labels(project: Project, run_ids: Sequence[str], by: str) -> dict[tuple[str, str], str]:
    """``(run_id, item_id) -> value`` of the grouping ``by`` (dataset, domain, model, run)."""
    return {(it["run_id"], it["item_id"]): str(labels.get(by, "all")) for it, labels in _labelled(project, run_ids)}


def build_frame(project: Project, run_ids: Sequence[str], *, consensus_method: str = "median",
                metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """The per-answer table of the runs (see the module docstring); ``metrics`` keeps only those."""
    base = pd.DataFrame(
        [
            {
                "run_id": it["run_id"],
                "item_id": it["item_id"],
                "question": it["question"],
                **{k: v for k, v in labels.items() if k != "run"},
            }
            for it, labels in _labelled(project, run_ids)
        ],
        columns=list(META),
    )
    values = hstore.metric_values_table(project.db_path, run_ids)
    values["value"] = values["value"].astype(float)
    if metrics is not None:
        values = values[values["metric"].isin(list(metrics))]
    if not values.empty:
        sigs = values.groupby("metric")["signature"].nunique()
        multi = set(sigs[sigs > 1].index)
        column = values["metric"].astype(object)
        split = values["metric"].isin(multi)
        if split.any():  # one column per (metric, signature) where a metric has several
            column[split] = [f"{m}#{hashlib.sha256(s.encode()).hexdigest()[:6]}"
                             for m, s in zip(values["metric"][split], values["signature"][split])]
        values = values.assign(column=column)
        table = values.pivot_table(index=["run_id", "item_id"], columns="column", values="value", aggfunc="first")
        table.columns = [str(c) for c in table.columns]
        base = base.merge(table.reset_index(), on=["run_id", "item_id"], how="left")
    cons = consensus(project, run_ids, consensus_method)
    base = base.merge(cons[["run_id", "item_id", "score"]].rename(columns={"score": "human"}),
                      on=["run_id", "item_id"], how="left")
    base["human"] = base["human"].astype(float)
    return base


def metric_columns(frame: pd.DataFrame) -> list[str]:
    """The score columns of a frame (every column but the metadata), human last."""
    cols = [c for c in frame.columns if c not in META and c != "human"]
    cols = [c for c in cols if np.issubdtype(frame[c].dtype, np.number)]
    return cols + (["human"] if "human" in frame.columns else [])


def shared_metric_columns(frame: pd.DataFrame) -> list[str]:
    """The score columns that every run of the frame scored on at least one common item.

    Two runs made with different metric sets share only some columns; offering the others would
    end in "the runs share 0 item(s) scored on ...". Order as :func:`metric_columns`.
    """
    runs = frame["run_id"].nunique()
    cols = metric_columns(frame)
    if not runs or not cols:
        return []
    # a frame has one row per (run, item): the runs that scored an item are its non-null count
    per_item = frame.groupby("item_id")[cols].count()
    return [c for c in cols if bool((per_item[c] == runs).any())]


def agreement(project: Project, run_ids: Sequence[str], *, by: str | None = None) -> dict:
    """Agreement overall and, with ``by="domain"`` (or ``dataset``, ``model``, ``run``), per group."""
    long = ratings_frame(project, run_ids)
    out = {"overall": agreement_of(long), "groups": {}}
    if by and not long.empty:
        labels = group_labels(project, run_ids, by)
        keys = [labels.get((r, i), "(none)") for r, i in zip(long["run_id"], long["item_id"])]
        for value, part in long.groupby(pd.Series(keys, index=long.index)):
            out["groups"][str(value)] = agreement_of(part)
    return out
