"""SQL for people's claim labels (migration 008) and the claims they are matched with.

A label names its claim by ``(run_id, item_id, claim text)``, the text exactly as the ``claims``
table holds it (an import resolves the text a file gives to the stored one). A verifier's claim
(one row per verifier signature) is matched with a label on the same run, item and text, so a
label given on one verifier's claim counts for every verifier that produced the same claim.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from rageval.store.db import connect, records, unnested

LABEL_COLUMNS = ("run_id", "item_id", "claim", "ordinal", "rater", "label", "evidence", "evidence_chunk",
                 "span_start", "span_end", "created")
#: the DuckDB types of LABEL_COLUMNS but ``created``
_TYPES = ("VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "INTEGER")


def _in(values: Sequence[str]) -> str:
    return ", ".join("?" for _ in values) or "NULL"


def save_labels(db: Path, rows: Sequence[dict[str, Any]]) -> None:
    """Store label rows (keys of ``LABEL_COLUMNS`` but ``created``) in one transaction; a rater's
    earlier label of the same claim is replaced (so is an earlier row of ``rows``)."""
    cols = LABEL_COLUMNS[:-1]
    last = {(r["run_id"], r["item_id"], r["claim"], r["rater"]): [r["run_id"], r["item_id"], r["claim"]]
            + [r.get(k) for k in cols[3:]] for r in rows}
    select, params = unnested(_TYPES, list(last.values()))
    with connect(db) as con:
        con.execute("BEGIN TRANSACTION")
        con.execute(
            f"INSERT INTO claim_labels ({', '.join(cols)}) {select}"
            " ON CONFLICT (run_id, item_id, claim, rater) DO UPDATE SET ordinal = excluded.ordinal,"
            " label = excluded.label, evidence = excluded.evidence, evidence_chunk = excluded.evidence_chunk,"
            " span_start = excluded.span_start, span_end = excluded.span_end, created = now()",
            params,
        )
        con.execute("COMMIT")


def delete_label(db: Path, run_id: str, item_id: str, claim: str, rater: str) -> None:
    with connect(db) as con:
        con.execute("DELETE FROM claim_labels WHERE run_id = ? AND item_id = ? AND claim = ? AND rater = ?",
                    [run_id, item_id, claim, rater])


def labels(db: Path, run_ids: Sequence[str], *, item_id: str | None = None) -> list[dict[str, Any]]:
    """Labels of the runs (of one answer with ``item_id``), with the question, in run, answer order."""
    return records(db, (
        f"SELECT {', '.join('l.' + c for c in LABEL_COLUMNS)}, a.question FROM claim_labels l"
        " LEFT JOIN answers a ON a.run_id = l.run_id AND a.item_id = l.item_id"
        f" WHERE l.run_id IN ({_in(run_ids)}) AND (? IS NULL OR l.item_id = ?)"
        " ORDER BY l.run_id, a.ordinal, l.item_id, l.ordinal, l.claim, l.rater"),
        [*run_ids, item_id, item_id], (*LABEL_COLUMNS, "question"))


def labelled_runs(db: Path) -> dict[str, int]:
    """Run id -> number of label rows (SKIP included)."""
    with connect(db) as con:
        return dict(con.execute("SELECT run_id, count(*) FROM claim_labels GROUP BY run_id").fetchall())


def verdicts(db: Path, run_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Every verifier's claims of the runs: run, item, signature, judge, ordinal, text,
    verdict and the verifier's confidence (``details.confidence``, NULL when it gave none)."""
    return records(db, (
        f"SELECT run_id, item_id, signature, judge, ordinal, text, verdict,"
        " TRY_CAST(json_extract_string(details, '$.confidence') AS DOUBLE) FROM claims"
        f" WHERE run_id IN ({_in(run_ids)}) ORDER BY run_id, item_id, signature, ordinal"),
        list(run_ids), ("run_id", "item_id", "signature", "judge", "ordinal", "claim", "verdict", "confidence"))


def claim_texts(db: Path, run_id: str) -> list[dict[str, Any]]:
    """The distinct claims of a run, ``(item_id, ordinal, claim)`` per verifier signature (for import)."""
    return records(db, (
        f"SELECT DISTINCT item_id, signature, ordinal, text FROM claims WHERE run_id = ?"),
        [run_id], ("item_id", "signature", "ordinal", "claim"))


def queue(db: Path, run_id: str, rater: str, *, limit: int = 1, offset: int = 0) -> list[dict[str, Any]]:
    """The run's claims ``rater`` has not labelled yet, most urgent first: a claim some verifier left
    UNVERIFIED, then claims the verifiers disagree on, then the lowest confidence any verifier gave (a
    verdict without a confidence, as an LLM judge's, counts as certain), then answer order and claim
    index. One row per (answer, claim text), with the answer's question and its total of claims still
    to label."""
    sql = (
        f"WITH c AS (SELECT item_id, text AS claim, min(ordinal) AS ordinal,"
        " max(CASE WHEN verdict = 'UNVERIFIED' THEN 1 ELSE 0 END) AS unverified,"
        " min(coalesce(TRY_CAST(json_extract_string(details, '$.confidence') AS DOUBLE), 1.0)) AS confidence,"
        " count(DISTINCT verdict) > 1 AS disagree, string_agg(DISTINCT verdict, ' / ' ORDER BY verdict) AS verdicts"
        " FROM claims WHERE run_id = ? GROUP BY item_id, claim),"
        " todo AS (SELECT c.* FROM c ANTI JOIN claim_labels l ON l.run_id = ? AND l.rater = ?"
        " AND l.item_id = c.item_id AND l.claim = c.claim)"
        " SELECT todo.item_id, todo.claim, todo.ordinal, todo.unverified, todo.disagree, todo.confidence,"
        " todo.verdicts, a.question, count(*) OVER () AS remaining FROM todo"
        " LEFT JOIN answers a ON a.run_id = ? AND a.item_id = todo.item_id"
        " ORDER BY todo.unverified DESC, todo.disagree DESC, todo.confidence, a.ordinal, todo.item_id, todo.ordinal"
        " LIMIT ? OFFSET ?")
    return records(db, sql, [run_id, run_id, rater, run_id, int(limit), int(offset)],
                   ("item_id", "claim", "ordinal", "unverified", "disagree", "confidence", "verdicts", "question",
                    "remaining"))


def claim_sources(db: Path, run_id: str) -> int:
    """How many judges (``heuristic`` for the offline path, a model spec for an LLM) gave the run's claims."""
    with connect(db) as con:
        return int(con.execute("SELECT count(DISTINCT judge) FROM claims WHERE run_id = ?", [run_id]).fetchone()[0])
