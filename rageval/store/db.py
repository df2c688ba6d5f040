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
from typing import Iterator

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


@contextmanager
def connect(path: str | Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """Open the project database for one unit of work, migrated to the latest schema."""
    path = Path(path)
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


def schema_version(path: str | Path) -> int:
    """The highest migration applied to the database at ``path``."""
    with connect(path) as con:
        row = con.execute("SELECT max(version) FROM schema_version").fetchone()
    return int(row[0] or 0)
