"""SQL for people's claim labels (migration 008), their history (011) and the claims they are matched with.

A label names its claim by ``(run_id, item_id, claim text)``, the text exactly as the ``claims``
table holds it (an import resolves the text a file gives to the stored one). A verifier's claim
(one row per verifier signature) is matched with a label on the same run, item and text, so a
label given on one verifier's claim counts for every verifier that produced the same claim.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from rageval.store.db import connect, records, unnest_select, unnested

LABEL_COLUMNS = ("run_id", "item_id", "claim", "ordinal", "rater", "label", "evidence", "evidence_chunk",
                 "span_start", "span_end", "created")
#: the DuckDB types of LABEL_COLUMNS but ``created``
_TYPES = ("VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "INTEGER")


def _in(values: Sequence[str]) -> str:
    return ", ".join("?" for _ in values) or "NULL"


#: what makes a label different from the rater's earlier one (a row equal in these is not replaced)
_DECIDED = ("label", "evidence", "evidence_chunk", "span_start", "span_end")
_KEY = "run_id = ? AND item_id = ? AND claim = ? AND rater = ?"


def save_labels(db: Path, rows: Sequence[dict[str, Any]], *, source: str = "app") -> dict[str, int]:
    """Store label rows (keys of ``LABEL_COLUMNS`` but ``created``) in one transaction; a rater's
    earlier label of the same claim is replaced (so is an earlier row of ``rows``). An earlier label
    that differs (in label, evidence or span) goes to ``claim_label_history`` first, with the time
    and ``source`` (the import's file, ``"app"``). Returns, per rater, how many earlier labels were
    replaced (the same transaction reads and writes them: a concurrent import cannot slip between)."""
    cols = LABEL_COLUMNS[:-1]
    last = {(r["run_id"], r["item_id"], r["claim"], r["rater"]): [r["run_id"], r["item_id"], r["claim"]]
            + [r.get(k) for k in cols[3:]] for r in rows}
    _, params = unnested(_TYPES, list(last.values()))
    select = unnest_select(_TYPES, cols)
    differs = " OR ".join(f"l.{c} IS DISTINCT FROM n.{c}" for c in _DECIDED)
    with connect(db) as con:
        con.execute("BEGIN TRANSACTION")
        con.execute(f"CREATE TEMP TABLE new_labels AS {select}", params)
        replaced = con.execute(
            f"INSERT INTO claim_label_history SELECT {', '.join('l.' + c for c in LABEL_COLUMNS)}, now(), ?"
            " FROM claim_labels l JOIN new_labels n USING (run_id, item_id, claim, rater)"
            f" WHERE {differs} RETURNING rater", [source]).fetchall()
        con.execute(
            f"INSERT INTO claim_labels ({', '.join(cols)}) SELECT * FROM new_labels"
            " ON CONFLICT (run_id, item_id, claim, rater) DO UPDATE SET ordinal = excluded.ordinal,"
            " label = excluded.label, evidence = excluded.evidence, evidence_chunk = excluded.evidence_chunk,"
            " span_start = excluded.span_start, span_end = excluded.span_end,"  # an unchanged label keeps its time
            f" created = CASE WHEN {' OR '.join(f'{c} IS DISTINCT FROM excluded.{c}' for c in _DECIDED)}"
            " THEN now() ELSE created END")
        con.execute("DROP TABLE new_labels")
        con.execute("COMMIT")
    counts: dict[str, int] = {}
    for (rater,) in replaced:
        counts[rater] = counts.get(rater, 0) + 1
    return counts


def delete_label(db: Path, run_id: str, item_id: str, claim: str, rater: str, *, source: str = "app") -> None:
    """Remove a rater's label of a claim; the label goes to ``claim_label_history`` (replaced by ``source``)."""
    key = [run_id, item_id, claim, rater]
    with connect(db) as con:
        con.execute("BEGIN TRANSACTION")
        con.execute(f"INSERT INTO claim_label_history SELECT {', '.join(LABEL_COLUMNS)}, now(), ? FROM claim_labels"
                    f" WHERE {_KEY}", [f"{source} (deleted)", *key])
        con.execute(f"DELETE FROM claim_labels WHERE {_KEY}", key)
        con.execute("COMMIT")


def labels_as_of(db: Path, run_ids: Sequence[str], when: Any) -> list[dict[str, Any]]:
    """The labels of the runs as they stood at ``when`` (a timestamp): each rater's label given at or
    before it and not replaced by then, from the current labels and the history; with the question."""
    cols = ", ".join(LABEL_COLUMNS)
    return records(db, (
        f"WITH standing AS (SELECT {cols} FROM claim_labels WHERE created <= CAST(? AS TIMESTAMP)"
        f" UNION ALL SELECT {cols} FROM claim_label_history"
        " WHERE created <= CAST(? AS TIMESTAMP) AND replaced > CAST(? AS TIMESTAMP))"
        f" SELECT {', '.join('l.' + c for c in LABEL_COLUMNS)}, a.question FROM standing l"
        " LEFT JOIN answers a ON a.run_id = l.run_id AND a.item_id = l.item_id"
        f" WHERE l.run_id IN ({_in(run_ids)})"
        " ORDER BY l.run_id, a.ordinal, l.item_id, l.ordinal, l.claim, l.rater"),
        [str(when), str(when), str(when), *run_ids], (*LABEL_COLUMNS, "question"))


def history(db: Path, run_ids: Sequence[str]) -> list[dict[str, Any]]:
    """The replaced and deleted labels of the runs, oldest replacement first."""
    cols = (*LABEL_COLUMNS, "replaced", "replaced_by")
    return records(db, f"SELECT {', '.join(cols)} FROM claim_label_history WHERE run_id IN ({_in(run_ids)})"
                       " ORDER BY replaced, run_id, item_id, claim, rater", list(run_ids), cols)


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
        "SELECT DISTINCT item_id, signature, ordinal, text FROM claims WHERE run_id = ?"),
        [run_id], ("item_id", "signature", "ordinal", "claim"))


def queue(db: Path, run_id: str, rater: str, *, limit: int = 1, offset: int = 0) -> list[dict[str, Any]]:
    """The run's claims ``rater`` has not labelled yet, most urgent first: a claim some verifier left
    UNVERIFIED, then claims the verifiers disagree on, then the lowest confidence any verifier gave (a
    verdict without a confidence, as an LLM judge's, counts as certain), then answer order and claim
    index. One row per (answer, claim text), with the answer's question and its total of claims still
    to label."""
    sql = (
        "WITH c AS (SELECT item_id, text AS claim, min(ordinal) AS ordinal,"
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
