"""People and access: roles per project, the service layer's checks, the audit trail, demo links.

Without sign-in everything is acted on by the local user, who owns every project, so nothing is
refused (docs/access.md). ``roles`` holds the checks, ``members`` the members and the projects an
identity sees, ``links`` the demo links, ``trail`` the audit trail's read side.
"""
from __future__ import annotations

from rageval.access.links import DemoLink, create_link, list_links, open_link, revoke_link
from rageval.access.members import (act_as, add_member, allow_cli_as, cli_as_allowed, create_project, list_members,
                                    open_as, remove_member, visible_projects)
from rageval.access.roles import ACTIONS, ROLES, acting, allowed, normal_email, record, require, role_of, signer
from rageval.access.trail import audit_csv, audit_trail
from rageval.types import LOCAL, Identity

__all__ = ["DemoLink", "create_link", "list_links", "open_link", "revoke_link", "act_as", "add_member",
           "allow_cli_as", "cli_as_allowed", "create_project", "list_members", "open_as", "remove_member",
           "visible_projects", "ACTIONS", "ROLES", "acting", "allowed", "normal_email", "record", "require", "role_of",
           "signer", "audit_csv", "audit_trail", "LOCAL", "Identity"]
