"""The QA sets page's read model: the stored QA sets and one set's items."""
from __future__ import annotations

from typing import Any

from rageval.project import Project
from rageval.store import runs as run_store


def qa_sets(project: Project) -> list[dict[str, Any]]:
    """Every QA set: name, items, source, created."""
    return run_store.qa_sets(project.db_path)


def qa_items(project: Project, name: str) -> list[dict[str, Any]]:
    """The items of QA set ``name``: id, question, references, relevant ids, domain."""
    return run_store.qa_items(project.db_path, name)
