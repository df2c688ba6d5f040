"""Ingestion: files -> :class:`Document` (or :class:`IngestProblem`) -> :class:`Chunk` list."""
from rageval.config import ChunkingConfig
from rageval.ingest.chunking import Chunk, chunk_document, chunk_documents
from rageval.ingest.loaders import (
    Document,
    IngestProblem,
    Page,
    load_file,
    load_path,
    load_paths,
)

__all__ = [
    "Chunk",
    "ChunkingConfig",
    "Document",
    "IngestProblem",
    "Page",
    "chunk_document",
    "chunk_documents",
    "load_file",
    "load_path",
    "load_paths",
]
