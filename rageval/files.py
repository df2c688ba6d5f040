"""Files rageval writes: atomically, and CSV cells a spreadsheet will not run as formulas.

**Atomic writes.** :func:`atomic_write` writes to a temporary name in the destination's own
folder (``.part-7f3a.parquet.tmp`` beside ``part-7f3a.parquet``), flushes and fsyncs it, then
renames it over the final name with :func:`os.replace`, which is atomic on one file system. A
process killed midway, a disk that fills, or a writer that raises leaves the final name as it
was (absent, or the previous complete file) and no temporary file behind; a glob such as
``part-*.parquet`` never sees a partial part. Every output file of the CLI goes through it
(``score --out``, ``export --out``, ``report --out``, ``ratings export --out``).

**CSV cells.** A cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is
run as a formula by Excel, LibreOffice and Google Sheets (``=HYPERLINK(...)``,
``+cmd|' /C calc'!A0``). OWASP's rule for CSV injection: prefix such a cell with a single quote,
which spreadsheets show as text and hide. :func:`safe_cell` does that to strings only (numbers stay
numbers, so ``-2`` as a number is written as ``-2``), and also to a string that already begins with
quotes before such a character, so :func:`read_cell` (used by every CSV reader of rageval) undoes
it exactly: ``read_cell(safe_cell(s)) == s`` for every string. JSONL and Parquet keep the exact
text. :func:`csv_text` is the one CSV writer of rageval (exports, ratings, the app's downloads).

>>> safe_cell("=HYPERLINK(1)"), safe_cell("-2+3"), safe_cell(-2), safe_cell("'=x"), safe_cell("plain")
("'=HYPERLINK(1)", "'-2+3", -2, "''=x", 'plain')
>>> all(read_cell(safe_cell(s)) == s for s in ("=1", "'=1", "''@a", "'", "a", "", "\\tx"))
True
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Any, Iterator

#: first characters that make a spreadsheet read a cell as a formula (OWASP CSV injection)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_UMASK = os.umask(0o022)
os.umask(_UMASK)  # read once: mkstemp makes 0600 files; the output gets the usual 0666 & ~umask


def _formula(text: str) -> bool:
    """Whether ``text`` starts a formula, or is quotes followed by one (so the prefix round-trips)."""
    return text.lstrip("'").startswith(FORMULA_START)


def safe_cell(value: Any) -> Any:
    """``value`` with a ``'`` in front when it is a string a spreadsheet would run as a formula."""
    if isinstance(value, str) and _formula(value):
        return "'" + value
    return value


def read_cell(value: Any) -> Any:
    """The inverse of :func:`safe_cell` for a cell read back from a CSV file."""
    if isinstance(value, str) and value.startswith("'") and _formula(value[1:]):
        return value[1:]
    return value


def csv_text(frame: Any, *, index: bool = False) -> str:
    """A pandas DataFrame as CSV text with every text cell (and header) through :func:`safe_cell`.

    Numeric columns are left as they are; in an object column only strings are changed. Lines end
    with CRLF, as RFC 4180 and spreadsheets expect.
    """
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    flat = frame.copy()
    for col in flat.columns:
        if not (is_numeric_dtype(flat[col]) or is_bool_dtype(flat[col])):
            flat[col] = flat[col].astype(object).map(safe_cell)
    flat.columns = [safe_cell(str(c)) for c in flat.columns]
    if index:
        flat.index = [safe_cell(i) for i in flat.index]
    # "\r\n" (RFC 4180): the csv module quotes a cell holding any character of the line terminator,
    # so a lone carriage return inside a cell is quoted too (with "\n" it was written bare and split the row)
    return flat.to_csv(index=index, lineterminator="\r\n")


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", **kwargs: Any) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing; on success rename it to ``path``.

    On any exception (including KeyboardInterrupt) the temporary file is removed and the
    exception goes on; ``path`` is never left half written. Text mode defaults to UTF-8.
    """
    path = Path(path)
    if "b" not in mode:
        kwargs.setdefault("encoding", "utf-8")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent if str(path.parent) else ".")
    try:
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` through :func:`atomic_write`."""
    with atomic_write(path, "wb" if isinstance(data, bytes) else "w") as fh:
        fh.write(data)
