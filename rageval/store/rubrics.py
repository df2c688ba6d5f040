"""SQL for ``rubrics``: the rubric metrics of a project (rageval.prompts.rubric parses and validates them)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from rageval.store.db import connect, records


def save_rubric(db: Path, name: str, body: str, digest: str, source: str | None) -> None:
    """Insert or replace the rubric ``name`` (``body``: its canonical JSON)."""
    with connect(db) as con:
        con.execute("INSERT OR REPLACE INTO rubrics (name, body, digest, source, created)"
                    " VALUES (?, ?, ?, ?, current_timestamp)", [name, body, digest, source])


def rubrics(db: Path) -> list[dict[str, Any]]:
    """Every stored rubric, by name: name, body, digest, source, created."""
    return records(db, "SELECT name, body, digest, source, created FROM rubrics ORDER BY name", (),
                   ("name", "body", "digest", "source", "created"))
