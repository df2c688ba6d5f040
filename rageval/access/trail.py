"""The audit trail's read side: shown to owners on Home and by ``rageval audit``, exportable as CSV."""
from __future__ import annotations

import json

from rageval.access.roles import require
from rageval.files import csv_text
from rageval.project import Project
from rageval.store import access as store


def audit_trail(project: Project, *, limit: int | None = None) -> list[dict]:
    """The trail, newest first: when, who (subject and e-mail), the action, its target, its details
    (owners only)."""
    require(project, "manage")
    return store.audit(project.db_path, limit=limit)


def audit_csv(project: Project) -> str:
    """The whole trail as CSV (formula cells neutralised, as every CSV rageval writes)."""
    import pandas as pd

    rows = [{**r, "detail": json.dumps(r["detail"], ensure_ascii=False, sort_keys=True)} for r in audit_trail(project)]
    return csv_text(pd.DataFrame(rows, columns=list(store.AUDIT_COLUMNS)))
