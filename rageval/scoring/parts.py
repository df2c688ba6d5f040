"""Deterministic parts of the input, Parquet parts out, and the manifest that makes a run resumable.

A **part** is a run of consecutive rows of one input file: up to ``part_rows`` non-blank lines of
a JSONL file (found by byte offset, so a worker reads only its own lines), or up to ``part_rows`` rows
of one Parquet row group. Inputs are listed in sorted order and parts are named by position,
``part-<file:05d>-<chunk:05d>.parquet``, so the same inputs and ``part_rows`` always give the
same names. Each part's scores are written to ``OUT_DIR/<name>.parquet`` through a temporary
file and a rename: a part file exists only when it is whole. Scoring again skips the parts whose
file exists; ``_plan.json`` (written first) refuses an OUT_DIR scored with other inputs or
settings, and ``_SUCCESS`` (written last) holds the counts once every part is there: rows,
``rejected`` (rows with no record: unreadable input, or a batch or worker that failed) and per
metric the rows ``ok``, ``unscored`` and ``failed``.
"""
from __future__ import annotations

import glob
import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Sequence

from rageval.errors import ConfigError
from rageval.files import atomic_write, write_atomic
from rageval.ingest.limits import RowLimits
from rageval.ingest.rows import Table, add_records, read_table

PLAN_FILE, MANIFEST_FILE = "_plan.json", "_SUCCESS"
KINDS = {".parquet": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl"}


@dataclass(frozen=True)
class Part:
    """Rows ``first_row .. first_row + rows - 1`` (1-based, as ``score`` numbers them) of ``path``."""

    name: str
    path: str
    kind: str          # parquet | jsonl
    first_row: int
    rows: int
    group: int = -1    # parquet: the row group
    start: int = 0     # parquet: offset in the row group; jsonl: byte offset
    length: int = 0    # jsonl: bytes
    first_line: int = 0  # jsonl: the file's line number where the part starts


def list_inputs(spec: str) -> list[Path]:
    """A JSONL or Parquet file, a folder of ``*.parquet`` shards, or a glob; sorted."""
    path = Path(spec)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() == ".parquet" and p.is_file())
        if not files:
            raise ConfigError(f"{spec}: the folder holds no *.parquet shards")
    elif path.is_file():
        files = [path]
    else:
        files = sorted(Path(p) for p in glob.glob(spec) if Path(p).is_file())
        if not files:
            raise ConfigError(f"{spec}: no such file, folder or matching files")
    bad = [str(p) for p in files if p.suffix.lower() not in KINDS]
    if bad:
        raise ConfigError(f"{bad[0]}: --engine ray reads .jsonl or .parquet files; convert CSV/JSON to JSONL first "
                          "(or score it without --engine)")
    return files


def plan_parts(files: Sequence[Path], part_rows: int) -> list[Part]:
    """The parts of ``files`` (see the module docstring); reads only Parquet footers and JSONL line ends."""
    if part_rows < 1:
        raise ConfigError(f"part_rows={part_rows} must be at least 1")
    parts: list[Part] = []
    for i, path in enumerate(files):
        kind = KINDS[path.suffix.lower()]
        spans = _parquet_spans(path, part_rows) if kind == "parquet" else _jsonl_spans(path, part_rows)
        for j, span in enumerate(spans):
            parts.append(Part(f"part-{i:05d}-{j:05d}", str(path), kind, *span))
    return parts


def _parquet_spans(path: Path, part_rows: int) -> Iterable[tuple[int, int, int, int, int, int]]:
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).metadata
    before = 0
    for g in range(meta.num_row_groups):
        n = meta.row_group(g).num_rows
        for start in range(0, n, part_rows):
            yield before + start + 1, min(part_rows, n - start), g, start, 0, 0
        before += n


def _jsonl_spans(path: Path, part_rows: int) -> Iterable[tuple[int, int, int, int, int, int]]:
    """Rows are the non-blank lines, numbered from 1 as :func:`rageval.ingest.rows.read_table` does."""
    before = line = offset = rows = 0
    start_offset, start_line = 0, 1
    with open(path, "rb") as f:
        for raw in f:
            line += 1
            offset += len(raw)
            rows += bool(raw.strip())
            if rows == part_rows:
                yield before + 1, rows, -1, start_offset, offset - start_offset, start_line
                before, rows, start_offset, start_line = before + rows, 0, offset, line + 1
    if rows:
        yield before + 1, rows, -1, start_offset, offset - start_offset, start_line


def read_part(part: Part, limits: RowLimits | None = None) -> Table:
    """The rows of ``part`` as a :class:`rageval.ingest.rows.Table`, numbered as in the whole file;
    a row over ``limits`` (from the environment by default) is a problem, as in ``score``."""
    source = Path(part.path).name
    if part.kind == "jsonl":
        with open(part.path, "rb") as f:
            f.seek(part.start)
            data = f.read(part.length)
        local = read_table(source, data, limits=limits)
        shift, line_shift = part.first_row - 1, part.first_line - 1
        table = Table(source, columns=local.columns)
        table.records = [(n + shift, rec) for n, rec in local.records]
        table.lines = {n + shift: line + line_shift for n, line in local.lines.items()}
        table.problems = [replace(e, row=e.row + shift if e.row else 0,
                                  line=None if e.line is None else e.line + line_shift) for e in local.problems]
        return table
    import pyarrow.parquet as pq

    from rageval.scoring.unit import batch_records

    batch = pq.ParquetFile(part.path).read_row_group(part.group).slice(part.start, part.rows)
    return add_records(Table(source), enumerate(batch_records(batch), start=part.first_row), limits=limits)


# ---------------------------------------------------------------- output folder

def part_path(out_dir: Path, name: str) -> Path:
    return out_dir / f"{name}.parquet"


def part_files(out_dir: Path) -> list[Path]:
    return sorted(out_dir.glob("part-*.parquet"))


def write_part(out_dir: Path, name: str, table: Any) -> None:
    """Write ``table`` as part ``name`` through :func:`rageval.files.atomic_write`, so a part is whole or
    absent (and a part's temporary file left by a killed worker is removed by a later write)."""
    import pyarrow.parquet as pq

    with atomic_write(part_path(out_dir, name), "wb") as fh:
        pq.write_table(table, fh)


def start_plan(out_dir: Path, plan: dict[str, Any], parts: Sequence[Part]) -> None:
    """Write ``_plan.json``, or check that the one there describes the same inputs and settings."""
    out_dir.mkdir(parents=True, exist_ok=True)
    wanted = {"plan": plan, "parts": [asdict(p) for p in parts]}
    path = out_dir / PLAN_FILE
    if path.exists():
        if json.loads(path.read_text(encoding="utf-8")) != json.loads(json.dumps(wanted)):
            raise ConfigError(f"{out_dir} holds parts scored from other inputs or with other settings "
                              f"(see {path}); choose another --out folder or delete this one")
        return
    if part_files(out_dir):
        raise ConfigError(f"{out_dir} already holds part-*.parquet files of another run; choose another --out folder")
    path.write_text(json.dumps(wanted, indent=1), encoding="utf-8")


def finish(out_dir: Path, plan: dict[str, Any], parts: Sequence[Part], seconds: float) -> dict[str, Any]:
    """Count every part's rows and statuses; write them as ``_SUCCESS`` (JSON) and return them."""
    import pyarrow.parquet as pq

    names = plan["metric_names"]
    counts = {m: {"ok": 0, "unscored": 0, "failed": 0} for m in names}
    rows = rejected = 0
    for part in parts:
        path = part_path(out_dir, part.name)
        table = pq.read_table(path, columns=[f"{m}_status" for m in names])
        rows += table.num_rows
        rejected += _nulls(path, "record")
        for m in names:
            for status in table.column(f"{m}_status").to_pylist():
                counts[m]["ok" if status is None else status.split(":", 1)[0]] += 1
    manifest = {"rows": rows, "rejected": rejected, "parts": len(parts), "inputs": sorted({p.path for p in parts}),
                "metrics": counts, "plan": plan, "seconds": round(seconds, 1)}
    write_atomic(out_dir / MANIFEST_FILE, json.dumps(manifest, indent=1))
    return manifest


def _nulls(path: Path, column: str) -> int:
    """Nulls in ``column`` of a part, from the row groups' statistics (no data read)."""
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).metadata
    j = meta.schema.names.index(column)
    return sum(meta.row_group(g).column(j).statistics.null_count for g in range(meta.num_row_groups))


def read_manifest(out_dir: Path) -> dict[str, Any]:
    path = out_dir / MANIFEST_FILE
    if not path.is_file():
        raise ConfigError(f"{out_dir}: no {MANIFEST_FILE} manifest, so the scoring did not finish; "
                          "run the same `rageval score ... --engine ray --out` again to complete it")
    return json.loads(path.read_text(encoding="utf-8"))
