"""Members of a project, which projects an identity sees, and acting as a member from the CLI.

The service behind ``rageval members add|remove|list|allow-as`` and the app's project list, project
creation and the owner's members box. Every change is checked (``manage``: owners only) and written
to the audit trail.
"""
from __future__ import annotations

from dataclasses import replace

from rageval.access.roles import ROLES, allowed, normal_email, record, require, role_of
from rageval.errors import AccessError, ConfigError
from rageval.project import Project, list_projects, open_project
from rageval.store import access as store
from rageval.types import Identity


def list_members(project: Project) -> list[dict]:
    """The members (e-mail, role, bound subject, who added them, when); any member may read them."""
    require(project, "view")
    return store.members(project.db_path)


def add_member(project: Project, email: str, role: str) -> dict:
    """Add ``email`` with ``role`` (owner, annotator, viewer), or change a member's role."""
    require(project, "manage")
    if role not in ROLES:
        raise ConfigError(f"role {role!r} is not one of {', '.join(ROLES)}")
    email = normal_email(email)
    before = store.member(project.db_path, email)
    if before and before["role"] == "owner" and role != "owner":
        _keep_an_owner(project, email)
    store.set_member(project.db_path, email, role, project.actor.email)
    record(project, "member_add" if before is None else "member_role", email, role=role,
           before=before["role"] if before else None)
    return store.member(project.db_path, email)


def remove_member(project: Project, email: str) -> None:
    """Remove a member; the last owner cannot be removed (the project would have nobody to manage it)."""
    require(project, "manage")
    email = normal_email(email)
    found = store.member(project.db_path, email)
    if found is None:
        raise ConfigError(f"{email} is not a member of project {project.slug}")
    if found["role"] == "owner":
        _keep_an_owner(project, email)
    store.remove_member(project.db_path, email)
    record(project, "member_remove", email, role=found["role"])


def _keep_an_owner(project: Project, leaving: str) -> None:
    owners = [m["email"] for m in store.members(project.db_path) if m["role"] == "owner"]
    if owners == [leaving]:
        raise ConfigError(f"{leaving} is the last owner of project {project.slug}; add another owner first")


def allow_cli_as(project: Project, allow: bool) -> None:
    """Let (or stop letting) the CLI's ``--as EMAIL`` act as a member of this project."""
    require(project, "manage")
    store.set_setting(project.db_path, "cli_as", "1" if allow else None)
    record(project, "setting", "cli_as", value=allow)


def cli_as_allowed(project: Project) -> bool:
    return store.setting(project.db_path, "cli_as") == "1"


def act_as(project: Project, email: str) -> Project:
    """``project`` acted on by the member ``email`` (the CLI's ``--as``): refused unless an owner allowed
    it (:func:`allow_cli_as`) and ``email`` is a member; the member's bound subject signs what it writes."""
    email = normal_email(email)
    if not cli_as_allowed(project):
        raise AccessError(f"project {project.slug} does not allow --as; an owner allows it with: "
                          f"rageval members allow-as --project {project.slug}")
    found = store.member(project.db_path, email)
    if found is None:
        raise AccessError(f"{email} is not a member of project {project.slug}")
    return replace(project, actor=Identity(found["subject"] or f"cli:{email}", email, "cli"))


def visible_projects(identity: Identity) -> list[str]:
    """The projects ``identity`` may open, sorted: all for the local user, one for a demo link, else
    those it is a member of."""
    names = list_projects()
    if identity.local:
        return names
    if identity.via == "demo":
        return [n for n in names if n == identity.demo_project]
    seen = []
    for name in names:
        p = Project(slug=name, root=open_project(name).root, actor=identity)
        if p.db_path.exists() and _member(p):
            seen.append(name)
    return seen


def _member(project: Project) -> bool:
    try:
        return role_of(project) is not None
    except AccessError:  # the e-mail is bound to another account: not this person's project
        return False


def open_as(name: str, identity: Identity) -> Project:
    """The project ``name`` acted on by ``identity``; AccessError when it may not open it (the same
    message whether the project exists or not, so a URL does not tell which projects exist)."""
    if identity.local:
        return open_project(name)
    if name not in list_projects() or not (open_project(name).db_path.exists()):
        raise AccessError(f"no project {name!r} that {identity.email} may open")
    project = replace(open_project(name), actor=identity)
    if not allowed(project, "view"):
        raise AccessError(f"no project {name!r} that {identity.email} may open")
    return project


def create_project(name: str, identity: Identity) -> Project:
    """Create the project ``name`` with ``identity`` as its owner. The local user opens an existing one
    as before; anyone else is refused a name already in use (ask its owner to be added)."""
    if identity.local:
        return open_project(name)
    if identity.via == "demo":
        raise AccessError("a demo link opens one project read-only; it cannot create projects")
    existing = name.strip().lower() in list_projects()
    project = replace(open_project(name), actor=identity)
    if existing and project.db_path.exists():
        raise AccessError(f"project {project.slug} already exists; ask one of its owners to add {identity.email}")
    email = normal_email(identity.email)
    store.set_member(project.db_path, email, "owner", email)
    role_of(project)  # binds the creator's subject
    record(project, "project_create", project.slug)
    return project
