"""Writing ``score`` output: JSONL (one object per row), CSV, or a Parquet part for sharded scoring.

Every file is written atomically (:func:`rageval.files.atomic_write`): a process killed while
writing ``part-007.parquet`` leaves no file of that name, never a partial one; ``-``, a FIFO or a
device (``/dev/stdout``) is streamed into and a symbolic link is followed. CSV cells that a
spreadsheet would run as formulas are neutralised (:func:`rageval.files.csv_text`); JSONL and
Parquet keep the exact text.

A team scoring a very large answer set splits it into shards and runs ``score`` on each
(``score shard-007.jsonl --out part-007.parquet``, on any machines); DuckDB then reads the parts
together: ``SELECT avg(token_f1) FROM read_parquet('part-*.parquet')``. Since every metric's
value depends only on its own row (see tests/test_properties.py), the parts together hold
exactly what scoring the whole file at once gives.

Each Parquet part has a fixed schema whatever its rows hold, so parts always union: ``id``
(string), per metric ``<metric>`` (double, null when not scored) and ``<metric>_status``
(string, null when ok), ``<metric>_coverage`` for a metric that counts decided claims
(:data:`rageval.metrics.coverage.COVERAGE_METRICS`), ``claims`` (JSON text, with ``--details``), ``source`` (the input
file the row came from) and ``record`` (JSON text: the answer as a project stores it, which
``import-scores`` reads back). ``score --engine ray`` writes parts of the same schema.
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
    """``id``, per metric ``<metric>``, ``<metric>_status`` (and ``<metric>_coverage`` for a claim
    metric), ``claims`` (JSON text, with ``--details``)."""
    import pandas as pd

    from rageval.metrics.coverage import COVERAGE_METRICS

    columns = ["id"] + [c for m in metrics for c in (m, f"{m}_status", f"{m}_coverage") if
                        not c.endswith("_coverage") or m in COVERAGE_METRICS] + (["claims"] if details else [])
    frame = pd.DataFrame([{c: (json.dumps(r.get(c), ensure_ascii=False) if c == "claims" and r.get(c) is not None
                               else r.get(c)) for c in columns} for r in rows], columns=columns)
    with atomic_write(path) as fh:
        fh.write(csv_text(frame))


def write_parquet(path: Path, rows: Sequence[dict[str, Any]], metrics: Sequence[str], *, source: str,
                  details: bool = False, records: Sequence[dict[str, Any] | None] | None = None) -> None:
    """One Parquet part with the fixed schema of :func:`rageval.scoring.unit.output_schema`."""
    import pyarrow.parquet as pq

    from rageval.scoring.unit import to_arrow

    table = to_arrow(rows, records if records is not None else [None] * len(rows), metrics, source=source,
                     details=details)
    import pyarrow as pa

    buffer = pa.BufferOutputStream()  # whole, then written: a pipe or terminal cannot seek
    pq.write_table(table, buffer)
    with atomic_write(path, "wb") as fh:
        fh.write(buffer.getvalue().to_pybytes())


def write_rows(path: Path, rows: Sequence[dict[str, Any]], metrics: Sequence[str], *, source: str,
               details: bool = False, records: Sequence[dict[str, Any] | None] | None = None) -> None:
    """``.parquet`` -> :func:`write_parquet`; ``.csv`` -> :func:`write_csv`; anything else -> JSONL."""
    if path.suffix.lower() == ".parquet":
        write_parquet(path, rows, metrics, source=source, details=details, records=records)
    elif path.suffix.lower() == ".csv":
        write_csv(path, rows, metrics, details=details)
    else:
        write_jsonl(path, rows)
