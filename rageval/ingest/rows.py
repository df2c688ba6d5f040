"""Reading user tables (QA sets, answer files) from CSV, JSON or JSONL, row by row.

A bad row never stops the others: it becomes a :class:`RowProblem` naming the file, the row
number (1-based: the first data row is row 1, the header of a CSV is row 0), the line of the file
(the number a spreadsheet or an editor shows: ``row 1 (line 2)`` in a CSV, ``row 1 (line 1)`` in a
JSONL file) and the column where known, and the reason; the good rows are kept. One convention
for QA sets, answers to score and ratings. A row over a :class:`rageval.ingest.limits.RowLimits`
limit (a field of more than 100,000 characters, nesting deeper than 32 levels) is rejected with
the limit and the setting that raises it (a .json array holding a row too deep for Python's
reader is read row by row, so only that row is rejected); a JSON integer of more than 4,300 digits (Python's
limit) is read as a float, infinite, and rejected where a number or text is expected. CSV cells
written by :func:`rageval.files.safe_cell` (``'=1``) read back as written (``=1``). A problem
with the whole file (no header, a JSON object where a list was expected, a required column
missing from every row) is one InputError.
RAGAS column names are accepted beside ours: ``user_input`` -> question, ``response`` ->
answer, ``retrieved_contexts`` -> contexts, ``reference``/``ground_truth(s)`` -> reference.
"""
from __future__ import annotations

import csv
import io
import json
import sys
from dataclasses import dataclass, field
from typing import Any, Iterable

from rageval.errors import InputError
from rageval.files import read_cell
from rageval.ingest.json_array import array_elements, array_lines
from rageval.ingest.fields import loads_json
from rageval.ingest.limits import LabelFileLimits, RowLimits
from rageval.text.hygiene import clean_value

ALIASES = {
    "user_input": "question",
    "query": "question",
    "response": "answer",
    "retrieved_contexts": "contexts",
    "ground_truth": "reference",
    "ground_truths": "reference",
    "references": "reference",
    "answers": "reference",
    "gold": "reference",
    "relevant_chunk_ids": "relevant_ids",
    "relevant_doc_ids": "relevant_ids",
}


@dataclass(frozen=True)
class RowProblem:
    """A problem with one row (``row`` 0: the header of a CSV file, shown as "header (line 1)").

    ``level`` is ``"error"`` when the row was rejected and ``"note"`` when it was kept after a
    repair (a lone surrogate replaced) or the note is about the file (columns not used).
    """

    source: str
    row: int
    reason: str
    column: str | None = None
    line: int | None = None
    level: str = "error"

    def __str__(self) -> str:
        where = f"{self.source}, row {self.row}" if self.row else f"{self.source}, header"
        if self.line is not None:
            where += f" (line {self.line})"
        if self.column:
            where += f", column {self.column!r}"
        return f"{where}: {self.reason}"


@dataclass
class Table:
    """A parsed user table: ``(row number, record)`` pairs, problems, and the columns found."""

    source: str
    records: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    problems: list[RowProblem] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)      # as written in the file, first-seen order
    lines: dict[int, int] = field(default_factory=dict)   # row number -> first line of the file
    first_rows: dict[str, int] = field(default_factory=dict)  # column -> the first row with a value in it

    def error(self, row: int, reason: str, column: str | None = None, level: str = "error") -> RowProblem:
        """A :class:`RowProblem` of this table's row ``row``, with its line."""
        return RowProblem(self.source, row, reason, column=column, line=self.lines.get(row), level=level)

    def names(self) -> set[str]:
        """The columns found, mapped through :data:`ALIASES` as the records' keys are."""
        return {_key(c) for c in self.columns}

    def require(self, column: str) -> None:
        """Raise one InputError when no row has ``column`` (instead of one error per row)."""
        if self.records and column not in self.names():
            found = ", ".join(repr(c) for c in self.columns) or "none"
            raise InputError(f"missing required column {column!r}; columns found: {found}", source=self.source)

    def note_unused(self, known: Iterable[str]) -> None:
        """Notes naming the columns no part of rageval reads (they are ignored, not lost): one per
        row where such columns first hold a value, so the note points at a row that has them (the
        header of a CSV file when no row does)."""
        known = set(known)
        extra = [c for c in self.columns if _key(c) not in known]
        by_row: dict[int, list[str]] = {}
        for c in extra:
            by_row.setdefault(self.first_rows.get(c, 0), []).append(c)
        for row, columns in sorted(by_row.items()):
            self.problems.append(RowProblem(
                self.source, row, f"column(s) {', '.join(repr(c) for c in columns)} not used "
                f"(known: {', '.join(sorted(known))})", line=self.lines.get(row, 1 if row == 0 else None),
                level="note"))


def _key(name: Any) -> str:
    k = str(name).strip().lower()
    return ALIASES.get(k, k)


def _decode(source: str, data: bytes) -> str:
    """The file's text: UTF-16 when it starts with a UTF-16 byte-order mark or has a NUL byte in
    most of its odd (or even) positions, else UTF-8 (a leading BOM dropped).

    A UTF-8 file with a stray NUL is UTF-8: its NULs are removed per cell, with a note on the
    row, by the hygiene step. (Trying UTF-16 on it instead "succeeded" with unreadable text,
    and every row vanished without a message.)
    """
    half = len(data) // 2
    utf16 = data.startswith((b"\xff\xfe", b"\xfe\xff")) or (
        half > 0 and max(data[1::2].count(0), data[0::2].count(0)) > half // 2)
    if utf16:
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            encoding = "utf-16"
        else:
            encoding = "utf-16-le" if data[1::2].count(0) >= data[0::2].count(0) else "utf-16-be"
        try:
            text = data.decode(encoding)
            if "\x00" not in text:  # NUL characters in "UTF-16" text: it was something else
                return text
        except UnicodeDecodeError:
            pass
    else:
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError:
            pass
    raise InputError("not valid UTF-8 or UTF-16 text; save the file as UTF-8", source=source)


def _csv(table: Table, text: str, dialect: str) -> list[tuple[int, Any]]:
    """CSV rows, strictly parsed so that a bad quote is reported instead of merging rows.

    An unclosed quote makes Python's csv read every later line into one cell (three rows
    become one question). Parsed with ``strict=True`` it raises instead; the record that
    opened the quote is reported (with its line and column) and parsing restarts on the next
    line, so the rows after it are kept.
    """
    lines = list(io.StringIO(text, newline=""))
    before = csv.field_size_limit(sys.maxsize)  # 128 KiB by default; RowLimits names the limit instead
    try:
        return _csv_rows(table, lines, dialect)
    finally:
        csv.field_size_limit(before)


def _csv_rows(table: Table, lines: list[str], dialect: str) -> list[tuple[int, Any]]:
    source = table.source
    reader = csv.reader(lines, dialect=dialect, strict=True)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise InputError(f"the header row is badly quoted ({exc})", source=source) from None
    if not header or not any(h.strip() for h in header):
        raise InputError("the CSV file has no header row", source=source)
    table.columns = [h.strip() for h in header]
    pos, n, out = reader.line_num, 0, []
    while pos < len(lines):
        reader = csv.reader(lines[pos:], dialect=dialect, strict=True)
        start = pos
        try:
            for cells in reader:
                line, start = start + 1, pos + reader.line_num
                if not cells:
                    continue  # a blank line is not a row
                n += 1
                table.lines[n] = line
                if len(cells) > len(header):
                    table.problems.append(RowProblem(source, n, f"{len(cells)} cells but the header has "
                                                   f"{len(header)} columns", line=line))
                    continue
                cells = [read_cell(c) for c in cells]
                out.append((n, dict(zip(table.columns, cells + [None] * (len(header) - len(cells))))))
            pos = len(lines)
        except csv.Error as exc:
            n += 1
            opened = list(csv.reader([lines[start]], dialect=dialect))
            col_index = max(len(opened[0]) - 1, 0) if opened else 0
            column = table.columns[col_index] if col_index < len(table.columns) else None
            if "unexpected end of data" in str(exc) or pos + reader.line_num >= len(lines):
                reason = ("unclosed quote: the quoted cell opened here never closes, so it would swallow "
                          "every later row; add the closing \" (the rows after it were read on their own)")
                pos = start + 1
            else:
                reason = f"badly quoted cell ({exc}); a quote inside a cell must be doubled (\"\")"
                pos = pos + reader.line_num
            table.problems.append(RowProblem(source, n, reason, column=column, line=start + 1))
    return out




def _depth(value: Any, limit: int) -> int:
    """How deeply lists and objects nest in ``value`` (a scalar is 0), counted up to ``limit + 1``."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (list, tuple, dict)):
            deepest = max(deepest, d)
            if d <= limit:
                stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return deepest


def _chars(value: Any) -> int:
    """Characters of every string (and key) inside ``value``."""
    total, stack = 0, [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            total += len(v)
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return total


def _over_limits(rec: dict[Any, Any], limits: RowLimits) -> tuple[str | None, str] | None:
    """(column, reason) when a row is over a limit, else None."""
    depth_error = limits.depth_error(_depth(rec, limits.max_depth))
    if depth_error:
        return None, depth_error
    for key, value in rec.items():
        field_error = limits.field_error(_chars(value))
        if field_error:
            return str(key)[:60], field_error
    return None


def read_table(source: str, data: bytes, *, limits: RowLimits | None = None) -> Table:
    """Parse ``data`` by the file's extension into a :class:`Table`.

    Keys are lower-cased, stripped and mapped through :data:`ALIASES`; every string goes
    through :func:`rageval.text.hygiene.clean_value` (a repaired row gets a note naming the
    column). Raises InputError when the file as a whole cannot be read (unknown type, bad
    encoding, a JSON file that is not a list of rows).
    """
    limits = limits or RowLimits.from_env()
    text = _decode(source, data)
    lower = source.lower()
    table = Table(source)
    records: list[tuple[int, Any]] = []
    if lower.endswith(".jsonl") or lower.endswith(".ndjson"):
        n = 0
        # JSON Lines are separated by "\n" only: str.splitlines() would also break at U+0085,
        # U+2028 and other characters that a JSON writer leaves unescaped inside strings.
        for line_no, line in enumerate(text.split("\n"), start=1):
            line = line.removesuffix("\r")
            if not line.strip():
                continue
            n += 1
            table.lines[n] = line_no
            try:
                records.append((n, loads_json(line)))
            except json.JSONDecodeError as exc:
                table.problems.append(table.error(n, f"not valid JSON ({exc.msg} at column {exc.colno}); "
                                                     "the other lines were read"))
            except RecursionError:
                table.problems.append(table.error(n, limits.depth_error(None) or ""))
    elif lower.endswith(".json"):
        try:
            value = loads_json(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})",
                             source=source) from exc
        except RecursionError:  # one row too deep for Python's reader: read the rows one by one
            elements = array_elements(text)
            if elements is None:
                raise InputError(f"{limits.depth_error(None)}; write one row per line in a .jsonl file so "
                                 "that only the deep row is rejected", source=source) from None
            value = []
            for n, (line_no, element) in enumerate(elements, start=1):
                table.lines[n] = line_no
                try:
                    records.append((n, loads_json(element)))
                except RecursionError:
                    table.problems.append(table.error(n, limits.depth_error(None) or ""))
        if isinstance(value, dict):
            inner = next((v for v in value.values() if isinstance(v, list)), None)
            if inner is None:
                keys = ", ".join(repr(k) for k in list(value)[:6])
                raise InputError(f"holds one JSON object (keys {keys}) where a list of rows was expected; "
                                 "write [{...}, {...}] or one object per line in a .jsonl file", source=source)
            value = inner
        if not isinstance(value, list):
            raise InputError(f"a JSON file must hold a list of objects, not a {type(value).__name__}",
                             source=source)
        if not records:
            records = list(enumerate(value, start=1))
            if text.lstrip().startswith("["):
                table.lines.update(array_lines(text))
    elif lower.endswith(".csv") or lower.endswith(".tsv"):
        records = _csv(table, text, "excel-tab" if lower.endswith(".tsv") else "excel")
    else:
        raise InputError("unsupported table type; use .csv, .tsv, .json or .jsonl", source=source)
    return add_records(table, records, limits=limits)


def add_records(table: Table, records: Iterable[tuple[int, Any]], *, limits: RowLimits | None = None) -> Table:
    """Add numbered rows to ``table`` the way :func:`read_table` does: keys cleaned and mapped
    through :data:`ALIASES`, values through ``clean_value``, a row that is not an object or is over
    ``limits`` (from the environment by default) a problem.

    Rows that come already parsed (an Arrow or pandas batch) go through here too, so they are
    read exactly as the same rows in a file would be.
    """
    limits = limits or RowLimits.from_env()
    seen_columns = dict.fromkeys(table.columns)
    for n, rec in records:
        if not isinstance(rec, dict):
            table.problems.append(table.error(n, f"row is a {type(rec).__name__}, not an object with named fields"))
            continue
        over = _over_limits(rec, limits)
        if over:
            table.problems.append(table.error(n, over[1] + "; row skipped", column=over[0]))
            continue
        clean: dict[str, Any] = {}
        for key, value in rec.items():
            key_text, _ = clean_value(str(key))
            seen_columns.setdefault(key_text.strip())
            if value not in (None, "") and key_text.strip() not in table.first_rows:
                table.first_rows[key_text.strip()] = n
            value, fixed = clean_value(value)
            if fixed.changed:
                table.problems.append(table.error(n, fixed.note() + "; row kept", column=key_text, level="note"))
            k = _key(key_text)
            if k not in clean or clean[k] in (None, ""):
                clean[k] = value
        table.records.append((n, clean))
    table.columns = [c for c in seen_columns if c]
    return table


def read_label_file(path: Any, *, limits: LabelFileLimits | None = None) -> bytes:
    """The bytes of a ratings or claim-labels file, its size checked before it is read (InputError past
    ``RAGEVAL_MAX_LABEL_FILE_MB``: :class:`rageval.ingest.limits.LabelFileLimits`)."""
    limits = limits or LabelFileLimits.from_env()
    error = limits.size_error(path.stat().st_size)
    if error:
        raise InputError(error, source=path.name)
    return path.read_bytes()


def read_label_table(source: str, data: bytes, *, limits: LabelFileLimits | None = None) -> Table:
    """:func:`read_table` of a ratings or claim-labels file, refused whole (InputError naming the limit
    and its setting) when it is larger than ``RAGEVAL_MAX_LABEL_FILE_MB`` (checked before parsing) or
    has more rows than ``RAGEVAL_MAX_LABEL_ROWS`` (checked before any row is matched to a run)."""
    limits = limits or LabelFileLimits.from_env()
    error = limits.size_error(len(data))
    if error:
        raise InputError(error, source=source)
    table = read_table(source, data)
    error = limits.rows_error(len(table.records) + len(table.problems))
    if error:
        raise InputError(error, source=source)
    return table
