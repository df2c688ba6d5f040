"""Isolation on a shared Chroma server: two homes, same project slug and corpus, no shared chunks."""
from __future__ import annotations

import pytest

from rageval import index
from rageval.config import index_signature
from rageval.ingest.corpus import ingest
from rageval.config import ChunkingConfig
from rageval.project import open_project
from rageval.embed.cache import get_embedder
from rageval.store import corpus as corpus_store
from tests.test_chroma_server import chroma_server  # noqa: F401  (the fixture)

ALICE = {"alice.txt": "The lighthouse at Cape Verde was built in 1902 of red granite. "
                      "Its lamp burns whale oil and is visible for thirty kilometres."}
BOB = {"bob.txt": "The lighthouse on Bob's island is made of white concrete and was finished in 1961. "
                  "A diesel generator powers its lamp, seen twenty kilometres out to sea."}
QUESTION = "What is the lighthouse made of and when was it built?"


def _home(tmp_path, monkeypatch, who: str, docs: dict[str, str]):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / who))
    project = open_project(None)  # both use the default project and the corpus "c"
    ingest(project, "c", files=[(n, t.encode()) for n, t in docs.items()])
    return project


def test_two_homes_on_one_server_never_see_each_others_chunks(tmp_path, monkeypatch, chroma_server):  # noqa: F811
    monkeypatch.delenv("RAGEVAL_PROJECT", raising=False)
    monkeypatch.setenv("RAGEVAL_CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("RAGEVAL_CHROMA_PORT", str(chroma_server))
    alice = _home(tmp_path, monkeypatch, "alice", ALICE)
    bob = _home(tmp_path, monkeypatch, "bob", BOB)
    assert alice.slug == bob.slug == "default" and alice.id != bob.id
    signature = index_signature("c", ChunkingConfig(), "local")
    embedder = get_embedder(alice, "local")
    seen = {}
    for project in (alice, bob):
        own = {c["id"] for c in corpus_store.chunks(project.db_path, "c", ChunkingConfig().signature())}
        vi = index.VectorIndex(project, signature)
        hits = vi.search(embedder.embed([QUESTION]), 10)[0]
        assert hits and {h.chunk_id for h in hits} <= own  # every hit exists in the reader's DuckDB
        assert vi.collection.metadata["rageval_project_id"] == project.id
        seen[project.id] = vi.collection.name
    assert len(set(seen.values())) == 2
    client = index.chroma_client(alice)
    ours = [c for c in client.list_collections() if c.name.startswith("rv-default-")]
    assert sorted(c.name for c in ours) == sorted(seen.values())


def test_collection_name_depends_on_the_project_id(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "a"))
    a = open_project("default")
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "b"))
    b = open_project("default")
    assert len(a.id) == 32 and a.id != b.id
    assert index.collection_name(a, "sig") != index.collection_name(b, "sig")
    assert index.collection_name(a, "sig") == index.collection_name(a, "sig")
    assert 3 <= len(index.collection_name(a, "x" * 2000)) <= 512


def test_a_collection_of_another_store_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "a"))
    project = open_project("p")
    name = index.collection_name(project, "sig")
    index.chroma_client(project).create_collection(name, embedding_function=None,
                                                   metadata={"rageval_project_id": "someone-else"})
    with pytest.raises(Exception, match="belongs to project store"):
        index.VectorIndex(project, "sig")
