"""SQL for people and access (migration 050): members and their roles, the audit trail, demo links,
and the project's access settings (``project_meta`` keys ``access:*``)."""
from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from rageval.store.db import connect, records

MEMBER_COLUMNS = ("email", "role", "subject", "added_by", "added")
AUDIT_COLUMNS = ("created", "subject", "email", "action", "target", "detail")
LINK_COLUMNS = ("id", "created_by", "created", "expires", "revoked")


# --- members ---------------------------------------------------------------------------------

def members(db: Path) -> list[dict[str, Any]]:
    """Every member, owners first, then by e-mail."""
    return records(db, (
        f"SELECT {', '.join(MEMBER_COLUMNS)} FROM members"
        " ORDER BY CASE role WHEN 'owner' THEN 0 WHEN 'annotator' THEN 1 ELSE 2 END, email"), [], MEMBER_COLUMNS)


def member(db: Path, email: str) -> dict[str, Any] | None:
    rows = records(db, f"SELECT {', '.join(MEMBER_COLUMNS)} FROM members WHERE email = ?", [email], MEMBER_COLUMNS)
    return rows[0] if rows else None


def set_member(db: Path, email: str, role: str, added_by: str) -> None:
    """Add ``email`` with ``role``, or change the role of a member (the bound subject is kept)."""
    with connect(db) as con:
        con.execute("INSERT INTO members (email, role, added_by) VALUES (?, ?, ?)"
                    " ON CONFLICT (email) DO UPDATE SET role = excluded.role", [email, role, added_by])


def remove_member(db: Path, email: str) -> bool:
    """Remove a member; whether there was one."""
    with connect(db) as con:
        found = con.execute("SELECT count(*) FROM members WHERE email = ?", [email]).fetchone()[0]
        con.execute("DELETE FROM members WHERE email = ?", [email])
    return bool(found)


def bind_subject(db: Path, email: str, subject: str) -> None:
    """Bind a member's provider subject (its first sign-in)."""
    with connect(db) as con:
        con.execute("UPDATE members SET subject = ? WHERE email = ? AND subject IS NULL", [subject, email])


# --- settings --------------------------------------------------------------------------------

def setting(db: Path, name: str) -> str | None:
    with connect(db) as con:
        row = con.execute("SELECT value FROM project_meta WHERE key = ?", [f"access:{name}"]).fetchone()
    return row[0] if row else None


def set_setting(db: Path, name: str, value: str | None) -> None:
    with connect(db) as con:
        con.execute("DELETE FROM project_meta WHERE key = ?", [f"access:{name}"])
        if value is not None:
            con.execute("INSERT INTO project_meta VALUES (?, ?)", [f"access:{name}", value])


# --- the audit trail -------------------------------------------------------------------------

def record(db: Path, subject: str, email: str, action: str, target: str | None, detail: dict[str, Any]) -> None:
    with connect(db) as con:
        con.execute("INSERT INTO audit_log (subject, email, action, target, detail) VALUES (?, ?, ?, ?, ?)",
                    [subject, email, action, target, json.dumps(detail, ensure_ascii=False, default=str)])


def audit(db: Path, *, limit: int | None = None) -> list[dict[str, Any]]:
    """The audit trail, newest first (``limit`` rows at most)."""
    rows = records(db, f"SELECT {', '.join(AUDIT_COLUMNS)} FROM audit_log ORDER BY created DESC, rowid DESC"
                       + (" LIMIT ?" if limit else ""), [int(limit)] if limit else [], AUDIT_COLUMNS)
    for r in rows:
        r["detail"] = json.loads(r["detail"]) if r["detail"] else {}
    return rows


# --- demo links ------------------------------------------------------------------------------

def add_link(db: Path, link_id: str, token_sha256: str, created_by: str, expires: datetime) -> None:
    with connect(db) as con:
        con.execute("INSERT INTO demo_links (id, token_sha256, created_by, expires) VALUES (?, ?, ?, ?)",
                    [link_id, token_sha256, created_by, expires])


def link_by_hash(db: Path, token_sha256: str) -> dict[str, Any] | None:
    rows = records(db, f"SELECT {', '.join(LINK_COLUMNS)} FROM demo_links WHERE token_sha256 = ?",
                   [token_sha256], LINK_COLUMNS)
    return rows[0] if rows else None


def links(db: Path) -> list[dict[str, Any]]:
    return records(db, f"SELECT {', '.join(LINK_COLUMNS)} FROM demo_links ORDER BY created DESC", [], LINK_COLUMNS)


def revoke_link(db: Path, link_id: str) -> bool:
    """Mark a link revoked (now); whether a live link of that id existed."""
    with connect(db) as con:
        found = con.execute("SELECT count(*) FROM demo_links WHERE id = ? AND revoked IS NULL", [link_id]).fetchone()[0]
        con.execute("UPDATE demo_links SET revoked = now() WHERE id = ? AND revoked IS NULL", [link_id])
    return bool(found)
