"""The Chroma vector index: one collection per (project store, corpus, chunking, embedder).

A project store is identified by the id generated when its DuckDB was created
(:attr:`rageval.project.Project.id`), which goes into every collection's name and metadata.

We always pass our own vectors (``embedding_function=None`` on create and get, ``embeddings=``
on every add): Chroma's default embedding function would try to download a model. Space is
cosine with the HNSW settings below; a hit's score is ``1 - cosine distance`` (the cosine
similarity of the L2-normalised vectors). ``RAGEVAL_CHROMA_HOST`` / ``RAGEVAL_CHROMA_PORT``
switch from the project's on-disk ``PersistentClient`` to a shared Chroma server; a server that
does not answer is retried ``RAGEVAL_CHROMA_RETRIES`` times (default 3, backing off from 0.5 s),
then :class:`IndexUnreachableError` names it ("the Chroma server at HOST:PORT is unreachable").
A collection's metadata names the project id and the DuckDB file of the store that made it, so a
copied store is caught and re-scoped, and a state token replaced on every change, so a store
restored at the same path is caught too (:mod:`rageval.store.meta`).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from rageval import settings
from rageval.errors import ConfigError, RagevalError
from rageval.project import Project
from rageval.util import stable_hash

HNSW = {"space": "cosine", "ef_construction": 200, "ef_search": 128, "max_neighbors": 32}
_BATCH = 256
_CLIENTS: dict[str, Any] = {}
_CLIENTS_LOCK = threading.Lock()


class IndexUnreachableError(RagevalError):
    """The Chroma server named by RAGEVAL_CHROMA_HOST / _PORT did not answer after the retries."""


@dataclass(frozen=True)
class Hit:
    chunk_id: str
    score: float
    text: str
    doc_id: str
    page: int


def chroma_client(project: Project) -> Any:
    """The Chroma client for ``project`` (one per process and location)."""
    import chromadb
    from chromadb.config import Settings

    host, port = settings.value("RAGEVAL_CHROMA_HOST"), settings.value("RAGEVAL_CHROMA_PORT")
    key = f"http://{host}:{port}" if host else str(project.chroma_path)
    with _CLIENTS_LOCK:
        if key not in _CLIENTS:
            chroma_settings = Settings(anonymized_telemetry=False)
            if host:
                _CLIENTS[key] = chromadb.HttpClient(host=host, port=port, settings=chroma_settings)
            else:
                project.chroma_path.mkdir(parents=True, exist_ok=True)
                _CLIENTS[key] = chromadb.PersistentClient(path=str(project.chroma_path), settings=chroma_settings)
        return _CLIENTS[key]


def _server() -> str | None:
    """``HOST:PORT`` of the Chroma server in use, or None for the project's on-disk store."""
    host = settings.value("RAGEVAL_CHROMA_HOST")
    return f"{host}:{settings.value('RAGEVAL_CHROMA_PORT')}" if host else None


def _unreachable(exc: BaseException) -> bool:
    import httpx

    return (isinstance(exc, (httpx.TransportError, ConnectionError))
            or isinstance(exc, ValueError) and "Could not connect to a Chroma server" in str(exc))


def _unreachable_as_error(call: Callable[[], Any]) -> Any:
    """``call()``, retried while the Chroma server cannot be reached, then an IndexUnreachableError.

    ``RAGEVAL_CHROMA_RETRIES`` attempts (rageval.settings: 3 by default) with 0.5 s, 1 s, 2 s ... between them; the
    error names the server, so a run that stops on it is marked failed with the resume hint.
    """
    server = _server()
    attempts = max(1, settings.value("RAGEVAL_CHROMA_RETRIES"))
    for attempt in range(attempts):
        try:
            return call()
        except Exception as exc:  # noqa: BLE001 - only connection failures are retried or turned
            if server is None or not _unreachable(exc):
                raise
            if attempt == attempts - 1:
                raise IndexUnreachableError(
                    f"the Chroma server at {server} is unreachable ({type(exc).__name__}: {exc}; "
                    f"{attempts} attempt(s)); start it (chroma run --path DIR --port PORT) or fix "
                    "RAGEVAL_CHROMA_HOST / RAGEVAL_CHROMA_PORT") from exc
            time.sleep(0.5 * 2 ** attempt)
    raise AssertionError("unreachable")  # pragma: no cover


def collection_name(project: Project, signature: str, project_id: str | None = None) -> str:
    """A valid Chroma name (3-512 chars, [a-zA-Z0-9._-]) unique to the project store and signature.

    ``rv-<slug>-<hash of (project id, signature)>``: the slug is there for people reading a
    server's collection list; the project id (from the project's DuckDB) makes the name unique
    to one project store, so two ``default`` projects on one server never share a collection.
    """
    pid = project_id or project.id
    return f"rv-{project.slug}-{stable_hash([pid, signature], 24)}"[:512]


class IndexMismatchError(RagevalError):
    """A collection whose last change this project store did not make (a restore, a copy at the same path)."""


class VectorIndex:
    """The collection for one index signature (``RunConfig.index_signature()``).

    Opened (and synced) under the project's index lock (:func:`rageval.ingest.corpus.sync_index`).
    On every open the collection's state token must be the one this store holds (see
    :mod:`rageval.store.meta`), else :class:`IndexMismatchError`; :meth:`sync` replaces the token
    when it adds chunks; :meth:`search` after a sync returns only chunks the store holds.
    """

    def __init__(self, project: Project, signature: str):
        self.signature = signature
        self.project = project
        self._own: set[str] | None = None  # the store's chunk ids, once synced
        self._open(project, signature)
        self._check_state()

    def _open(self, project: Project, signature: str) -> None:
        from rageval.store.meta import bound_path, rescope

        here = bound_path(project.db_path)
        for attempt in range(2):
            self.project_id = project.id
            self.collection = _unreachable_as_error(lambda: chroma_client(project).get_or_create_collection(
                collection_name(project, signature, self.project_id),
                embedding_function=None,
                configuration={"hnsw": dict(HNSW)},
                metadata={"rageval_signature": signature, "rageval_project_id": self.project_id,
                          "rageval_db_path": here},
            ))
            meta = dict(self.collection.metadata or {})
            owner = meta.get("rageval_project_id")
            if owner != self.project_id:  # a name collision or a hand-made collection: never read it
                raise ConfigError(
                    f"Chroma collection {self.collection.name} belongs to project store {owner!r}, "
                    f"not to this one ({self.project_id}); refusing to mix their chunks"
                )
            made_by = meta.get("rageval_db_path")
            if made_by is None:  # made before collections named their store's file: claim it
                _unreachable_as_error(lambda: self.collection.modify(metadata={**meta, "rageval_db_path": here}))
                return
            if made_by == here or attempt:
                return
            # the same id, another file: this store is a copy made before ids were bound to their
            # file (see rageval.store.meta); give it its own id and open its own collection
            rescope(project.db_path, f"collection {self.collection.name} was made by the store at {made_by}")

    def _check_state(self) -> None:
        """The collection's state token against the store's; an untouched or older collection is claimed."""
        from rageval.store.meta import index_state, set_index_state

        db, name = self.project.db_path, self.collection.name
        theirs = (self.collection.metadata or {}).get("rageval_state")
        current, pending = index_state(db, name)
        if theirs is not None and theirs in (current, pending):
            if theirs == pending:  # a change finished in the collection, not yet here
                set_index_state(db, name, current=theirs, pending=None)
            return
        if theirs is None and (current is None or self.count() == 0) and self._only_own_chunks():
            self._set_token()  # made now, or by a version without tokens: claimed
            return
        raise IndexMismatchError(
            f"the Chroma collection {name} (corpus index {self.signature}) was last changed by another copy of "
            f"project {self.project.slug!r} ({'its state ' + theirs if theirs else 'no state'}, this store's "
            f"{current or 'none'}): this store was restored from a snapshot, or a copy of it at the same path uses "
            f"the same Chroma server{' ' + _server() if _server() else ''}. Its chunks may not be this project's, so "
            "it "
            f"is not read. Re-index this project into collections of its own (vectors come from the embedding cache): "
            f"python -m rageval reindex --project {self.project.slug}"
        )

    def _only_own_chunks(self) -> bool:
        """Whether every chunk in the collection is one of this store's (always true of an empty one)."""
        from rageval.store.corpus import chunk_ids

        if self.count() == 0:
            return True
        theirs = set(_unreachable_as_error(lambda: self.collection.get(include=[]))["ids"])
        return theirs <= chunk_ids(self.project.db_path, theirs)

    def _set_token(self) -> None:
        """A new state token: pending here, then in the collection, then current here."""
        import uuid

        from rageval.store.meta import index_state, set_index_state

        db, name = self.project.db_path, self.collection.name
        token = uuid.uuid4().hex
        set_index_state(db, name, current=index_state(db, name)[0], pending=token)
        meta = dict(self.collection.metadata or {})
        _unreachable_as_error(lambda: self.collection.modify(metadata={**meta, "rageval_state": token}))
        set_index_state(db, name, current=token, pending=None)

    def sync(self, chunks: Sequence[dict[str, Any]], embed: Callable[[list[str]], np.ndarray],
             progress: Callable[[int, int], None] | None = None) -> int:
        """Add the chunks that are not in the collection yet; return how many were added.

        ``chunks`` are all of the store's chunks for this index: a later :meth:`search` refuses a
        hit that is not one of them.
        """
        ids = [c["id"] for c in chunks]
        self._own = set(ids)
        present: set[str] = set()
        for start in range(0, len(ids), 1000):
            present.update(_unreachable_as_error(
                lambda: self.collection.get(ids=ids[start:start + 1000], include=[]))["ids"])
        todo = [c for c in chunks if c["id"] not in present]
        if todo:
            self._set_token()  # before the first write: a copy that did not make it stops reading
        if progress is not None and todo:
            progress(0, len(todo))  # the phase shows at once, not after the first batch
        for start in range(0, len(todo), _BATCH):
            batch = todo[start:start + _BATCH]
            vectors = embed([c["text"] for c in batch])
            _unreachable_as_error(lambda: self.collection.upsert(
                ids=[c["id"] for c in batch],
                embeddings=np.asarray(vectors, dtype=np.float32),
                documents=[c["text"] for c in batch],
                metadatas=[{"doc_id": c["doc_id"], "page": int(c["page"])} for c in batch],
            ))
            if progress is not None:
                progress(min(start + _BATCH, len(todo)), len(todo))
        return len(todo)

    def count(self) -> int:
        return int(_unreachable_as_error(self.collection.count))

    def search(self, query_vectors: np.ndarray, k: int) -> list[list[Hit]]:
        """Top-``k`` hits per query vector, best first."""
        n = self.count()
        if n == 0:
            return [[] for _ in range(len(query_vectors))]
        res = _unreachable_as_error(lambda: self.collection.query(
            query_embeddings=np.asarray(query_vectors, dtype=np.float32),
            n_results=min(k, n),
            include=["distances", "documents", "metadatas"],
        ))
        out = []
        stray = {i for row in res["ids"] for i in row} - self._own if self._own is not None else set()
        if stray:  # written meanwhile by another copy of this store (see _check_state)
            raise IndexMismatchError(
                f"the Chroma collection {self.collection.name} returned {len(stray)} chunk(s) this project does not "
                f"hold (e.g. {sorted(stray)[0]}); another copy of project {self.project.slug!r} writes it. Re-index "
                f"this project into collections of its own: python -m rageval reindex --project {self.project.slug}")
        for ids, dists, docs, metas in zip(res["ids"], res["distances"], res["documents"], res["metadatas"]):
            out.append([
                Hit(chunk_id=i, score=1.0 - float(d), text=t, doc_id=m["doc_id"], page=int(m["page"]))
                for i, d, t, m in zip(ids, dists, docs, metas)
            ])
        return out
