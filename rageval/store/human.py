"""SQL for human ratings, agreed scores, the per-item table of analyses, and stored correlations."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from rageval.store.db import arrow_frame, connect, records, unnested


def _in(values: Sequence[str]) -> str:
    return ", ".join("?" for _ in values) or "NULL"


# --- ratings -------------------------------------------------------------------------------

def save_ratings(db: Path, rows: Sequence[tuple], *, imported_by: str | None = None) -> None:
    """Store ``(run_id, item_id, annotator, rating)`` rows in one transaction; a rating already
    given by that annotator to that answer is replaced (so is an earlier row of ``rows``). A file's
    rows name who imported them (``imported_by``) and may carry a fifth item, the file's own rater
    value, kept apart in ``file_rater``; a rating given in the app or the CLI has neither."""
    last = {(r[0], r[1], r[2]): [int(r[3]), r[4] if len(r) > 4 else None] for r in rows}
    select, params = unnested(("VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "VARCHAR", "VARCHAR"),
                              [[*k, v, rater, imported_by] for k, (v, rater) in last.items()])
    with connect(db) as con:
        con.execute("BEGIN TRANSACTION")
        con.execute(
            f"INSERT INTO human_ratings (run_id, item_id, annotator, rating, file_rater, imported_by) {select}"
            " ON CONFLICT (run_id, item_id, annotator) DO UPDATE SET rating = excluded.rating,"
            " file_rater = excluded.file_rater, imported_by = excluded.imported_by, created = now()",
            params,
        )
        con.execute("COMMIT")


def ratings(db: Path, run_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Ratings of the given runs, with the question of each rated answer."""
    return records(db, (
            "SELECT h.run_id, h.item_id, a.question, h.annotator, h.rating, h.created, h.file_rater, h.imported_by"
            " FROM human_ratings h LEFT JOIN answers a ON a.run_id = h.run_id AND a.item_id = h.item_id"
            f" WHERE h.run_id IN ({_in(run_ids)}) ORDER BY h.run_id, a.ordinal, h.item_id, h.annotator"
        ), list(run_ids), ("run_id", "item_id", "question", "annotator", "rating", "created", "file_rater",
                           "imported_by"))


def rating_counts(db: Path, run_ids: Sequence[str]) -> dict[str, int]:
    """How many ratings each of ``run_ids`` has (runs without any are left out)."""
    return {r["run_id"]: int(r["n"]) for r in records(
        db, f"SELECT run_id, count(*) AS n FROM human_ratings WHERE run_id IN ({_in(run_ids)}) GROUP BY run_id",
        list(run_ids), ("run_id", "n"))}


def set_agreed(db: Path, run_id: str, item_id: str, score: float | None, note: str | None = None) -> None:
    """Set (or with ``score=None`` clear) the agreed score of one answer."""
    with connect(db) as con:
        if score is None:
            con.execute("DELETE FROM agreed_scores WHERE run_id = ? AND item_id = ?", [run_id, item_id])
        else:
            con.execute(
                "INSERT INTO agreed_scores (run_id, item_id, score, note) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (run_id, item_id) DO UPDATE SET score = excluded.score, note = excluded.note,"
                " created = now()",
                [run_id, item_id, float(score), note],
            )


def agreed(db: Path, run_ids: Sequence[str]) -> dict[tuple[str, str], float]:
    with connect(db) as con:
        rows = con.execute(f"SELECT run_id, item_id, score FROM agreed_scores WHERE run_id IN ({_in(run_ids)})",
                           list(run_ids)).fetchall()
    return {(r[0], r[1]): float(r[2]) for r in rows}


# --- the per-item table of an analysis -----------------------------------------------------

def items(db: Path, run_ids: Sequence[str]) -> list[dict[str, Any]]:
    """One row per answer of the runs: run, item, question, answer, references, contexts, status,
    the QA set (dataset), the item's domain and the run's kind."""
    with connect(db) as con:
        rows = con.execute(
            "SELECT a.run_id, a.item_id, a.ordinal, a.question, a.answer, a.refs, a.contexts, a.status,"
            " r.qa_set, q.domain, r.kind FROM answers a JOIN runs r ON r.id = a.run_id"
            " LEFT JOIN qa_items q ON q.qa_set = r.qa_set AND q.id = a.item_id"
            f" WHERE a.run_id IN ({_in(run_ids)}) ORDER BY a.run_id, a.ordinal",
            list(run_ids),
        ).fetchall()
    keys = ("run_id", "item_id", "ordinal", "question", "answer", "references", "contexts", "status", "qa_set",
            "domain", "kind")
    out = []
    for r in rows:
        d = dict(zip(keys, r))
        d["references"], d["contexts"] = json.loads(d["references"]), json.loads(d["contexts"])
        out.append(d)
    return out


def item_labels(db: Path, run_ids: Sequence[str]) -> list[dict[str, Any]]:
    """What :func:`items` gives without the texts an analysis never reads (answer, references,
    contexts, status): run, item, ordinal, question, QA set, domain and the run's kind, in the same order."""
    with connect(db) as con:
        rows = con.execute(
            "SELECT a.run_id, a.item_id, a.ordinal, a.question, r.qa_set, q.domain, r.kind"
            " FROM answers a JOIN runs r ON r.id = a.run_id"
            " LEFT JOIN qa_items q ON q.qa_set = r.qa_set AND q.id = a.item_id"
            f" WHERE a.run_id IN ({_in(run_ids)}) ORDER BY a.run_id, a.ordinal",
            list(run_ids),
        ).fetchall()
    keys = ("run_id", "item_id", "ordinal", "question", "qa_set", "domain", "kind")
    return [dict(zip(keys, r)) for r in rows]


def _ok_values_sql(run_ids: Sequence[str]) -> str:
    """The scored values (status ``ok``) of ``run_ids``: run_id, item_id, metric, signature, value."""
    return ("SELECT run_id, item_id, metric, signature, value FROM metric_scores"
            f" WHERE status = 'ok' AND value IS NOT NULL AND run_id IN ({_in(run_ids)})")


def metric_values_table(db: Path, run_ids: Sequence[str]) -> Any:
    """:func:`metric_values` as a pandas DataFrame (columns run_id, item_id, metric, signature,
    value), built by DuckDB without a Python object per score."""
    with connect(db) as con:
        return arrow_frame(con, _ok_values_sql(run_ids), run_ids)


def metric_values(db: Path, run_ids: Sequence[str]) -> list[tuple[str, str, str, str, float]]:
    """``(run_id, item_id, metric, signature, value)`` of every score with status ``ok``."""
    with connect(db) as con:
        return con.execute(_ok_values_sql(run_ids), list(run_ids)).fetchall()


# --- stored correlations -------------------------------------------------------------------

_CELL = ("group_value", "metric_a", "metric_b", "rho", "p", "n", "ci_low", "ci_high", "ci_method", "reason")


def save_correlations(db: Path, analysis_id: str, *, runs: Sequence[str], grouping: str, method: str,
                      filters: dict[str, Any], settings: dict[str, Any], cells: Sequence[dict[str, Any]]) -> None:
    """Store (replacing) every cell of one analysis in one transaction."""
    meta = [json.dumps(list(runs)), grouping, method, json.dumps(filters), json.dumps(settings)]
    with connect(db) as con:
        con.execute("BEGIN TRANSACTION")
        con.execute("DELETE FROM correlations WHERE id = ?", [analysis_id])
        con.executemany(
            "INSERT INTO correlations (id, runs, grouping, method, filters, settings, group_value, metric_a,"
            " metric_b, rho, p, n, ci_low, ci_high, ci_method, reason)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [[analysis_id] + meta + [c.get(k) for k in _CELL] for c in cells],
        )
        con.execute("COMMIT")


def analyses(db: Path) -> list[dict[str, Any]]:
    """Stored analyses, newest first: id, runs, grouping, method, filters, settings, created, groups, cells."""
    with connect(db) as con:
        rows = con.execute(
            "SELECT id, any_value(runs), any_value(grouping), any_value(method), any_value(filters),"
            " any_value(settings), max(created), count(DISTINCT group_value), count(*) FROM correlations"
            " GROUP BY id ORDER BY max(created) DESC, id"
        ).fetchall()
    keys = ("id", "runs", "grouping", "method", "filters", "settings", "created", "groups", "cells")
    out = []
    for r in rows:
        d = dict(zip(keys, r))
        for k in ("runs", "filters", "settings"):
            d[k] = json.loads(d[k]) if d[k] else ({} if k != "runs" else [])
        out.append(d)
    return out


def correlation_cells(db: Path, analysis_id: str) -> list[dict[str, Any]]:
    with connect(db) as con:
        rows = con.execute(
            f"SELECT {', '.join(_CELL)} FROM correlations WHERE id = ? ORDER BY group_value, metric_a, metric_b",
            [analysis_id],
        ).fetchall()
    return [dict(zip(_CELL, r)) for r in rows]
