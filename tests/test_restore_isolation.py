"""A project store restored from a snapshot at the same path keeps its id and its path, so only the
collection's state token tells it from the store that last wrote the collection (rageval.store.meta).
Through `ingest` + `run` on a real shared Chroma server: the restored home is refused with a message
that says how to re-index, never answers from a chunk it does not hold, and after `reindex` runs on
collections of its own."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from rageval import index
from rageval.cli import main
from rageval.project import open_project
from rageval.store import corpus as corpus_store
from rageval.store import runs as store
from rageval.store.meta import index_state, set_index_state
from devtools.projects import write_docs
from tests.test_chroma_server import chroma_server  # noqa: F401  (the fixture)
from tests.test_hostile_chroma import SECRET, _qa, _use


def _contexts_and_chunks(project, run_id):
    answers = store.answers(project.db_path, run_id)
    return [c for a in answers for c in a["contexts"]], [cid for a in answers for cid, _ in a["retrieved"]]


def test_a_home_restored_at_the_same_path_never_cites_a_chunk_it_does_not_hold(tmp_path, monkeypatch, capsys,
                                                                              chroma_server):  # noqa: F811
    home, snapshot = tmp_path / "home", tmp_path / "snapshot"
    _use(monkeypatch, home, chroma_server)
    assert main(["ingest", str(write_docs(tmp_path / "docs")), "--corpus", "c"]) == 0
    assert main(["qa", "import", str(_qa(tmp_path / "qa.jsonl")), "--name", "qa"]) == 0
    assert main(["run", "--corpus", "c", "--qa", "qa", "--metrics", "token_f1"]) == 0  # the index is built
    shutil.copytree(home, snapshot, symlinks=True)  # the backup
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "vault.txt").write_text(SECRET, encoding="utf-8")
    assert main(["ingest", str(vault), "--corpus", "c"]) == 0  # after the backup: in the shared collection
    first_id = open_project("default").id

    shutil.rmtree(home)
    shutil.copytree(snapshot, home, symlinks=True)  # restored at the same path: same id, same path
    restored = open_project("default")
    assert restored.id == first_id
    capsys.readouterr()
    assert main(["run", "--corpus", "c", "--qa", "qa", "--top-k", "10", "--metrics", "token_f1", "--json"]) == 1
    err = capsys.readouterr().err
    assert "was last changed by another copy of project 'default'" in err and "restored from a snapshot" in err
    assert "python -m rageval reindex --project default" in err and "Traceback" not in err
    failed = store.runs(restored.db_path)[0]
    assert failed.status == "failed" and failed.done == 0  # nothing answered from the foreign chunks

    assert main(["reindex", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["project_id"] != first_id
    assert main(["run", "--corpus", "c", "--qa", "qa", "--top-k", "10", "--metrics", "token_f1", "--json"]) == 0
    run_id = json.loads(capsys.readouterr().out)["run_id"]
    contexts, chunk_ids = _contexts_and_chunks(restored, run_id)
    assert contexts and not any("vault" in c for c in contexts)
    assert set(chunk_ids) <= corpus_store.chunk_ids(restored.db_path, chunk_ids)  # every cited chunk is held

    # the other side: the home the snapshot left behind wrote nothing since, so it still reads its own
    _use(monkeypatch, snapshot, chroma_server)
    assert main(["ingest", str(vault), "--corpus", "c"]) == 0
    assert "vault.txt" in {d["name"] for d in corpus_store.documents(open_project("default").db_path, "c")}


def _index(tmp_path, monkeypatch):
    """A project with one document, synced into its on-disk Chroma collection; (project, index, chunks)."""
    from rageval.config import ChunkingConfig, index_signature
    from rageval.ingest.corpus import ingest

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    project = open_project("p")
    ingest(project, "c", files=[("a.txt", b"Mount Etna is an active volcano in Sicily. It erupts often.")])
    chunks = corpus_store.chunks(project.db_path, "c", ChunkingConfig().signature())
    vi = index.VectorIndex(project, index_signature("c", ChunkingConfig(), "local"))
    return project, vi, chunks


def _embed(texts):
    return np.ones((len(texts), 384), dtype=np.float32)  # the local embedder's width


def test_a_chunk_written_by_another_copy_after_opening_is_refused_at_search(tmp_path, monkeypatch):
    project, vi, chunks = _index(tmp_path, monkeypatch)
    vi.sync(chunks, _embed)
    assert {h.chunk_id for h in vi.search(_embed(["q"]), 5)[0]} == {c["id"] for c in chunks}
    vi.collection.upsert(ids=["stranger"], embeddings=_embed(["x"]), documents=["the vault code is 4471"],
                         metadatas=[{"doc_id": "v", "page": 1}])
    with pytest.raises(index.IndexMismatchError, match="1 chunk\\(s\\) this project does not hold"):
        vi.search(_embed(["q"]), 5)


def test_an_older_collection_is_claimed_only_when_it_holds_only_the_stores_chunks(tmp_path, monkeypatch):
    project, vi, chunks = _index(tmp_path, monkeypatch)
    name, signature = vi.collection.name, vi.signature
    meta = {k: v for k, v in vi.collection.metadata.items() if k != "rageval_state"}
    set_index_state(project.db_path, name, current=None, pending=None)  # as a version without tokens left it
    client = index.chroma_client(project)
    client.delete_collection(name)
    fresh = client.create_collection(name, embedding_function=None, metadata=meta)
    fresh.upsert(ids=[c["id"] for c in chunks], embeddings=_embed(chunks), documents=[c["text"] for c in chunks],
                 metadatas=[{"doc_id": c["doc_id"], "page": 1} for c in chunks])
    claimed = index.VectorIndex(project, signature)  # only its own chunks: claimed
    assert index_state(project.db_path, name)[0] == claimed.collection.metadata["rageval_state"]

    set_index_state(project.db_path, name, current=None, pending=None)
    client.delete_collection(name)
    foreign = client.create_collection(name, embedding_function=None, metadata=meta)
    foreign.upsert(ids=["stranger"], embeddings=_embed(["x"]), documents=["x"], metadatas=[{"doc_id": "v", "page": 1}])
    with pytest.raises(index.IndexMismatchError, match="python -m rageval reindex --project p"):
        index.VectorIndex(project, signature)


def test_a_change_cut_between_its_two_writes_is_not_taken_for_a_stranger(tmp_path, monkeypatch):
    project, vi, _ = _index(tmp_path, monkeypatch)
    name, old = vi.collection.name, index_state(project.db_path, vi.collection.name)[0]
    set_index_state(project.db_path, name, current=old, pending="next")  # killed after the collection's write
    vi.collection.modify(metadata={**vi.collection.metadata, "rageval_state": "next"})
    index.VectorIndex(project, vi.signature)
    assert index_state(project.db_path, name) == ("next", None)
    vi.collection.modify(metadata={**vi.collection.metadata, "rageval_state": "someone-else"})
    with pytest.raises(index.IndexMismatchError, match="restored from a snapshot"):
        index.VectorIndex(project, vi.signature)
