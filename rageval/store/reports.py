"""Read-only aggregate queries for leaderboards, plots and reports (no writes here).

They aggregate in DuckDB and leave ``details`` JSON unparsed, so a project of 10,000 answers
x 20 metrics is summarised in one query instead of 200,000 Python dicts.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from rageval.store.db import arrow_frame, connect, records


def metric_stats(db: Path, run_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Per (run, metric, signature): mean of ok values, counts ok / unscored / failed, and the
    decided and all claims summed over the details that count them (``n_decided``, ``n_all``:
    :mod:`rageval.metrics.coverage`; both null for a metric without coverage)."""
    if not run_ids:
        return []
    return records(db, (
            "SELECT run_id, metric, signature, avg(value) FILTER (WHERE status = 'ok'),"
            " count(*) FILTER (WHERE status = 'ok' AND value IS NOT NULL),"
            " count(*) FILTER (WHERE status = 'unscored'), count(*) FILTER (WHERE status = 'failed'),"
            f" sum({_DETAIL_INT.format('n_decided')}), sum({_DETAIL_INT.format('n_all')})"
            " FROM metric_scores WHERE list_contains(?, run_id) GROUP BY run_id, metric, signature"
            " ORDER BY run_id, metric, signature"
        ), [list(run_ids)], ("run_id", "metric", "signature", "mean", "n_ok", "n_unscored", "n_failed",
                             "n_decided", "n_all"))


#: an integer field of a score's details JSON (null when absent or the details are not JSON)
_DETAIL_INT = "CASE WHEN json_valid(details) THEN try_cast(json_extract_string(details, '$.{}') AS BIGINT) END"


def score_values(db: Path, run_ids: Sequence[str], metrics: Sequence[str] | None = None) -> list[tuple]:
    """``(run_id, item_id, metric, value, status, reason)`` rows, details left out."""
    if not run_ids:
        return []
    with connect(db) as con:
        return con.execute(
            "SELECT run_id, item_id, metric, value, status, reason FROM metric_scores"
            " WHERE list_contains(?, run_id) AND (? IS NULL OR list_contains(?, metric))"
            " ORDER BY run_id, item_id, metric",
            [list(run_ids), None if metrics is None else list(metrics), None if metrics is None else list(metrics)],
        ).fetchall()


def item_domains(db: Path, run_ids: Sequence[str]) -> list[tuple[str, str, str | None]]:
    """``(run_id, item_id, domain)``: the QA item's domain, else the one an import kept in details."""
    if not run_ids:
        return []
    with connect(db) as con:
        return con.execute(
            "SELECT a.run_id, a.item_id, coalesce(i.domain, json_extract_string(a.details, '$.domain'))"
            " FROM answers a JOIN runs r ON r.id = a.run_id"
            " LEFT JOIN qa_items i ON i.qa_set = r.qa_set AND i.id = a.item_id"
            " WHERE list_contains(?, a.run_id) ORDER BY a.run_id, a.ordinal",
            [list(run_ids)],
        ).fetchall()


def low_confidence_counts(db: Path, run_id: str, without: str | None = None) -> tuple[int, int]:
    """``(low-confidence claims, claims)`` stored for the run (``details.low_confidence``), leaving
    out the claims whose signature contains ``without``."""
    with connect(db) as con:
        row = con.execute(
            "SELECT count(*) FILTER (WHERE json_extract_string(details, '$.low_confidence') = 'true'), count(*)"
            " FROM claims WHERE run_id = ? AND (? IS NULL OR position(? IN signature) = 0)",
            [run_id, without, without],
        ).fetchone()
    return int(row[0]), int(row[1])


def score_reasons(db: Path, run_id: str) -> list[tuple[str, str, str | None, int]]:
    """``(metric, status, reason, items)`` for the run's scores that are not ``ok``."""
    with connect(db) as con:
        return con.execute(
            "SELECT metric, status, reason, count(*) FROM metric_scores WHERE run_id = ? AND status <> 'ok'"
            " GROUP BY metric, status, reason ORDER BY metric, status, reason",
            [run_id],
        ).fetchall()


def answer_of(db: Path, run_id: str, item_id: str) -> dict[str, Any] | None:
    """One stored answer with its retrieved ``(chunk_id, score)`` list, as ``runs.answers`` gives them."""
    import json

    with connect(db) as con:
        row = con.execute(
            "SELECT item_id, ordinal, question, answer, refs, contexts, status, reason, latency_ms, details"
            " FROM answers WHERE run_id = ? AND item_id = ?", [run_id, item_id]).fetchone()
        ret = con.execute("SELECT chunk_id, score FROM retrievals WHERE run_id = ? AND item_id = ? ORDER BY rank",
                          [run_id, item_id]).fetchall()
    if row is None:
        return None
    keys = ("item_id", "ordinal", "question", "answer", "references", "contexts", "status", "reason",
            "latency_ms", "details")
    a = dict(zip(keys, row))
    a["references"], a["contexts"] = json.loads(a["references"]), json.loads(a["contexts"])
    a["details"] = json.loads(a["details"]) if a["details"] else {}
    a["retrieved"] = [(cid, score) for cid, score in ret]
    return a


def scores_of(db: Path, run_id: str, item_id: str) -> list[dict[str, Any]]:
    """One answer's metric scores, as ``runs.scores`` gives them."""
    import json

    with connect(db) as con:
        rows = con.execute(
            "SELECT item_id, metric, signature, value, status, reason, details FROM metric_scores"
            " WHERE run_id = ? AND item_id = ? ORDER BY metric", [run_id, item_id]).fetchall()
    keys = ("item_id", "metric", "signature", "value", "status", "reason", "details")
    return [{**dict(zip(keys, r)), "details": json.loads(r[6]) if r[6] else None} for r in rows]


def answer_table_frames(db: Path, run_id: str):
    """In one connection, as DataFrames: answers (no contexts), score values, claim verdict counts
    (with the low-confidence ones among them) and faithfulness diagnoses of a run (the parts of the
    Answers table)."""
    with connect(db) as con:
        answers = con.execute(
            "SELECT a.item_id AS id, a.ordinal + 1 AS \"#\", a.question, a.answer, a.status, a.reason,"
            " coalesce(i.domain, json_extract_string(a.details, '$.domain')) AS domain"
            " FROM answers a JOIN runs r ON r.id = a.run_id"
            " LEFT JOIN qa_items i ON i.qa_set = r.qa_set AND i.id = a.item_id"
            " WHERE a.run_id = ? ORDER BY a.ordinal", [run_id]).df()
        values = arrow_frame(con, "SELECT item_id AS id, metric, value FROM metric_scores WHERE run_id = ?", [run_id])
        verdicts = con.execute(
            "SELECT item_id AS id, signature, verdict, count(*) AS n,"
            " count(*) FILTER (WHERE json_extract_string(details, '$.low_confidence') = 'true') AS low"
            " FROM claims WHERE run_id = ? GROUP BY item_id, signature, verdict", [run_id]).df()
        diagnosis = con.execute(
            "SELECT item_id AS id, json_extract_string(details, '$.diagnosis.answer_cause') AS diagnosis"
            " FROM metric_scores WHERE run_id = ? AND metric = 'faithfulness'", [run_id]).df()
    return answers, values, verdicts, diagnosis
