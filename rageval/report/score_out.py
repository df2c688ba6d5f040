"""Writing ``score`` output: JSONL (one object per row) or a Parquet part for sharded scoring.

A team scoring a very large answer set splits it into shards and runs ``score`` on each
(``score shard-007.jsonl --out part-007.parquet``, on any machines); DuckDB then reads the parts
together: ``SELECT avg(token_f1) FROM read_parquet('part-*.parquet')``. Since every metric's
value depends only on its own row (see tests/test_properties.py), the parts together hold
exactly what scoring the whole file at once gives.

Each Parquet part has a fixed schema whatever its rows hold, so parts always union: ``id``
(string), per metric ``<metric>`` (double, null when not scored) and ``<metric>_status``
(string, null when ok), ``claims`` (JSON text, with ``--details``), ``source`` (the input
file the row came from) and ``record`` (JSON text: the answer as a project stores it, which
``import-scores`` reads back). ``score --engine ray`` writes parts of the same schema.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence


def write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def write_parquet(path: Path, rows: Sequence[dict[str, Any]], metrics: Sequence[str], *, source: str,
                  details: bool = False, records: Sequence[dict[str, Any] | None] | None = None) -> None:
    """One Parquet part with the fixed schema of :func:`rageval.scale.unit.output_schema`."""
    import pyarrow.parquet as pq

    from rageval.scale.unit import to_arrow

    pq.write_table(to_arrow(rows, records if records is not None else [None] * len(rows), metrics,
                            source=source, details=details), path)


def write_rows(path: Path, rows: Sequence[dict[str, Any]], metrics: Sequence[str], *, source: str,
               details: bool = False, records: Sequence[dict[str, Any] | None] | None = None) -> None:
    """``.parquet`` -> :func:`write_parquet`; anything else -> JSONL."""
    if path.suffix.lower() == ".parquet":
        write_parquet(path, rows, metrics, source=source, details=details, records=records)
    else:
        write_jsonl(path, rows)
