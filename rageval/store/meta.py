"""SQL for ``project_meta``: the project's own id, generated when its database is created.

The id (32 hex characters, a random UUID, written by migration 004) is what makes a project
store unique beyond its folder name: two people's ``default`` projects get different ids, so
their Chroma collections on one shared server never coincide (see
:func:`rageval.index.collection_name`). It is read from the file each time (one short
connection), so a project folder deleted and made anew never reuses a stale id.
"""
from __future__ import annotations

from pathlib import Path

from rageval.store.db import connect


def project_id(db: Path) -> str:
    """The id kept in the project's database."""
    with connect(db) as con:
        row = con.execute("SELECT value FROM project_meta WHERE key = 'project_id'").fetchone()
    return str(row[0])
