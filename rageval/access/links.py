"""Demo links: a read-only token for one project, with an expiry, revocable by an owner.

A token is ``<project>.<secret>`` (32 random bytes, URL-safe base64); the project keeps only the
secret's sha256, so a copy of the database does not give the token away. Opening the app at
``?demo=<token>`` makes the session a viewer of that one project, without an account
(:func:`open_link`); an expired or revoked token, or one whose project is gone, opens nothing.
"""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from rageval.access.roles import record, require
from rageval.errors import AccessError, ConfigError
from rageval.project import Project, list_projects, open_project
from rageval.store import access as store
from rageval.types import Identity

#: the longest a link may live, in days
MAX_DAYS = 90.0


@dataclass(frozen=True)
class DemoLink:
    id: str
    token: str
    expires: datetime

    def url(self, base: str) -> str:
        """The address to hand out: the app's ``base`` address with ``?demo=<token>``."""
        return f"{base.rstrip('/')}/?demo={self.token}"


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _now() -> datetime:
    return datetime.now().replace(microsecond=0)


def create_link(project: Project, *, days: float = 7.0) -> DemoLink:
    """Make a read-only link to ``project`` that expires after ``days`` (owners only; audited). The
    token is shown once: only its hash is stored."""
    require(project, "manage")
    if not 0 < days <= MAX_DAYS:
        raise ConfigError(f"days={days:g} must be more than 0 and at most {MAX_DAYS:g}")
    secret = secrets.token_urlsafe(32)
    link_id = secrets.token_hex(4)
    expires = _now() + timedelta(days=days)
    store.add_link(project.db_path, link_id, _digest(secret), project.actor.email, expires)
    record(project, "demo_link_create", link_id, expires=expires.isoformat())
    return DemoLink(link_id, f"{project.slug}.{secret}", expires)


def revoke_link(project: Project, link_id: str) -> None:
    """Revoke a link at once (owners only; audited); a session already opened with it loses it at its
    next page."""
    require(project, "manage")
    if not store.revoke_link(project.db_path, link_id):
        raise ConfigError(f"no live demo link {link_id!r} in project {project.slug}")
    record(project, "demo_link_revoke", link_id)


def list_links(project: Project) -> list[dict]:
    """Every link of the project (id, who made it, when, expiry, revoked), without tokens (owners only)."""
    require(project, "manage")
    now = _now()
    return [{**r, "live": r["revoked"] is None and r["expires"] > now} for r in store.links(project.db_path)]


def open_link(token: str, *, now: datetime | None = None) -> Identity:
    """The identity a demo link gives: a viewer of its one project. AccessError when the token is
    unknown, expired or revoked."""
    slug, _, secret = (token or "").strip().partition(".")
    refused = AccessError("this demo link is not valid: it may have expired or been revoked; ask for a new one")
    if not secret or slug not in list_projects():
        raise refused
    project = open_project(slug)
    if not project.db_path.exists():
        raise refused
    found = store.link_by_hash(project.db_path, _digest(secret))
    if found is None or found["revoked"] is not None or found["expires"] <= (now or _now()):
        raise refused
    return Identity(f"demo-link:{found['id']}", f"demo link {found['id']}", "demo", demo_project=slug)
