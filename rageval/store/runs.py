"""SQL for QA sets, runs, answers, retrievals, metric scores and claims."""
from __future__ import annotations

import json
import secrets
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from rageval.store.db import connect
from rageval.store.items import save_items
from rageval.store.record import COLUMNS, Run


def new_run_id() -> str:
    """A new run id: UTC time and 6 random hex digits (``20261202-013000-a1b2c3``)."""
    return datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(3)


# --- QA sets -----------------------------------------------------------------------------

def save_qa_set(db: Path, name: str, source: str, items: Sequence[dict[str, Any]], *,
                generator: str | None = None, generation: dict[str, Any] | None = None) -> None:
    """Replace the QA set ``name`` with ``items`` (id, question, references, relevant, domain; a
    generated item also kind, sources and status). ``generator`` and ``generation`` record what
    made a generated set (:mod:`rageval.testsets`); an imported set has neither."""
    with connect(db) as con:
        con.execute("BEGIN TRANSACTION")
        con.execute("DELETE FROM qa_items WHERE qa_set = ?", [name])
        con.execute(
            "INSERT INTO qa_sets (name, source, generator, generation) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (name) DO UPDATE SET source = excluded.source, generator = excluded.generator,"
            " generation = excluded.generation, created = now()",
            [name, source, generator, None if generation is None else json.dumps(generation)],
        )
        con.executemany(
            "INSERT INTO qa_items (qa_set, id, ordinal, question, refs, relevant, domain, kind, sources, status)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                [name, it["id"], i, it["question"], json.dumps(list(it["references"])),
                 json.dumps(dict(it.get("relevant") or {})), it.get("domain"), it.get("kind"),
                 None if it.get("sources") is None else json.dumps(it["sources"]), it.get("status")]
                for i, it in enumerate(items)
            ],
        )
        con.execute("COMMIT")


def qa_sets(db: Path) -> list[dict[str, Any]]:
    """Every QA set: name, source, created, items (those a run uses: not dropped by a reviewer), generator."""
    with connect(db) as con:
        rows = con.execute(
            "SELECT s.name, s.source, s.created, count(i.id), s.generator FROM qa_sets s"
            " LEFT JOIN qa_items i ON i.qa_set = s.name AND i.status IS DISTINCT FROM 'dropped'"
            " GROUP BY s.name, s.source, s.created, s.generator ORDER BY s.created DESC, s.name"
        ).fetchall()
    return [{"name": r[0], "source": r[1], "created": r[2], "items": int(r[3]), "generator": r[4]} for r in rows]


def qa_set_generation(db: Path, name: str) -> tuple[str | None, dict[str, Any] | None]:
    """``(generator, generation record)`` of QA set ``name``; ``(None, None)`` for an imported set."""
    with connect(db) as con:
        row = con.execute("SELECT generator, generation FROM qa_sets WHERE name = ?", [name]).fetchone()
    if row is None:
        return None, None
    return row[0], (json.loads(row[1]) if row[1] is not None else None)


def qa_items(db: Path, name: str, *, include_dropped: bool = False) -> list[dict[str, Any]]:
    """The items of QA set ``name`` in order; the ones a reviewer dropped only when ``include_dropped``."""
    with connect(db) as con:
        return _qa_items(con, name, include_dropped=include_dropped)


def _qa_items(con: Any, name: str, *, include_dropped: bool = False) -> list[dict[str, Any]]:
    rows = con.execute(
        "SELECT id, question, refs, relevant, domain, kind, sources, status FROM qa_items"
        " WHERE qa_set = ? AND (? OR status IS DISTINCT FROM 'dropped') ORDER BY ordinal",
        [name, include_dropped],
    ).fetchall()
    return [
        {"id": r[0], "question": r[1], "references": json.loads(r[2]),
         "relevant": json.loads(r[3]), "domain": r[4], "kind": r[5],
         "sources": None if r[6] is None else json.loads(r[6]), "status": r[7]}
        for r in rows
    ]


# --- runs --------------------------------------------------------------------------------

def create_run(db: Path, run_id: str, *, kind: str, corpus: str | None, qa_set: str | None,
               config: dict[str, Any], config_hash: str, n_items: int) -> None:
    with connect(db) as con:
        con.execute(
            "INSERT INTO runs (id, kind, corpus, qa_set, config, config_hash, status, n_items)"
            " VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)",
            [run_id, kind, corpus, qa_set, json.dumps(config), config_hash, n_items],
        )


def set_run_status(db: Path, run_id: str, status: str, error: str | None = None) -> None:
    """Move a run to ``status``; 'running' stamps ``started``, a final status stamps ``finished``."""
    with connect(db) as con:
        con.execute(
            "UPDATE runs SET status = ?, error = ?,"
            " started = CASE WHEN ? = 'running' THEN coalesce(started, current_timestamp) ELSE started END,"
            " finished = CASE WHEN ? IN ('finished', 'failed', 'interrupted') THEN current_timestamp"
            "                 ELSE NULL END"
            " WHERE id = ?",
            [status, error, status, status, run_id],
        )


def runs(db: Path) -> list[Run]:
    """Every run, newest first, with items done and failed."""
    with connect(db) as con:
        rows = con.execute(f"SELECT {COLUMNS} FROM runs r ORDER BY r.created DESC, r.id").fetchall()
    return [Run.from_row(r) for r in rows]


def get_run(db: Path, run_id: str) -> Run | None:
    with connect(db) as con:
        row = con.execute(f"SELECT {COLUMNS} FROM runs r WHERE r.id = ?", [run_id]).fetchone()
    return Run.from_row(row) if row else None


def get_runs(db: Path, run_ids: Sequence[str]) -> dict[str, Run]:
    """Run id -> the run, for those of ``run_ids`` that exist (one query)."""
    if not run_ids:
        return {}
    marks = ", ".join("?" for _ in run_ids)
    with connect(db) as con:
        rows = con.execute(f"SELECT {COLUMNS} FROM runs r WHERE r.id IN ({marks})", list(run_ids)).fetchall()
    return {run.id: run for run in map(Run.from_row, rows)}


def run_state(db: Path, run_id: str) -> tuple[Run, list[dict[str, Any]], set[str]] | None:
    """``(run, its QA items in order, the ids of its stored items)`` through one connection, or
    None when there is no such run (what a run's executor reads before the first item)."""
    with connect(db) as con:
        row = con.execute(f"SELECT {COLUMNS} FROM runs r WHERE r.id = ?", [run_id]).fetchone()
        if row is None:
            return None
        run = Run.from_row(row)
        items = _qa_items(con, run.qa_set) if run.qa_set else []
        done = {r[0] for r in con.execute("SELECT item_id FROM answers WHERE run_id = ?", [run_id]).fetchall()}
    return run, items, done


# --- per-item results --------------------------------------------------------------------

def save_item(db: Path, run_id: str, item: dict[str, Any], scores: Sequence[dict[str, Any]],
              claims: Sequence[dict[str, Any]]) -> None:
    """Store one finished item (answer, retrievals, scores, claims) in one transaction.

    ``item``: item_id, ordinal, question, answer, references, contexts, retrieved
    [(chunk_id, score)], status, reason, latency_ms, details. Re-saving replaces the item, so a
    resumed run never duplicates rows. Callers with several finished items use
    :func:`rageval.store.items.save_items` (one connection, one transaction per batch).
    """
    save_items(db, run_id, [(item, scores, claims)])


def answers(db: Path, run_id: str) -> list[dict[str, Any]]:
    """Answers of a run in QA-set order, with retrieved (chunk_id, score) lists."""
    with connect(db) as con:
        rows = con.execute(
            "SELECT item_id, ordinal, question, answer, refs, contexts, status, reason, latency_ms, details"
            " FROM answers WHERE run_id = ? ORDER BY ordinal",
            [run_id],
        ).fetchall()
        ret = con.execute(
            "SELECT item_id, chunk_id, score FROM retrievals WHERE run_id = ? ORDER BY item_id, rank",
            [run_id],
        ).fetchall()
    retrieved: dict[str, list[tuple[str, float]]] = {}
    for item_id, chunk_id, score in ret:
        retrieved.setdefault(item_id, []).append((chunk_id, score))
    keys = ("item_id", "ordinal", "question", "answer", "references", "contexts", "status", "reason",
            "latency_ms", "details")
    out = []
    for r in rows:
        a = dict(zip(keys, r))
        a["references"] = json.loads(a["references"])
        a["contexts"] = json.loads(a["contexts"])
        a["details"] = json.loads(a["details"]) if a["details"] else {}
        a["retrieved"] = retrieved.get(a["item_id"], [])
        out.append(a)
    return out


def scores(db: Path, run_id: str) -> list[dict[str, Any]]:
    """Long-form metric scores of a run."""
    with connect(db) as con:
        rows = con.execute(
            "SELECT item_id, metric, signature, value, status, reason, details FROM metric_scores"
            " WHERE run_id = ? ORDER BY item_id, metric",
            [run_id],
        ).fetchall()
    keys = ("item_id", "metric", "signature", "value", "status", "reason", "details")
    out = []
    for r in rows:
        s = dict(zip(keys, r))
        s["details"] = json.loads(s["details"]) if s["details"] else None
        out.append(s)
    return out


def claims(db: Path, run_id: str, item_id: str | None = None) -> list[dict[str, Any]]:
    with connect(db) as con:
        rows = con.execute(
            "SELECT item_id, signature, ordinal, text, verdict, evidence, evidence_chunk, span_start,"
            " span_end, reason, judge, details FROM claims"
            " WHERE run_id = ? AND (? IS NULL OR item_id = ?) ORDER BY item_id, signature, ordinal",
            [run_id, item_id, item_id],
        ).fetchall()
    keys = ("item_id", "signature", "ordinal", "text", "verdict", "evidence", "evidence_chunk",
            "span_start", "span_end", "reason", "judge", "details")
    out = []
    for r in rows:
        c = dict(zip(keys, r))
        c["details"] = json.loads(c["details"]) if c["details"] else {}
        out.append(c)
    return out


# --- human ratings -----------------------------------------------------------------------

def ratings(db: Path, run_id: str) -> list[dict[str, Any]]:
    with connect(db) as con:
        rows = con.execute(
            "SELECT item_id, annotator, rating FROM human_ratings WHERE run_id = ? ORDER BY item_id, annotator",
            [run_id],
        ).fetchall()
    return [{"item_id": r[0], "annotator": r[1], "rating": r[2]} for r in rows]
