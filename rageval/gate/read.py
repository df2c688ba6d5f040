"""A scored file or baseline file, read row by row into a :class:`rageval.gate.scores.ScoreSet`.

The file is what ``rageval score --out`` writes (JSONL, CSV, Parquet) or a JSON array of the same
rows: an ``id`` column, one column per metric, optional ``<metric>_status`` columns
(``"unscored: no_contexts"``) and ``<metric>_coverage`` columns (a claim metric's share of decided
claims per answer, in [0, 1]; the file's coverage is their mean). Rules, each with its message:

- size and rows: :class:`rageval.ingest.limits.ScoreFileLimits` (checked before reading and while
  reading); JSONL, CSV and Parquet are streamed and only the id and the numbers are kept;
- ids: every row needs a non-empty ``id``; an id in two rows is an error that names both rows
  (``row 2 (line 2) and row 9 (line 9)``): the gate cannot tell which value is the answer's;
- a row that cannot be read (not JSON, not an object, no id) is rejected by its row number and
  counts as unscored on every metric;
- a value that is not sound (:mod:`rageval.metrics.ranges`: not a number, not finite, outside the
  metric's range) or that sits beside a status saying the metric did not score it is rejected
  on that metric, by id, and counted as unscored;
- metric columns: every column that is not an input column (:data:`NOT_METRICS`) and either names
  a registered metric or holds only numbers (a text column such as ``notes`` is not a metric).
"""
from __future__ import annotations

import csv
import json
import math
import sys
from array import array
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from rageval.errors import ConfigError
from rageval.files import read_cell
from rageval.metrics.ranges import Rejection, as_number, empty, problem, registered, sound
from rageval.ingest.limits import ScoreFileLimits

#: columns of a scored file that are not metrics
NOT_METRICS = {"id", "source", "claims", "aligncheck", "question", "answer", "contexts", "reference",
               "references", "retrieved_ids", "context_ids", "relevant_ids", "domain", "record"}
MAX_COLUMNS = 1000  # metric columns one file may have
Row = tuple[int, int, Any, str | None]  # row number, line (0: unknown), the record, why it is unreadable


class Collected:
    """Ids, values, statuses and rejections of the rows read so far (memory: a few numbers per row)."""

    def __init__(self, label: str):
        self.label = label
        self.ids: list[str] = []
        self.rows, self.lines = array("l"), array("l")
        self.values: dict[str, array] = {}
        self.problems: dict[str, dict[int, tuple[str, str]]] = {}  # metric -> row index -> (kind, detail)
        self.statuses: dict[str, dict[int, str]] = {}
        self.textual: set[str] = set()  # columns that held text: metrics only when registered
        self.unreadable: dict[int, str] = {}
        self.first: dict[str, int] = {}  # id -> row index
        self.duplicates: list[tuple[str, int, int]] = []
        self.repeated = 0
        self.coverage: dict[str, list] = {}  # metric -> [sum of the answers' coverage, answers with one]

    def where(self, i: int) -> str:
        line = self.lines[i]
        return f"{self.label} row {self.rows[i]}" + (f" (line {line})" if line else "")

    def add(self, n: int, line: int, rec: Any, unreadable: str | None) -> None:
        i = len(self.ids)
        rid = None
        if unreadable is None and not isinstance(rec, dict):
            unreadable = f"the row is a JSON {type(rec).__name__}, not an object with an id and metric columns"
        if unreadable is None:
            raw = next((v for k, v in rec.items() if str(k).strip().lower() == "id"), None)
            rid = None if empty(raw) or isinstance(raw, (dict, list, bool)) else str(raw).strip()
            if rid is None:
                unreadable = "the row has no id"
        self.ids.append(rid if rid is not None else f"(row {n})")
        self.rows.append(n)
        self.lines.append(line)
        if unreadable is not None:
            self.unreadable[i] = unreadable
            return
        if rid in self.first:
            self.repeated += 1
            if not self.duplicates:  # the first is named; the others counted
                self.duplicates.append((rid, self.first[rid], i))
        else:
            self.first[rid] = i
        for key, value in rec.items():
            self._cell(i, str(key).strip(), value)

    def _cell(self, i: int, key: str, value: Any) -> None:
        if key.lower() == "id" or key in NOT_METRICS:
            return
        if key.endswith("_coverage"):  # a claim metric's share of decided claims, per answer (not a metric)
            share = as_number(value)
            if share is not None and 0.0 <= share <= 1.0:
                total = self.coverage.setdefault(key[: -len("_coverage")], [0.0, 0])
                total[0], total[1] = total[0] + share, total[1] + 1
            return
        if key.endswith("_status"):
            if not empty(value) and str(value).strip().lower() != "ok":
                self.statuses.setdefault(key[: -len("_status")], {})[i] = str(value).strip()
            return
        if key in self.textual and not registered(key):
            return
        column = self.values.get(key)
        if column is None:
            if len(self.values) >= MAX_COLUMNS:
                raise ConfigError(f"{self.label}: more than {MAX_COLUMNS} metric columns; is this a scored file?")
            column = self.values[key] = array("d")
        column.extend([math.nan] * (i + 1 - len(column)))
        if empty(value):
            return
        if as_number(value) is None:
            self.textual.add(key)
            if not registered(key):  # a text column (notes, a label): not a metric at all
                del self.values[key]
                self.problems.pop(key, None)
                return
        found = problem(key, value)
        if found is None:
            column[i] = sound(key, value)
        else:
            self.problems.setdefault(key, {})[i] = found


def _limit_rows(label: str, rows: Iterator[Row], limits: ScoreFileLimits) -> Iterator[Row]:
    for count, row in enumerate(rows, start=1):
        error = limits.rows_error(count)
        if error:
            raise ConfigError(f"{label}: {error}")
        yield row


def _int(digits: str) -> int | float:
    return int(digits) if len(digits) <= 4300 else float(digits)


def _jsonl(path: Path) -> Iterator[Row]:
    n = 0
    with path.open("rb") as fh:
        for line_no, raw in enumerate(fh, start=1):
            if line_no == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            if not raw.strip():
                continue
            n += 1
            try:
                yield n, line_no, json.loads(raw.decode("utf-8"), parse_int=_int), None
            except UnicodeDecodeError:
                yield n, line_no, None, "the line is not UTF-8 text"
            except RecursionError:
                yield n, line_no, None, "the row is nested too deeply to read"
            except ValueError as exc:
                yield n, line_no, None, f"not valid JSON ({getattr(exc, 'msg', exc)})"


def _csv(path: Path, dialect: str) -> Iterator[Row]:
    before = csv.field_size_limit(sys.maxsize)
    try:
        with path.open("r", encoding="utf-8-sig", newline="") as fh:
            reader = csv.reader(fh, dialect=dialect, strict=True)
            header = [h.strip() for h in next(reader, [])]
            if not any(header):
                raise ConfigError(f"{path}: the CSV file has no header row")
            n, start = 0, reader.line_num + 1
            for cells in reader:
                if cells:
                    n += 1
                    if len(cells) > len(header):
                        yield n, start, None, f"{len(cells)} cells but the header has {len(header)} columns"
                    else:
                        yield n, start, dict(zip(header, (read_cell(c) for c in cells))), None
                start = reader.line_num + 1
    except csv.Error as exc:
        raise ConfigError(f"{path}: badly quoted CSV near line {reader.line_num} ({exc})") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start:exc.start + 1].hex()}); "
                          "save it as UTF-8") from None
    finally:
        csv.field_size_limit(before)


def _json(path: Path) -> Iterator[Row]:
    try:
        value = json.loads(path.read_bytes().decode("utf-8-sig"), parse_int=_int)
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text; save it as UTF-8") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to read; write one row per line in a .jsonl file") from None
    except ValueError as exc:
        raise ConfigError(f"{path}: not valid JSON ({getattr(exc, 'msg', exc)})") from None
    if isinstance(value, dict):
        value = next((v for v in value.values() if isinstance(v, list)), value)
    if not isinstance(value, list):
        raise ConfigError(f"{path}: a JSON file of scores must hold a list of rows, not a {type(value).__name__}")
    for n, rec in enumerate(value, start=1):
        yield n, 0, rec, None


def _parquet(path: Path, limits: ScoreFileLimits) -> Iterator[Row]:
    import pyarrow.parquet as pq

    try:
        reader = pq.ParquetFile(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a file that is not Parquet
        raise ConfigError(f"{path}: not a readable Parquet file ({type(exc).__name__}: {exc})") from None
    error = limits.rows_error(reader.metadata.num_rows)
    if error:
        raise ConfigError(f"{path}: {error}")
    columns = [c for c in reader.schema_arrow.names if c not in ("record", "claims")]
    n = 0
    for batch in reader.iter_batches(batch_size=65_536, columns=columns):
        for rec in batch.to_pylist():
            n += 1
            yield n, 0, rec, None


def read_rows(path: Path, limits: ScoreFileLimits | None = None) -> Collected:
    """Every row of the scored file ``path`` (module docstring); a ConfigError for the file as a whole."""
    limits = limits or ScoreFileLimits.from_env()
    if not path.is_file():
        raise ConfigError(f"{path}: no such file")
    suffix = path.suffix.lower()
    error = limits.size_error(path.stat().st_size, whole=suffix == ".json")
    if error:
        raise ConfigError(f"{path}: {error}")
    if suffix in (".jsonl", ".ndjson"):
        rows = _jsonl(path)
    elif suffix in (".csv", ".tsv"):
        rows = _csv(path, "excel-tab" if suffix == ".tsv" else "excel")
    elif suffix == ".json":
        rows = _json(path)
    elif suffix == ".parquet":
        rows = _parquet(path, limits)
    else:
        raise ConfigError(f"{path}: unsupported table type; use .jsonl, .csv, .tsv, .json or .parquet")
    out = Collected(path.name)
    for n, line, rec, unreadable in _limit_rows(str(path), rows, limits):
        out.add(n, line, rec, unreadable)
    if out.duplicates:
        rid, a, b = out.duplicates[0]
        more = f" ({out.repeated - 1} more repeated id(s))" if out.repeated > 1 else ""
        raise ConfigError(f"{path}: id {rid!r} is in {out.where(a).removeprefix(out.label + ' ')} and "
                          f"{out.where(b).removeprefix(out.label + ' ')}{more}; a scored file has one row per "
                          "answer, so the gate cannot tell which value is the answer's")
    return out


def metrics_of(c: Collected) -> list[str]:
    """The metric columns (module docstring): a value, a rejection or a status on at least one row."""
    return sorted(m for m, col in c.values.items()
                  if not np.isnan(np.frombuffer(col, dtype=float)).all() or c.problems.get(m) or c.statuses.get(m))


def reasons_and_rejections(c: Collected, metrics: list[str]) -> tuple[dict[str, Counter], list[Rejection]]:
    """Per metric, why each unscored answer is unscored; and every rejection, in row order."""
    reasons: dict[str, Counter] = {m: Counter() for m in metrics}
    rejected: list[tuple[int, Rejection]] = []
    for i, why in c.unreadable.items():
        rejected.append((i, Rejection(c.where(i), None, None, why)))
        for m in metrics:
            reasons[m]["rejected: unreadable row"] += 1
    for m in metrics:
        column, bad, status = c.values[m], c.problems.get(m, {}), c.statuses.get(m, {})
        column.extend([math.nan] * (len(c.ids) - len(column)))
        for i, s in status.items():
            if not math.isnan(column[i]):  # a value beside "failed: ..." / "unscored: ...": which is true?
                bad[i] = ("value beside a status", f"has the value {column[i]!r} and the status {s!r}")
                column[i] = math.nan
        for i, (kind, detail) in bad.items():
            reasons[m][f"rejected: {kind}"] += 1
            rejected.append((i, Rejection(c.where(i), c.ids[i], m, detail)))
        for i in np.flatnonzero(np.isnan(np.frombuffer(column, dtype=float))).tolist():
            if i not in bad and i not in c.unreadable:
                reasons[m][status.get(i, "no value").removeprefix("unscored: ")] += 1
    rejected.sort(key=lambda pair: pair[0])
    return {m: r for m, r in reasons.items() if r}, [r for _, r in rejected]
