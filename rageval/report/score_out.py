"""Writing ``score`` output: JSONL (one object per row), CSV, or a Parquet part for sharded scoring.

Every file is written atomically (:func:`rageval.files.atomic_write`): a process killed while
writing ``part-007.parquet`` leaves no file of that name, never a partial one. CSV cells that a
spreadsheet would run as formulas are neutralised (:func:`rageval.files.csv_text`); JSONL and
Parquet keep the exact text.

A team scoring a very large answer set splits it into shards and runs ``score`` on each
(``score shard-007.jsonl --out part-007.parquet``, on any machines); DuckDB then reads the parts
together: ``SELECT avg(token_f1) FROM read_parquet('part-*.parquet')``. Since every metric's
value depends only on its own row (see tests/test_properties.py), the parts together hold
exactly what scoring the whole file at once gives.

Each Parquet part has a fixed schema whatever its rows hold, so parts always union: ``id``
(string), per metric ``<metric>`` (double, null when not scored) and ``<metric>_status``
(string, null when ok), ``claims`` (JSON text, with ``--details``), and ``source`` (the input
file the row came from).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from rageval.files import atomic_write, csv_text


def write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    with atomic_write(path) as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")


def write_csv(path: Path, rows: Sequence[dict[str, Any]], metrics: Sequence[str], *, details: bool = False) -> None:
    """``id``, per metric ``<metric>`` and ``<metric>_status``, ``claims`` (JSON text, with ``--details``)."""
    import pandas as pd

    columns = ["id"] + [c for m in metrics for c in (m, f"{m}_status")] + (["claims"] if details else [])
    frame = pd.DataFrame([{c: (json.dumps(r.get(c), ensure_ascii=False) if c == "claims" and r.get(c) is not None
                               else r.get(c)) for c in columns} for r in rows], columns=columns)
    with atomic_write(path) as fh:
        fh.write(csv_text(frame))


def write_parquet(path: Path, rows: Sequence[dict[str, Any]], metrics: Sequence[str], *, source: str,
                  details: bool = False) -> None:
    """One Parquet part with the fixed schema described in the module docstring."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    fields = [pa.field("id", pa.string()), pa.field("source", pa.string())]
    for m in metrics:
        fields += [pa.field(m, pa.float64()), pa.field(f"{m}_status", pa.string())]
    if details:
        fields.append(pa.field("claims", pa.string()))
    columns: dict[str, list[Any]] = {f.name: [] for f in fields}
    for r in rows:
        columns["id"].append(r["id"])
        columns["source"].append(source)
        for m in metrics:
            columns[m].append(r.get(m))
            columns[f"{m}_status"].append(r.get(f"{m}_status"))
        if details:
            claims = r.get("claims")
            columns["claims"].append(None if claims is None else json.dumps(claims, ensure_ascii=False))
    schema = pa.schema(fields)
    with atomic_write(path, "wb") as fh:
        pq.write_table(pa.table(columns, schema=schema), fh)


def write_rows(path: Path, rows: Sequence[dict[str, Any]], metrics: Sequence[str], *, source: str,
               details: bool = False) -> None:
    """``.parquet`` -> :func:`write_parquet`; ``.csv`` -> :func:`write_csv`; anything else -> JSONL."""
    if path.suffix.lower() == ".parquet":
        write_parquet(path, rows, metrics, source=source, details=details)
    elif path.suffix.lower() == ".csv":
        write_csv(path, rows, metrics, details=details)
    else:
        write_jsonl(path, rows)
