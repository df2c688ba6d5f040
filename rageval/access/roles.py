"""Roles per project and the one check every service function makes before it changes a project.

Three roles, lowest first: ``viewer`` (read only), ``annotator`` (also rate answers, label claims,
upload documents, QA sets and answer files, start runs), ``owner`` (also members, settings, demo
links, deleting). :data:`ACTIONS` names the lowest role of each action; :func:`require` raises
:class:`~rageval.errors.AccessError` naming the identity, its role and the role needed.

Who has which role (:func:`role_of`): the local user (no sign-in) owns every project; a demo link's
holder views its one project; anyone else has the role of the ``members`` row of their e-mail. A
signed-in member's provider subject is bound at their first sign-in; the same e-mail arriving later
with another subject (an account re-created at the provider, or another provider) is refused.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from rageval.errors import AccessError, ConfigError
from rageval.project import Project
from rageval.store import access as store
from rageval.types import Identity

ROLES = ("viewer", "annotator", "owner")
#: action -> (the lowest role that may do it, what it is called in a message)
ACTIONS = {
    "view": ("viewer", "opening this project"),
    "rate": ("annotator", "rating answers"),
    "label": ("annotator", "labelling claims"),
    "upload": ("annotator", "uploading documents, QA sets, answers or ratings"),
    "run": ("annotator", "starting runs and changing run settings"),
    "manage": ("owner", "changing members and settings"),
    "delete": ("owner", "deleting from this project"),
}


def normal_email(text: str) -> str:
    """An e-mail as members are keyed: trimmed, lower case; a ConfigError when it has no ``@``."""
    email = (text or "").strip().lower()
    if "@" not in email or " " in email or len(email) > 254:
        raise ConfigError(f"{text!r} is not an e-mail address")
    return email


def role_of(project: Project, identity: Identity | None = None) -> str | None:
    """The role of ``identity`` (the project's actor by default) in ``project``; None for a non-member."""
    who = identity or project.actor
    if who.local:
        return "owner"
    if who.via == "demo":
        return "viewer" if who.demo_project == project.slug else None
    found = store.member(project.db_path, who.email.lower())
    if found is None:
        return None
    if who.via == "oidc":
        if found["subject"] is None:
            store.bind_subject(project.db_path, found["email"], who.subject)
        elif found["subject"] != who.subject:
            raise AccessError(f"{who.email} is a member of project {project.slug} under another account "
                              f"(subject {found['subject']}); an owner must remove and re-add the e-mail")
    return found["role"]


def allowed(project: Project, action: str) -> bool:
    """Whether the project's actor may do ``action`` (a key of :data:`ACTIONS`)."""
    role = role_of(project)
    return role is not None and ROLES.index(role) >= ROLES.index(ACTIONS[action][0])


def require(project: Project, action: str) -> None:
    """Raise AccessError unless the project's actor may do ``action``."""
    if project.actor.local:
        return
    role = role_of(project)
    needed, what = ACTIONS[action]
    if role is None:
        raise AccessError(f"{project.actor.email} is not a member of project {project.slug}")
    if ROLES.index(role) < ROLES.index(needed):
        raise AccessError(f"{project.actor.email} is a{'n' if role[0] in 'aeiou' else ''} {role} of project "
                          f"{project.slug}: {what} needs the role {needed} or higher")


def record(project: Project, action: str, target: str | None = None, **detail: Any) -> None:
    """Write one row of the audit trail: the actor (subject and e-mail), the action, its target, details."""
    who = project.actor
    store.record(project.db_path, who.subject, who.email, action, target, detail)


@contextmanager
def acting(project: Project, action: str, audit: str, target: str | None = None, **detail: Any) -> Iterator[dict]:
    """Check ``action`` before the block, and record ``audit`` in the trail after it succeeds. The block
    may add details to the dict it is given (how many rows were stored)."""
    require(project, action)
    more: dict[str, Any] = {}
    yield more
    record(project, audit, target, **detail, **more)


def signer(project: Project, name: str | None) -> str:
    """The rater name a rating or label is stored under: the typed ``name`` for the local user (as
    without sign-in), the signed-in e-mail for anyone else; a different typed name is refused."""
    who = project.actor
    if who.local:
        return (name or "").strip()
    if name and name.strip().lower() not in ("", who.email.lower()):
        raise AccessError(f"signed in as {who.email}: ratings and labels are signed with it, not as {name.strip()!r}")
    return who.email.lower()
