"""SQL for corpora, documents, chunks and ingest errors."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Sequence

from rageval.store.db import connect, records, unnested

#: the DuckDB types of a chunk row: id, doc_id, chunking, ordinal, text, page, char_start, char_end
_CHUNK_TYPES = ("VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "VARCHAR", "INTEGER", "INTEGER", "INTEGER")


def add_documents(db: Path, corpus: str, documents: Sequence[Any], chunks: Sequence[Any], chunking: str) -> int:
    """Store documents (skipping ones already stored: same bytes, same id) and their chunks.

    Returns how many documents were new to the corpus. Idempotent: re-ingesting the same
    file with the same chunking changes nothing.
    """
    with connect(db) as con:
        con.execute("BEGIN TRANSACTION")
        con.execute("INSERT INTO corpora (name) VALUES (?) ON CONFLICT DO NOTHING", [corpus])
        before = con.execute(
            "SELECT count(*) FROM corpus_documents WHERE corpus = ?", [corpus]
        ).fetchone()[0]
        for doc in documents:
            con.execute(
                "INSERT INTO documents (id, name, kind, pages, size_bytes, text, page_starts, original_name,"
                " repaired, garbled) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [doc.id, doc.name, doc.kind, len(doc.pages), doc.size_bytes, doc.text,
                 json.dumps(list(doc.page_offsets)), getattr(doc, "original_name", None),
                 getattr(doc, "repaired", None), getattr(doc, "garbled", None)],
            )
            con.execute(
                "INSERT INTO corpus_documents (corpus, doc_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [corpus, doc.id],
            )
            con.execute("DELETE FROM ingest_errors WHERE corpus = ? AND name = ?", [corpus, doc.name])
        rows = [
            [c.id, c.doc_id, chunking, c.ordinal, c.text, c.page, c.char_start, c.char_end]
            for c in chunks
        ]
        if rows:  # one statement (db.unnested): a statement per row took 4 ms a chunk
            select, params = unnested(_CHUNK_TYPES, rows)
            con.execute("INSERT INTO chunks (id, doc_id, chunking, ordinal, text, page, char_start, char_end)"
                        f" {select} ON CONFLICT DO NOTHING", params)
        after = con.execute(
            "SELECT count(*) FROM corpus_documents WHERE corpus = ?", [corpus]
        ).fetchone()[0]
        con.execute("COMMIT")
    return int(after - before)


def record_chunking(db: Path, corpus: str, chunking: str) -> None:
    """Record ``chunking`` (a signature) as the one ``corpus`` was ingested with."""
    with connect(db) as con:
        con.execute("INSERT INTO corpora (name, chunking) VALUES (?, ?)"
                    " ON CONFLICT (name) DO UPDATE SET chunking = excluded.chunking", [corpus, chunking])


def corpus_chunking(db: Path, corpus: str) -> str | None:
    """The chunking signature ``corpus`` was last ingested with; for a corpus ingested before it was
    recorded, the one chunking its chunks are stored under (None when there are several or none)."""
    with connect(db) as con:
        row = con.execute("SELECT chunking FROM corpora WHERE name = ?", [corpus]).fetchone()
        if row is not None and row[0]:
            return str(row[0])
        stored = con.execute("SELECT DISTINCT c.chunking FROM chunks c JOIN corpus_documents cd"
                             " ON cd.doc_id = c.doc_id AND cd.corpus = ?", [corpus]).fetchall()
    return str(stored[0][0]) if len(stored) == 1 else None


def chunkings_of(db: Path, ids: Iterable[str]) -> dict[str, int]:
    """How many of ``ids`` are chunks stored under each chunking signature."""
    ids = list(ids)
    if not ids:
        return {}
    with connect(db) as con:
        rows = con.execute("SELECT chunking, count(*) FROM chunks WHERE list_contains(?, id) GROUP BY chunking",
                           [ids]).fetchall()
    return {str(r[0]): int(r[1]) for r in rows}


def record_ingest_errors(db: Path, corpus: str, errors: Sequence[Any]) -> None:
    """Keep the latest error per (corpus, file name) so the Documents page can list them."""
    if not errors:
        return
    with connect(db) as con:
        con.execute("INSERT INTO corpora (name) VALUES (?) ON CONFLICT DO NOTHING", [corpus])
        con.executemany(
            "INSERT INTO ingest_errors (corpus, name, reason) VALUES (?, ?, ?)"
            " ON CONFLICT (corpus, name) DO UPDATE SET reason = excluded.reason,"
            " created = now()",
            [[corpus, e.name, e.reason] for e in errors],
        )


def corpora(db: Path) -> list[dict[str, Any]]:
    """Every corpus with its document count, newest first."""
    with connect(db) as con:
        rows = con.execute(
            "SELECT c.name, count(cd.doc_id), c.created FROM corpora c"
            " LEFT JOIN corpus_documents cd ON cd.corpus = c.name"
            " GROUP BY c.name, c.created ORDER BY c.created DESC, c.name"
        ).fetchall()
    return [{"name": r[0], "documents": int(r[1]), "created": r[2]} for r in rows]


def documents(db: Path, corpus: str) -> list[dict[str, Any]]:
    """The corpus's documents: id, name, kind, pages, size, characters, characters repaired at
    ingest and the garbled share left (None for documents ingested before these were recorded)."""
    return records(db, (
            "SELECT d.id, d.name, d.kind, d.pages, d.size_bytes, length(d.text), d.repaired, d.garbled"
            " FROM documents d JOIN corpus_documents cd ON cd.doc_id = d.id WHERE cd.corpus = ? ORDER BY d.name"
        ), [corpus], ("id", "name", "kind", "pages", "size_bytes", "chars", "repaired", "garbled"))


def document_texts(db: Path, corpus: str) -> list[dict[str, Any]]:
    """Documents with their full text and page offsets, for chunking."""
    with connect(db) as con:
        rows = con.execute(
            "SELECT d.id, d.name, d.kind, d.size_bytes, d.text, d.page_starts FROM documents d"
            " JOIN corpus_documents cd ON cd.doc_id = d.id WHERE cd.corpus = ? ORDER BY d.name",
            [corpus],
        ).fetchall()
    return [
        {"id": r[0], "name": r[1], "kind": r[2], "size_bytes": r[3], "text": r[4],
         "page_starts": json.loads(r[5])}
        for r in rows
    ]


def ingest_errors(db: Path, corpus: str | None = None) -> list[dict[str, Any]]:
    return records(db, "SELECT corpus, name, reason, created FROM ingest_errors"
                       " WHERE ? IS NULL OR corpus = ? ORDER BY created DESC, name",
                   [corpus, corpus], ("corpus", "name", "reason", "created"))


def chunks(db: Path, corpus: str, chunking: str, doc_id: str | None = None) -> list[dict[str, Any]]:
    """Chunks of a corpus under one chunking signature, in document and ordinal order."""
    return records(db, (
            "SELECT c.id, c.doc_id, d.name, c.ordinal, c.text, c.page, c.char_start, c.char_end"
            " FROM chunks c JOIN corpus_documents cd ON cd.doc_id = c.doc_id AND cd.corpus = ?"
            " JOIN documents d ON d.id = c.doc_id"
            " WHERE c.chunking = ? AND (? IS NULL OR c.doc_id = ?)"
            " ORDER BY d.name, c.ordinal"
        ), [corpus, chunking, doc_id, doc_id],
        ("id", "doc_id", "doc_name", "ordinal", "text", "page", "char_start", "char_end"))


def chunks_by_id(db: Path, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    if not ids:
        return {}
    with connect(db) as con:
        rows = con.execute(
            "SELECT c.id, c.doc_id, d.name, c.ordinal, c.text, c.page, c.char_start, c.char_end"
            " FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE list_contains(?, c.id)",
            [list(ids)],
        ).fetchall()
    keys = ("id", "doc_id", "doc_name", "ordinal", "text", "page", "char_start", "char_end")
    return {r[0]: dict(zip(keys, r)) for r in rows}


def chunk_ids(db: Path, ids: Iterable[str]) -> set[str]:
    """Which of ``ids`` are chunks of this store."""
    ids = list(ids)
    if not ids:
        return set()
    with connect(db) as con:
        return {r[0] for r in con.execute("SELECT id FROM chunks WHERE list_contains(?, id)", [ids]).fetchall()}
