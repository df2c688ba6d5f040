"""Files rageval writes: atomically, and CSV cells a spreadsheet will not run as formulas.

**Atomic writes.** :func:`atomic_write` writes to a temporary name in the destination's own
folder (``.part-7f3a.parquet.<host>-<pid>.<random>.tmp`` beside ``part-7f3a.parquet``), flushes and
fsyncs it, then renames it over the final name with :func:`os.replace`, which is atomic on one file
system. A process killed midway, a disk that fills, or a writer that raises leaves the final name
as it was (absent, or the previous complete file); a glob such as ``part-*.parquet`` never sees a
partial part. Every output file of the CLI goes through it (``score --out``, ``export --out``,
``report --out``, ``ratings export --out``, ``check --junit-xml / --markdown``). It respects what
the target is:

- a **symbolic link** is followed: the file it points to is replaced, atomically, in *its* folder
  (the link stays a link);
- ``-`` is standard output, and an existing **FIFO, character device or socket** (``/dev/stdout``,
  ``/dev/null``, a named pipe), or any path under ``/dev/`` or ``/proc/``, is streamed into
  (opened for appending, so a shell's ``>`` file is never clobbered from the start): it is never
  replaced by a regular file;
- a temporary file left behind by a killed write (a process cannot clean up after SIGKILL) is
  removed by the next write into the same folder: only names of :data:`TEMP_NAME`'s pattern, owned
  by this user, whose process is gone (same host) or that are older than :data:`STALE_AFTER`
  seconds (any host: a shared folder of parts may be written from several machines).
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
import hashlib
import io
import os
import re
import socket
import stat
import sys
import tempfile
import time
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


STDOUT = "-"
#: what a temporary file of :func:`atomic_write` is called: ``.<name>.<host>-<pid>.<random>.tmp``
TEMP_NAME = re.compile(r"^\.(?P<name>.+)\.(?P<host>[0-9a-f]{6})-(?P<pid>\d+)\.[a-z0-9_]+\.tmp$")
STALE_AFTER = 24 * 3600.0
_HOST = hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:6]
_SWEPT: set[str] = set()  # folders already swept by this process


def is_stream(path: str | Path) -> bool:
    """Whether writing to ``path`` streams into it rather than replacing a file (module docstring)."""
    text = str(path)
    if text == STDOUT or text.startswith(("/dev/", "/proc/")):
        return True
    try:
        mode = os.stat(path).st_mode  # follows links: /dev/stdout -> the pipe or terminal
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def sweep_stale_temps(folder: str | Path, *, now: float | None = None) -> list[str]:
    """Remove this user's temporary files of killed writes from ``folder`` (module docstring); their names.

    Each folder is swept once per process (the first write into it), so writing many parts into one
    folder lists it once.
    """
    key = os.path.realpath(folder)
    if key in _SWEPT:
        return []
    _SWEPT.add(key)
    now = time.time() if now is None else now
    removed = []
    try:
        entries = list(os.scandir(key))
    except OSError:
        return removed
    for entry in entries:
        found = TEMP_NAME.match(entry.name)
        if not found:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
            continue
        gone = found["host"] == _HOST and int(found["pid"]) != os.getpid() and not _alive(int(found["pid"]))
        if gone or now - st.st_mtime > STALE_AFTER:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed.append(entry.name)
    return removed


@contextlib.contextmanager
def _stream(path: str | Path, mode: str, **kwargs: Any) -> Iterator[IO[Any]]:
    """Standard output, or the FIFO / device ``path``, written in place (appending)."""
    if str(path) == STDOUT:
        sys.stdout.flush()
        raw = getattr(sys.stdout, "buffer", None)
        if "b" in mode:
            yield raw if raw is not None else sys.stdout
        elif raw is None:
            yield sys.stdout
        else:
            wrapper = io.TextIOWrapper(raw, encoding=kwargs.get("encoding", "utf-8"), newline=kwargs.get("newline"))
            try:
                yield wrapper
                wrapper.flush()
            finally:
                wrapper.detach()  # standard output stays open
        sys.stdout.flush()
        return
    with open(path, mode.replace("w", "a"), **kwargs) as fh:
        yield fh


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", **kwargs: Any) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing; on success rename it to ``path``.

    On any exception (including KeyboardInterrupt) the temporary file is removed and the
    exception goes on; ``path`` is never left half written. Text mode defaults to UTF-8. A
    symbolic link is followed, and ``-``, a FIFO or a device is streamed into (module docstring).
    """
    if "b" not in mode:
        kwargs.setdefault("encoding", "utf-8")
    if is_stream(path):
        with _stream(path, mode, **kwargs) as fh:
            yield fh
        return
    target = Path(os.path.realpath(path))  # a link: the file it points to, replaced in its own folder
    sweep_stale_temps(target.parent)
    try:
        keep_mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        keep_mode = 0o666 & ~_UMASK
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:120]}.{_HOST}-{os.getpid()}.", suffix=".tmp",
                               dir=target.parent)
    try:
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, keep_mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` through :func:`atomic_write`."""
    with atomic_write(path, "wb" if isinstance(data, bytes) else "w") as fh:
        fh.write(data)
