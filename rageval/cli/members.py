"""People and access: ``rageval members add | remove | list | allow-as``, ``rageval links create | list |
revoke`` (demo links) and ``rageval audit`` (the audit trail). The CLI acts as the local user, owner of
every project, unless ``--as EMAIL`` names a member of a project that allows it (docs/access.md)."""
from __future__ import annotations

import argparse

from rageval.cli.base import EXIT_OK, Commands, emit, project, write_export


def cmd_members_list(args: argparse.Namespace) -> int:
    """List the project's members: e-mail, role, the provider subject bound at their first sign-in."""
    from rageval.access import cli_as_allowed, list_members

    proj = project(args)
    rows = list_members(proj)
    text = "\n".join(f"{m['email']:<40} {m['role']:<10} {m['subject'] or '(not signed in yet)'}" for m in rows)
    emit(args, {"members": rows, "cli_as": cli_as_allowed(proj)}, text or f"project {proj.slug} has no members")
    return EXIT_OK


def cmd_members_add(args: argparse.Namespace) -> int:
    """Add a member by e-mail with a role (owner, annotator, viewer), or change a member's role."""
    from rageval.access import add_member

    m = add_member(project(args), args.email, args.role)
    emit(args, {"member": m}, f"{m['email']} is now {m['role']} of project {project(args).slug}")
    return EXIT_OK


def cmd_members_remove(args: argparse.Namespace) -> int:
    """Remove a member (never the last owner)."""
    from rageval.access import remove_member

    remove_member(project(args), args.email)
    emit(args, {"removed": args.email.strip().lower()}, f"removed {args.email.strip().lower()}")
    return EXIT_OK


def cmd_members_allow_as(args: argparse.Namespace) -> int:
    """Let the CLI's --as EMAIL act as a member of this project (--off: stop letting it)."""
    from rageval.access import allow_cli_as

    allow_cli_as(project(args), not args.off)
    emit(args, {"cli_as": not args.off}, f"--as is {'refused' if args.off else 'allowed'} for this project")
    return EXIT_OK


def cmd_links_create(args: argparse.Namespace) -> int:
    """Make a read-only demo link to the project (shown once; only its hash is stored)."""
    from rageval.access import create_link

    link = create_link(project(args), days=args.days)
    url = link.url(args.base)
    emit(args, {"id": link.id, "token": link.token, "url": url, "expires": link.expires.isoformat()},
         f"{url}\nlink {link.id}, read-only, expires {link.expires:%Y-%m-%d %H:%M}; revoke with: rageval links revoke "
         f"{link.id}")
    return EXIT_OK


def cmd_links_list(args: argparse.Namespace) -> int:
    """List the project's demo links (never their tokens)."""
    from rageval.access import list_links

    rows = list_links(project(args))
    text = "\n".join(f"{r['id']}  {'live' if r['live'] else 'dead'}  expires {r['expires']:%Y-%m-%d %H:%M}"
                     f"  by {r['created_by']}" + (f"  revoked {r['revoked']:%Y-%m-%d %H:%M}" if r["revoked"] else "")
                     for r in rows)
    emit(args, {"links": rows}, text or "no demo links")
    return EXIT_OK


def cmd_links_revoke(args: argparse.Namespace) -> int:
    """Revoke a demo link at once."""
    from rageval.access import revoke_link

    revoke_link(project(args), args.id)
    emit(args, {"revoked": args.id}, f"revoked demo link {args.id}")
    return EXIT_OK


def cmd_audit(args: argparse.Namespace) -> int:
    """The project's audit trail (who rated, labelled, imported, ran, changed members or settings, when):
    the newest --limit rows, or all of it as CSV with --out."""
    from rageval.access import audit_csv, audit_trail

    if args.out:
        return write_export(args, audit_csv(project(args)))
    rows = audit_trail(project(args), limit=args.limit)
    emit(args, {"audit": rows}, "\n".join(f"{r['created']:%Y-%m-%d %H:%M:%S}  {r['email']:<28} {r['action']:<20} "
                                          f"{r['target'] or ''}" for r in rows) or "nothing recorded yet")
    return EXIT_OK


def register(commands: Commands) -> None:
    group = commands.group("members", "who may open and change the project: add, remove, list, allow-as",
                           {"list": cmd_members_list, "add": cmd_members_add, "remove": cmd_members_remove,
                            "allow-as": cmd_members_allow_as})
    group["add"].add_argument("email", metavar="EMAIL", help="the member's e-mail as the identity provider gives it")
    group["add"].add_argument("--role", required=True, choices=("owner", "annotator", "viewer"),
                              help="owner: members, settings; annotator: label, rate, upload, run; viewer: read")
    group["remove"].add_argument("email", metavar="EMAIL", help="the member to remove")
    group["allow-as"].add_argument("--off", action="store_true", help="refuse --as again")
    links = commands.group("links", "read-only demo links to one project: create, list, revoke",
                           {"create": cmd_links_create, "list": cmd_links_list, "revoke": cmd_links_revoke})
    links["create"].add_argument("--days", type=float, default=7.0, help="days until it expires (default: %(default)s)")
    links["create"].add_argument("--base", default="http://localhost:8501",
                                 help="the app's public address, for the printed link (default: %(default)s)")
    links["revoke"].add_argument("id", metavar="ID", help="the link's id (links list)")
    p = commands.add("audit", cmd_audit)
    p.add_argument("--limit", type=int, default=50, help="newest rows shown (default: %(default)s)")
    p.add_argument("--out", metavar="FILE", help="write the whole trail to FILE as CSV")
    p.set_defaults(format="csv")
