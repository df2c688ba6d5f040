"""The Documents page's read model: the project's corpora, their documents, failed files and chunks
(uploaded files are ingested in the background by :mod:`rageval.runs.ingest_worker`)."""
from __future__ import annotations

from typing import Any, Sequence

from rageval.config import METHODS, ChunkingConfig, RunConfig
from rageval.demo import DEMO_CORPUS, DEMO_PROJECT
from rageval.project import Project
from rageval.store import corpus as corpus_store
from rageval.store import runs as run_store

__all__ = ["METHODS", "CHUNK_SIZE", "CHUNK_OVERLAP", "is_demo", "default_corpus", "corpora", "documents",
           "ingest_errors", "chunkings", "chunks", "chunking"]

#: the chunking defaults the upload form starts from (rageval.config.ChunkingConfig)
CHUNK_SIZE, CHUNK_OVERLAP = ChunkingConfig.size, ChunkingConfig.overlap


def is_demo(project: Project) -> bool:
    return project.slug == DEMO_PROJECT


def default_corpus(project: Project, corpora: Sequence[str]) -> str:
    """The user's own corpus (the project's first), never the demo's: files never join the demo corpus."""
    mine = [c for c in corpora if not (project.slug == DEMO_PROJECT and c == DEMO_CORPUS)]
    return mine[0] if mine else "my-docs"


def chunking(method: str, size: int, overlap: int) -> ChunkingConfig:
    """The chunking asked for; raises ConfigError naming a size or overlap that cannot work."""
    return ChunkingConfig(method=method, size=int(size), overlap=int(overlap))


def chunkings(project: Project, corpus: str, extra: Sequence[str] = ()) -> list[str]:
    """Chunking signatures that have chunks in ``corpus``: the default, those of its runs, ``extra``."""
    candidates = [*extra, ChunkingConfig().signature()]
    for r in run_store.runs(project.db_path):
        if isinstance(r.config, RunConfig) and r.corpus == corpus:
            candidates.append(r.config.chunking.signature())
    seen: list[str] = []
    for sig in candidates:
        if sig not in seen and corpus_store.chunks(project.db_path, corpus, sig):
            seen.append(sig)
    return seen


def corpora(project: Project) -> list[str]:
    """Names of the project's corpora, in creation order."""
    return [c["name"] for c in corpus_store.corpora(project.db_path)]


def documents(project: Project, corpus: str) -> list[dict[str, Any]]:
    """The corpus's documents: name, kind, pages, chars, size_bytes, id."""
    return corpus_store.documents(project.db_path, corpus)


def ingest_errors(project: Project, corpus: str) -> list[dict[str, Any]]:
    """Files of the corpus that could not be ingested: name, reason, created."""
    return corpus_store.ingest_errors(project.db_path, corpus)


def chunks(project: Project, corpus: str, chunking: str, doc_id: str) -> list[dict[str, Any]]:
    """One document's chunks under the chunking signature ``chunking``, in order."""
    return corpus_store.chunks(project.db_path, corpus, chunking, doc_id)


def text_repairs(project: Project, corpus: str) -> list[dict[str, str]]:
    """The corpus's documents whose text ingest repaired or flagged as garbled: ``name`` and
    ``note`` (:func:`rageval.ingest.corpus.repair_note`), and ``garbled`` ("yes"/"no")."""
    from rageval.ingest.corpus import repair_note
    from rageval.text.repair import GARBLED_SHARE

    return [{"name": d["name"], "note": repair_note(d),
             "garbled": "yes" if (d["garbled"] or 0) >= GARBLED_SHARE else "no"}
            for d in corpus_store.documents(project.db_path, corpus) if repair_note(d)]
