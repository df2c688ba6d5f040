"""Exports of a run: one row per QA item with the answer, retrieved ids and metric values."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from rageval.errors import ConfigError
from rageval.project import Project
from rageval.store import runs as store

FORMATS = ("jsonl", "csv", "parquet")


def run_table(project: Project, run_id: str) -> pd.DataFrame:
    """Wide table of a run: id, question, reference, answer, status, retrieved ids, one column per metric.

    A metric that could not score an item has a null value and ``<metric>_status`` with the reason.
    """
    if store.get_run(project.db_path, run_id) is None:
        raise ConfigError(f"run {run_id!r} does not exist in project {project.slug!r}")
    rows: dict[str, dict[str, Any]] = {}
    for a in store.answers(project.db_path, run_id):
        rows[a["item_id"]] = {
            "id": a["item_id"], "question": a["question"], "reference": a["references"],
            "answer": a["answer"], "status": a["status"], "reason": a["reason"],
            "retrieved_ids": [cid for cid, _ in a["retrieved"]],
            "retrieved_scores": [s for _, s in a["retrieved"]],
        }
    metric_cols: list[str] = []
    for s in store.scores(project.db_path, run_id):
        row = rows.get(s["item_id"])
        if row is None:
            continue
        if s["metric"] not in metric_cols:
            metric_cols.append(s["metric"])
        row[s["metric"]] = s["value"]
        if s["status"] != "ok":
            row[f"{s['metric']}_status"] = f"{s['status']}: {s['reason']}"
    return pd.DataFrame(list(rows.values()))


def export_run(project: Project, run_id: str, fmt: str, out: Path | None = None) -> str | None:
    """Write the run table as ``fmt``; returns the text (jsonl/csv) when ``out`` is None."""
    if fmt not in FORMATS:
        raise ConfigError(f"format {fmt!r} is not supported; use {', '.join(FORMATS)}")
    table = run_table(project, run_id)
    if fmt == "parquet":
        if out is None:
            raise ConfigError("parquet export needs --out FILE")
        table.to_parquet(out, index=False)
        return None
    if fmt == "jsonl":
        text = "".join(json.dumps({k: _plain(v) for k, v in row.items()}, ensure_ascii=False) + "\n"
                       for row in table.to_dict(orient="records"))
    else:
        flat = table.copy()
        for col in ("reference", "retrieved_ids", "retrieved_scores"):
            if col in flat:
                flat[col] = flat[col].map(lambda v: json.dumps(_plain(v), ensure_ascii=False))
        text = flat.to_csv(index=False)
    if out is not None:
        Path(out).write_text(text, encoding="utf-8")
        return None
    return text


def _plain(value: Any) -> Any:
    """NaN -> None and numpy scalars/arrays -> Python values, for JSON."""
    if isinstance(value, float) and value != value:
        return None
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
