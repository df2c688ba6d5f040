"""The Documents page's read model: the project's corpora, their documents, failed files and chunks."""
from __future__ import annotations

from typing import Any

from rageval.project import Project
from rageval.store import corpus as corpus_store


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
