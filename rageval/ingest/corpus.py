"""Corpora: ingest files (load, chunk, store, index) and build the index for any chunking."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from rageval.ingest.chunking import chunk_document
from rageval.config import ChunkingConfig
from rageval.ingest.loaders import Document, IngestProblem, Page, load_file, load_paths
from rageval.ingest.limits import Limits
from rageval.project import Project, project_lock
from rageval.store import corpus as store
from rageval.text.repair import GARBLED_SHARE
from rageval.util import stable_hash

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class IngestReport:
    corpus: str
    #: name, id, pages, chunks, new, repaired (characters ftfy repaired), garbled (share left),
    #: looks_garbled (garbled >= rageval.text.repair.GARBLED_SHARE)
    documents: list[dict[str, Any]] = field(default_factory=list)
    errors: list[IngestProblem] = field(default_factory=list)
    chunks_indexed: int = 0


def repair_note(doc: dict[str, Any]) -> str:
    """What ingest did to a document's text (a row of :attr:`IngestReport.documents` or of
    :func:`rageval.store.corpus.documents`): ``"41 character(s) of mojibake or broken Unicode
    repaired"``, and ``"text still looks garbled: 2.1% of its characters ..."`` when flagged; "" when
    neither."""
    parts = []
    if doc.get("repaired"):
        parts.append(f"{doc['repaired']} character(s) of mojibake or broken Unicode repaired")
    if (doc.get("garbled") or 0) >= GARBLED_SHARE:
        parts.append(f"text still looks garbled: {doc['garbled']:.1%} of its characters are undecodable (U+FFFD) "
                     "or mojibake; check the file (a scanned or badly encoded PDF?) before trusting its chunks")
    return "; ".join(parts)


def _store(
    project: Project,
    corpus: str,
    loaded: Sequence[Document | IngestProblem],
    chunking: ChunkingConfig,
    progress: Progress | None = None,
) -> tuple[list[dict[str, Any]], list[IngestProblem]]:
    docs = [d for d in loaded if isinstance(d, Document)]
    errors = [e for e in loaded if isinstance(e, IngestProblem)]
    known = {d["id"] for d in store.documents(project.db_path, corpus)}
    summary, all_chunks = [], []
    for n, doc in enumerate(docs, start=1):
        chunks = chunk_document(doc, chunking)
        all_chunks.extend(chunks)
        summary.append({"name": doc.name, "id": doc.id, "pages": len(doc.pages),
                        "chunks": len(chunks), "new": doc.id not in known,
                        "repaired": doc.repaired, "garbled": round(doc.garbled, 4),
                        "looks_garbled": doc.garbled >= GARBLED_SHARE})
        if progress is not None:
            progress("chunks", n, len(docs))
    store.add_documents(project.db_path, corpus, docs, all_chunks, chunking.signature())
    if docs:
        store.record_chunking(project.db_path, corpus, chunking.signature())
    store.record_ingest_errors(project.db_path, corpus, errors)
    return summary, errors


def ingest(project: Project, corpus: str, *, paths: Iterable[str | Path] = (),
           files: Sequence[tuple[str, bytes]] = (), chunking: ChunkingConfig | None = None,
           embedder: str = "local", progress: Progress | None = None,
           limits: Limits | None = None, on_wait: Callable[[], None] | None = None,
           workers: int | None = None) -> IngestReport:
    """Load ``paths`` (files or folders) and in-memory ``files``, store them and index them.

    Bad files (and files over ``limits``) become errors in the report (and in the project's
    ingest_errors) while the good ones are stored; the same bytes ingested twice are stored
    once. ``progress(phase, done, total)`` hears ``documents`` (loaded), ``chunks`` (documents
    chunked) and ``index`` (chunks embedded and added).

    Two ingests into one project are serialised (the project's ``ingest`` lock): Chroma's
    embedded store takes one writer, and a second writer got "database is locked". The second
    waits for the first; ``on_wait()`` is called once when it has to.
    """
    from rageval.access import acting

    with acting(project, "upload", "ingest", corpus) as audit, project_lock(project, "ingest", on_wait):
        report = _ingest(project, corpus, paths=paths, files=files, chunking=chunking, embedder=embedder,
                         progress=progress, limits=limits, workers=workers)
        audit.update(documents=len(report.documents), errors=len(report.errors))
        return report


def _ingest(project: Project, corpus: str, *, paths: Iterable[str | Path], files: Sequence[tuple[str, bytes]],
            chunking: ChunkingConfig | None, embedder: str, progress: Progress | None,
            limits: Limits | None, workers: int | None) -> IngestReport:
    chunking = chunking or ChunkingConfig()
    limits = limits or Limits.from_env()
    if embedder == "local":
        from rageval.embed.processes import warm_up

        warm_up(workers=workers)  # the workers load the model while the files are read
    loaded: list[Document | IngestProblem] = list(load_paths(paths, limits=limits, progress=progress)) if paths else []
    total = len(loaded) + len(files)
    for name, data in files:
        loaded.append(load_file(name, data, limits=limits))
        if progress is not None:
            progress("documents", len(loaded), total)
    summary, errors = _store(project, corpus, loaded, chunking, progress)
    indexed = 0
    if summary:
        indexed = build_index(project, corpus, chunking, embedder, progress=progress, workers=workers)
    return IngestReport(corpus=corpus, documents=summary, errors=errors, chunks_indexed=indexed)


def _document(row: dict[str, Any]) -> Document:
    starts = list(row["page_starts"]) + [len(row["text"]) + 2]
    pages = tuple(
        Page(number=i + 1, text=row["text"][starts[i]:max(starts[i], starts[i + 1] - 2)])
        for i in range(len(row["page_starts"]))
    )
    return Document(id=row["id"], name=row["name"], kind=row["kind"], pages=pages,
                    size_bytes=row["size_bytes"])


def corpus_chunking(project: Project, corpus: str) -> ChunkingConfig:
    """The chunking ``corpus`` was ingested with (:func:`rageval.store.corpus.corpus_chunking`); the
    default when nothing says which (no documents, or several chunkings stored before it was recorded)."""
    signature = store.corpus_chunking(project.db_path, corpus)
    return ChunkingConfig.from_signature(signature) if signature else ChunkingConfig()


def ensure_chunks(project: Project, corpus: str, chunking: ChunkingConfig) -> list[dict[str, Any]]:
    """The corpus's chunks under ``chunking``, chunking stored documents anew when needed."""
    signature = chunking.signature()
    have = store.chunks(project.db_path, corpus, signature)
    have_docs = {c["doc_id"] for c in have}
    missing = [d for d in store.document_texts(project.db_path, corpus) if d["id"] not in have_docs]
    if missing:
        docs = [_document(d) for d in missing]
        new = [c for doc in docs for c in chunk_document(doc, chunking)]
        store.add_documents(project.db_path, corpus, docs, new, signature)
        have = store.chunks(project.db_path, corpus, signature)
    return have


def sync_index(project: Project, corpus: str, chunking: ChunkingConfig, embedder: str, model: Any, *,
               progress: Progress | None = None, workers: int | None = None) -> tuple[Any, list[dict[str, Any]], int]:
    """The corpus's vector index under ``chunking`` and ``embedder``, with every chunk in it.

    Chunks stored documents anew when needed, embeds with ``model`` only the chunks not yet
    indexed, and returns ``(index, chunks, number added)``. The vectors are computed across
    ``workers`` processes (:func:`rageval.embed.processes.embed_parallel`; default: one per core).
    """
    from rageval.config import index_signature
    from rageval.embed.sentences import embed_chunks
    from rageval.index import VectorIndex
    from rageval.embed.processes import embed_parallel

    chunks = ensure_chunks(project, corpus, chunking)
    signature = index_signature(corpus, chunking, embedder)
    report = (lambda done, total: progress("index", done, total)) if progress else None
    # two processes syncing one collection would both embed every missing chunk: the second
    # waits for the first, then finds the chunks indexed (and their vectors in the cache); the
    # collection is opened (made, when new) under the lock too, one writer at a time
    with project_lock(project, "index-" + stable_hash(signature, 16)):
        index = VectorIndex(project, signature)
        # each chunk whole and each of its sentences, so that runs find both in the cache
        added = index.sync(chunks, lambda texts: embed_chunks(model, texts, embed=lambda t: embed_parallel(
            model, t, workers=workers)), progress=report)
    return index, chunks, added


def build_index(project: Project, corpus: str, chunking: ChunkingConfig, embedder: str, *,
                progress: Progress | None = None, workers: int | None = None) -> int:
    """Embed and add to Chroma every chunk not yet indexed; returns the number added.

    The embedder comes from a model session (:mod:`rageval.llm.session`) open for this call only:
    an ``openai:`` embedder gets a client for the embedder role (base URL and key from the
    environment), closed before returning.
    """
    from rageval.llm.session import model_session

    if progress is not None:
        progress("model", 0, 0)  # loading the embedder can take a while on a busy machine
    with model_session({"embedder": embedder}, project=project) as session:
        return sync_index(project, corpus, chunking, embedder, session.embedder, progress=progress,
                          workers=workers)[2]
