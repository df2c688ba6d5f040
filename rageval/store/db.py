"""The DuckDB connection and the migrations runner.

DuckDB lets one process hold a file open for writing, and a second process cannot even open
it read-only meanwhile. So nothing here keeps a file open while idle: :func:`connect` attaches
the file for one unit of work and detaches it (which checkpoints the write-ahead log and releases
the lock). On a lock conflict it retries with backoff for up to ``RAGEVAL_DB_WAIT`` seconds
(default 30), then raises :class:`ProjectBusyError`.

The files are attached to one in-memory DuckDB per process, made on first use: creating a DuckDB
instance costs about 15 ms whatever the file, attaching and detaching a file about 3 ms, and a
page of the app or a run makes dozens of units of work. Each unit gets its own cursor (a DuckDB
connection of its own: transactions, ``USE`` and registered views are per cursor) whose default
database is the attached file, so every query names tables without a catalog.

Migrations are the ordered files ``migrations/NNN_name.sql``; each is applied once and recorded
in ``schema_version``, every pending one in one transaction (a database is never left between two
schemas). All SQL of rageval lives in this package
(``db.py`` here, the table-specific modules beside it) and binds every value as a parameter.

**A full disk** makes DuckDB fail a commit with ``No space left on device``, and then report the
failed rollback ("cannot rollback - no transaction is active") or the failed checkpoint of the
detach, which hide the cause. :func:`connect` looks through the chain of every error of a unit of
work for ``ENOSPC`` and raises :class:`StoreFullError` instead, naming the folder and the space left.
"""
from __future__ import annotations

import errno
import hashlib
import os
import random
import shutil
import tempfile
import threading
import time
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any, Iterator, Sequence

import duckdb

from rageval.settings import value as setting
from rageval.errors import ProjectBusyError, StoreFullError

_MIGRATED: set[str] = set()
_LOCK = threading.RLock()  # one writer per process at a time; DuckDB serialises processes itself


def migrations() -> list[tuple[int, str, str]]:
    """Return ``(version, name, sql)`` for every migration file, in order."""
    found = []
    for entry in resources.files("rageval.store.migrations").iterdir():
        if entry.name.endswith(".sql"):
            version = int(entry.name.split("_", 1)[0])
            found.append((version, entry.name, entry.read_text(encoding="utf-8")))
    return sorted(found)


_INSTANCE: list[duckdb.DuckDBPyConnection] = []  # the process's in-memory DuckDB, made on first use
_ORPHANED: list[duckdb.DuckDBPyConnection] = []  # a parent's instance after a fork, never used or destroyed
_ATTACHED: dict[str, int] = {}  # resolved file path -> how many units of work are using it


def _instance() -> duckdb.DuckDBPyConnection:
    if not _INSTANCE:
        # an in-memory database would spill to ./.tmp under the current folder: use the system's
        spill = Path(tempfile.gettempdir()) / f"rageval-duckdb-{os.getpid()}"
        _INSTANCE.append(duckdb.connect(":memory:", config={"temp_directory": str(spill)}))
    return _INSTANCE[0]


def _forget_after_fork() -> None:
    """A forked child makes its own instance (its parent's threads and file locks are not its own);
    the parent's object is kept referenced, never destroyed in the child."""
    _ORPHANED.extend(_INSTANCE)
    _INSTANCE.clear()
    _ATTACHED.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


def _alias(key: str) -> str:
    """The catalog name of the file at resolved path ``key`` in the process's instance."""
    return "rageval_" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]


def _attach(key: str) -> None:
    """Attach the file at resolved path ``key`` (once per process, counted); on a lock held by
    another process retry with backoff up to ``RAGEVAL_DB_WAIT`` seconds."""
    if key in _ATTACHED:
        _ATTACHED[key] += 1
        return
    quoted = key.replace("'", "''")
    wait = setting("RAGEVAL_DB_WAIT")
    deadline = time.monotonic() + wait
    delay = 0.02
    while True:
        try:
            _instance().execute(f"ATTACH '{quoted}' AS {_alias(key)}")
            break
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or time.monotonic() >= deadline:
                if "lock" in str(exc).lower():
                    raise ProjectBusyError(
                        f"the project database {key} is in use by another process; "
                        f"waited {wait:g} s (set RAGEVAL_DB_WAIT to wait longer)"
                    ) from exc
                raise
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 1.0)
    _ATTACHED[key] = 1


def _detach(key: str) -> None:
    """End one unit of work on ``key``; the last one detaches the file (checkpoint, lock released)."""
    _ATTACHED[key] -= 1
    if _ATTACHED[key] == 0:
        del _ATTACHED[key]
        _instance().execute(f"DETACH {_alias(key)}")


def _migrate(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(
        "CREATE TABLE IF NOT EXISTS schema_version ("
        " version INTEGER PRIMARY KEY, name VARCHAR NOT NULL,"
        " applied TIMESTAMP DEFAULT current_timestamp)"
    )
    done = {row[0] for row in con.execute("SELECT version FROM schema_version").fetchall()}
    pending = [m for m in migrations() if m[0] not in done]
    if not pending:
        return
    # every pending migration in one transaction: the database moves to the latest schema or stays
    # as it was (a new project's twelve migrations also commit once, not twelve times)
    con.execute("BEGIN TRANSACTION")
    try:
        for version, name, sql in pending:
            con.execute(sql)
            con.execute("INSERT INTO schema_version (version, name) VALUES (?, ?)", [version, name])
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise


def change_stamp(path: str | Path) -> tuple:
    """A value that changes whenever the database at ``path`` changes, read without opening it.

    DuckDB writes a commit to the ``.wal`` file beside the database (or, on close, checkpoints it
    into the file itself), so the (mtime, size) pairs of both files change with every write made
    by any process, while reads leave them alone. The app keys its cached queries on it.
    """
    out = []
    for f in (Path(path), Path(f"{path}.wal")):
        try:
            s = f.stat()
            out.append((s.st_mtime_ns, s.st_size))
        except OSError:
            out.append(None)
    return tuple(out)


_SHARED = threading.local()  # path -> the connection a session() holds open in this thread


@contextmanager
def connect(path: str | Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """Open the project database for one unit of work, migrated to the latest schema.

    Inside :func:`session` for the same file, the session's connection is reused (not closed here).
    """
    path = Path(path)
    shared = getattr(_SHARED, "cons", {}).get(str(path))
    if shared is not None:
        with _LOCK:
            yield shared
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    key = os.path.realpath(path)
    with _LOCK, _disk_full_named(path):
        _attach(key)
        try:
            con = _instance().cursor()
            try:
                con.execute(f"USE {_alias(key)}")
                if key not in _MIGRATED:
                    _migrate(con)
                    _MIGRATED.add(key)
                yield con
            finally:
                con.close()
        finally:
            _detach(key)


_NO_SPACE = ("no space left on device", "disk full", "not enough space")


def _no_space(exc: BaseException | None) -> bool:
    """Whether ``exc`` or an error it was raised from or during is a full disk (ENOSPC)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if getattr(exc, "errno", None) == errno.ENOSPC or any(t in str(exc).lower() for t in _NO_SPACE):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


@contextmanager
def _disk_full_named(path: Path) -> Iterator[None]:
    """Turn a database error caused by a full disk into :class:`StoreFullError` (where, how much is free)."""
    try:
        yield
    except (duckdb.Error, OSError) as exc:
        if not _no_space(exc):
            raise
        try:
            free = f"{shutil.disk_usage(path.parent).free / 2**20:.1f} MB free"
        except OSError:
            free = "free space unknown"
        raise StoreFullError(f"the disk holding the project database {path} is full ({free} in {path.parent}); "
                             "nothing stored before this write is lost: free some space (or move RAGEVAL_HOME "
                             "to a larger disk)") from exc


@contextmanager
def session(path: str | Path) -> Iterator[None]:
    """Several units of work on one connection: every :func:`connect` to ``path`` inside it, in this
    thread, reuses one cursor on the attached file, detached when it ends.

    For reads that belong together (one answer's text, scores, claims and chunks); never hold it
    while waiting for anything, since no other process can open the file meanwhile.
    """
    cons = _SHARED.__dict__.setdefault("cons", {})
    key = str(Path(path))
    if key in cons:
        yield
        return
    with connect(path) as con:
        cons[key] = con
        try:
            yield
        finally:
            cons.pop(key, None)


def schema_version(path: str | Path) -> int:
    """The highest migration applied to the database at ``path``."""
    with connect(path) as con:
        row = con.execute("SELECT max(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def records(path: str | Path, sql: str, params: Sequence[Any], keys: Sequence[str]) -> list[dict[str, Any]]:
    """The rows of one query as dicts named by ``keys``, through one connection."""
    with connect(path) as con:
        rows = con.execute(sql, list(params)).fetchall()
    return [dict(zip(keys, r)) for r in rows]


def arrow_frame(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any]) -> Any:
    """The rows of one query as a pandas DataFrame built from DuckDB's Arrow result.

    For long tables of strings and numbers (a run's scores: 200,000 rows at 10,000 answers) this
    takes a fifth of the CPU of ``.df()``, which hands pandas a Python object per string; the
    frame is equal, dtypes included (a column of NULL strings aside: ``str`` here, ``object``
    there).
    """
    return con.sql(sql, params=list(params)).to_arrow_table().to_pandas()


def unnest_select(types: Sequence[str], names: Sequence[str] | None = None) -> str:
    """``SELECT unnest($1::T1[]) [AS name1], ...``: one LIST parameter per column (of DuckDB type
    ``types[i]``), unnested in step, so a whole batch of rows is one statement."""
    return "SELECT " + ", ".join(f"unnest(${i}::{kind}[])" + (f" AS {names[i - 1]}" if names else "")
                                 for i, kind in enumerate(types, 1))


def unnested(types: Sequence[str], rows: Sequence[Sequence[Any]]) -> tuple[str, list[list[Any]]]:
    """:func:`unnest_select` of ``rows`` for one ``INSERT ... SELECT``, and its parameters (the rows'
    columns).

    One statement for every row: ``executemany`` runs the statement once per row, about 8 ms a row
    with ``ON CONFLICT`` here (270 ratings: 2.2 s, this way 0.02 s). Direct, as here, for the small
    upserts (ratings, claim labels, chunks); a run's batches of answers, wide and JSON-heavy, go
    through a temporary table first, which was about ten times faster for them
    (:mod:`rageval.store.items`). An ``ON CONFLICT DO UPDATE`` over the result must not meet one key
    twice (DuckDB then keeps the first): de-duplicate first.
    """
    return unnest_select(types), [list(column) for column in zip(*rows)] if rows else [[] for _ in types]
