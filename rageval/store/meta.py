"""SQL for ``project_meta``: the project's own id, generated when its database is created.

The id (32 hex characters, a random UUID, written by migration 004) is what makes a project
store unique beyond its folder name: two people's ``default`` projects get different ids, so
their Chroma collections on one shared server never coincide (see
:func:`rageval.index.collection_name`). It is read from the file each time (one short
connection), so a project folder deleted and made anew never reuses a stale id.

**Copies.** A copied home (``cp -a`` of ``RAGEVAL_HOME``, a backup restored beside the original)
carries the same id, so on one Chroma server the copy would write into the original's collections
and read the original's chunks. The id is therefore bound to the absolute path of the DuckDB file
it lives in (``db_path`` in ``project_meta``, written the first time this version opens the store).
A store whose file is no longer at the bound path is a copy (or was moved): it gets a new id, bound
to its new path, the old one is kept as ``copied_from``, and a :class:`CopiedStoreWarning` (a NOTE
on stderr in the CLI) says so. Its next ingest or run indexes its chunks into its own collections
(embeddings come from the project's cache, so this costs no model call). A copy made before this
version, bound at its new path before anyone noticed, is caught by the collection instead: its
metadata names the DuckDB path of the store that made it (:class:`rageval.index.VectorIndex`).

**Restores.** A store restored from a snapshot at the same path (or the same snapshot restored on
two machines that share one Chroma server) keeps both its id and its path, so neither can tell.
So each collection also carries a *state token*, a random id replaced whenever chunks are added,
kept both in the collection's metadata and here (``index:<collection>``; ``index_pending:`` while
a change is under way, so a process killed between the two writes is not taken for a stranger).
A database whose token is not the collection's did not make the collection's last change: its
chunks may not be this store's, and :class:`rageval.index.VectorIndex` refuses to read it
(:class:`rageval.index.IndexMismatchError`, which says to run ``rageval reindex``).
"""
from __future__ import annotations

import uuid
import warnings
from pathlib import Path

from rageval.store.db import connect


class CopiedStoreWarning(UserWarning):
    """A project store found to be a copy of another and given its own id."""


def bound_path(db: Path) -> str:
    """The absolute path the project's id is bound to (the DuckDB file's own, resolved)."""
    return str(Path(db).resolve())


def project_id(db: Path) -> str:
    """The id kept in the project's database, re-scoped first when the file is a copy."""
    here = bound_path(db)
    with connect(db) as con:
        meta = dict(con.execute("SELECT key, value FROM project_meta").fetchall())
        if meta.get("db_path") is None:
            con.execute("INSERT INTO project_meta VALUES ('db_path', ?)", [here])
        elif meta["db_path"] != here:
            return _rescope(con, meta["project_id"], f"its database was made at {meta['db_path']}")
    return str(meta["project_id"])


def rescope(db: Path, reason: str) -> str:
    """Give the store at ``db`` a new id bound to its path (it is a copy: ``reason`` says how we know)."""
    with connect(db) as con:
        old = con.execute("SELECT value FROM project_meta WHERE key = 'project_id'").fetchone()[0]
        return _rescope(con, old, reason)


def _rescope(con, old: str, reason: str) -> str:
    new = uuid.uuid4().hex
    here = bound_path(Path(con.execute("SELECT path FROM duckdb_databases() WHERE database_name = "
                                       "current_database()").fetchone()[0]))
    con.execute("BEGIN")
    con.execute("DELETE FROM project_meta WHERE key LIKE 'index:%' OR key LIKE 'index_pending:%'")
    for key, value in (("project_id", new), ("db_path", here), ("copied_from", old)):
        con.execute("DELETE FROM project_meta WHERE key = ?", [key])
        con.execute("INSERT INTO project_meta VALUES (?, ?)", [key, value])
    con.execute("COMMIT")
    warnings.warn(f"NOTE the project store at {here} is a copy ({reason}); it now has its own id {new} "
                  f"(was {old}), so it never reads or writes the original's Chroma collections; its next "
                  "ingest or run indexes its chunks again, from the embedding cache", CopiedStoreWarning,
                  stacklevel=3)
    return new


def index_state(db: Path, collection: str) -> tuple[str | None, str | None]:
    """``(current, pending)`` state tokens this store holds for ``collection`` (None when unset)."""
    with connect(db) as con:
        rows = dict(con.execute("SELECT key, value FROM project_meta WHERE key IN (?, ?)",
                                [f"index:{collection}", f"index_pending:{collection}"]).fetchall())
    return rows.get(f"index:{collection}"), rows.get(f"index_pending:{collection}")


def set_index_state(db: Path, collection: str, *, current: str | None, pending: str | None) -> None:
    """Record the state tokens of ``collection`` (None removes one)."""
    with connect(db) as con:
        con.execute("BEGIN")
        for key, value in ((f"index:{collection}", current), (f"index_pending:{collection}", pending)):
            con.execute("DELETE FROM project_meta WHERE key = ?", [key])
            if value is not None:
                con.execute("INSERT INTO project_meta VALUES (?, ?)", [key, value])
        con.execute("COMMIT")


def reindex(db: Path) -> str:
    """Give the store a new id, so its next ingest or run indexes its chunks into collections of
    its own (vectors from the embedding cache); the new id. The way out of an index mismatch."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CopiedStoreWarning)
        return rescope(db, "re-indexed on request")
