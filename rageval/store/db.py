"""The DuckDB connection and the migrations runner.

DuckDB lets one process hold a file open for writing, and a second process cannot even open
it read-only meanwhile. So nothing here keeps a connection while idle: :func:`connect` opens
the file for one unit of work and closes it. On a lock conflict it retries with backoff for up
to ``RAGEVAL_DB_WAIT`` seconds (default 30), then raises :class:`ProjectBusyError`.

Migrations are the ordered files ``migrations/NNN_name.sql``; each is applied once, in a
transaction, and recorded in ``schema_version``. All SQL of rageval lives in this package
(``db.py`` here, the table-specific modules beside it) and binds every value as a parameter.
"""
from __future__ import annotations

import random
import threading
import time
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any, Iterator, Sequence

import duckdb

from rageval.settings import get as setting
from rageval.errors import ProjectBusyError

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


def _open(path: Path) -> duckdb.DuckDBPyConnection:
    wait = float(setting("RAGEVAL_DB_WAIT"))
    deadline = time.monotonic() + wait
    delay = 0.02
    while True:
        try:
            return duckdb.connect(str(path))
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or time.monotonic() >= deadline:
                if "lock" in str(exc).lower():
                    raise ProjectBusyError(
                        f"the project database {path} is in use by another process; "
                        f"waited {wait:g} s (set RAGEVAL_DB_WAIT to wait longer)"
                    ) from exc
                raise
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 1.0)


def _migrate(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(
        "CREATE TABLE IF NOT EXISTS schema_version ("
        " version INTEGER PRIMARY KEY, name VARCHAR NOT NULL,"
        " applied TIMESTAMP DEFAULT current_timestamp)"
    )
    done = {row[0] for row in con.execute("SELECT version FROM schema_version").fetchall()}
    for version, name, sql in migrations():
        if version in done:
            continue
        con.execute("BEGIN TRANSACTION")
        try:
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
    with _LOCK:
        con = _open(path)
        try:
            key = str(path.resolve())
            if key not in _MIGRATED:
                _migrate(con)
                _MIGRATED.add(key)
            yield con
        finally:
            con.close()


@contextmanager
def session(path: str | Path) -> Iterator[None]:
    """Several units of work on one connection: every :func:`connect` to ``path`` inside it, in this
    thread, reuses one open connection (opening costs about 0.1 s here), closed when it ends.

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
