"""A project: one folder under ``RAGEVAL_HOME/projects/<slug>/`` with a DuckDB file and a Chroma dir.

``RAGEVAL_HOME`` defaults to ``./.rageval``; the project comes from ``--project``,
``RAGEVAL_PROJECT`` or ``default``, in that order. The demo is the project ``demo``.
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from rageval import settings
from rageval.errors import ConfigError
from rageval.types import LOCAL, Identity

_SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")


def home() -> Path:
    """The data directory: ``RAGEVAL_HOME`` or ``./.rageval``."""
    return Path(settings.value("RAGEVAL_HOME")).expanduser()


@dataclass(frozen=True)
class Project:
    """A project as seen by ``actor``: the service functions check what the actor may do
    (:mod:`rageval.access`) and sign what it writes; the local user (the default) may do everything."""

    slug: str
    root: Path
    actor: Identity = LOCAL

    @property
    def db_path(self) -> Path:
        return self.root / "rageval.duckdb"

    @property
    def chroma_path(self) -> Path:
        return self.root / "chroma"

    @property
    def id(self) -> str:
        """The id generated when the project's database was created (32 hex characters).

        It names the project's Chroma collections, so projects with the same slug in two
        homes never share a collection on one Chroma server.
        """
        from rageval.store.meta import project_id

        return project_id(self.db_path)


@contextmanager
def project_lock(project: Project, name: str, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the exclusive file lock ``<project>/locks/<name>.lock`` (POSIX ``flock``).

    Serialises work that two processes must not do twice at once (embedding the same chunks
    into the same collection, two ingests writing one Chroma directory); the second waits, then
    finds the work done. ``on_wait()`` is called once when the lock is held by another process,
    before waiting (to say so). A no-op where ``fcntl`` does not exist.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    folder = project.root / "locks"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{name}.lock", "a+b") as fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def open_project(name: str | None = None) -> Project:
    """Return the project called ``name`` (or the default one), creating its folder."""
    slug = (name or settings.value("RAGEVAL_PROJECT")).strip().lower()
    if not _SLUG.match(slug):
        raise ConfigError(
            f"project name {name!r} is not usable; use 1-63 lowercase letters, digits, '-' or '_'"
        )
    root = home() / "projects" / slug
    root.mkdir(parents=True, exist_ok=True)
    return Project(slug=slug, root=root)


def list_projects() -> list[str]:
    """Slugs of the projects that exist under the data directory, sorted."""
    base = home() / "projects"
    if not base.is_dir():
        return []
    return sorted(p.name for p in base.iterdir() if p.is_dir() and _SLUG.match(p.name))
