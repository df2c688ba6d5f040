"""Faults around the shared Chroma server: a copied home never touches the original's
collections; a server that dies names itself, is retried, and the run is marked failed with the
resume hint. Both on a real `chroma run` server (the fixture of tests/test_chroma_server.py)."""
from __future__ import annotations

import json
import shutil


from rageval import index
from rageval.cli import main
from rageval.project import open_project
from devtools.projects import write_docs
from tests.test_chroma_server import chroma_server  # noqa: F401  (the fixture)

SECRET = "The vault code of the copy is 4471. Only the copy ever ingested this vault document."


def _use(monkeypatch, home, port):
    monkeypatch.setenv("RAGEVAL_HOME", str(home))
    monkeypatch.setenv("RAGEVAL_CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("RAGEVAL_CHROMA_PORT", str(port))
    monkeypatch.delenv("RAGEVAL_PROJECT", raising=False)


def _doc_ids_on_server(project) -> set[str]:
    client = index.chroma_client(project)
    ours = [c for c in client.list_collections() if c.metadata.get("rageval_project_id") == project.id]
    return {m["doc_id"] for c in ours for m in c.get(include=["metadatas"])["metadatas"]}


def _qa(path):
    rows = [{"id": "v", "question": "What is the vault code?", "reference": "4471"},
            {"id": "e", "question": "How high is Mount Etna?", "reference": "3,357 metres"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_copied_home_gets_its_own_collections(tmp_path, monkeypatch, capsys, chroma_server):  # noqa: F811
    original, copy = tmp_path / "home", tmp_path / "home-copy"
    _use(monkeypatch, original, chroma_server)
    assert main(["ingest", str(write_docs(tmp_path / "docs")), "--corpus", "c"]) == 0
    assert main(["qa", "import", str(_qa(tmp_path / "qa.jsonl")), "--name", "qa"]) == 0
    first = open_project("default")
    first_id, first_docs = first.id, _doc_ids_on_server(first)
    shutil.copytree(original, copy, symlinks=True)  # cp -a
    capsys.readouterr()

    _use(monkeypatch, copy, chroma_server)
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "vault.txt").write_text(SECRET, encoding="utf-8")
    assert main(["ingest", str(vault), "--corpus", "c"]) == 0
    err = capsys.readouterr().err
    assert "NOTE the project store at" in err and "is a copy" in err and str(original) in err
    second = open_project("default")
    assert second.id != first_id
    # the copy indexed all its chunks (the original's documents and its own) into its own collection
    assert _doc_ids_on_server(second) > first_docs

    _use(monkeypatch, original, chroma_server)
    assert open_project("default").id == first_id
    assert _doc_ids_on_server(open_project("default")) == first_docs  # nothing of the copy's
    assert main(["run", "--corpus", "c", "--qa", "qa", "--top-k", "10", "--json", "--metrics", "token_f1"]) == 0
    run_id = json.loads(capsys.readouterr().out)["run_id"]
    assert main(["export", "--run", run_id, "--format", "jsonl"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert not any("vault" in c for r in rows for c in r["contexts"])


def test_a_copy_made_before_ids_were_bound_is_caught_by_the_collection(tmp_path, monkeypatch, capsys,
                                                                        chroma_server):  # noqa: F811
    from rageval.store.db import connect

    original, copy = tmp_path / "home", tmp_path / "home-copy"
    _use(monkeypatch, original, chroma_server)
    assert main(["ingest", str(write_docs(tmp_path / "docs")), "--corpus", "c"]) == 0
    first_id = open_project("default").id
    shutil.copytree(original, copy, symlinks=True)
    _use(monkeypatch, copy, chroma_server)
    with connect(open_project("default").db_path) as con:  # as an older version left it: bound nowhere
        con.execute("DELETE FROM project_meta WHERE key = 'db_path'")
    assert open_project("default").id == first_id  # bound here now: the path alone cannot tell
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "vault.txt").write_text(SECRET, encoding="utf-8")
    capsys.readouterr()
    assert main(["ingest", str(vault), "--corpus", "c"]) == 0
    assert "was made by the store at" in capsys.readouterr().err
    assert open_project("default").id != first_id
    _use(monkeypatch, original, chroma_server)
    assert "vault.txt" not in {d for d in _doc_ids_on_server(open_project("default"))}


def test_a_chroma_server_that_dies_is_named_retried_and_the_run_marked_failed(tmp_path, monkeypatch, capsys):
    import subprocess
    import sys
    import time
    import urllib.request
    from pathlib import Path

    from tests.test_chroma_server import _free_port

    port = _free_port()
    exe = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))
    proc = subprocess.Popen([exe, "run", "--path", str(tmp_path / "srv"), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1)
                break
            except OSError:
                time.sleep(0.3)
        _use(monkeypatch, tmp_path / "home", port)
        monkeypatch.setenv("RAGEVAL_CHROMA_RETRIES", "2")
        assert main(["ingest", str(write_docs(tmp_path / "docs")), "--corpus", "c"]) == 0
        assert main(["qa", "import", str(_qa(tmp_path / "qa.jsonl")), "--name", "qa"]) == 0
    finally:
        proc.kill()
        proc.wait(timeout=20)
    capsys.readouterr()
    code = main(["run", "--corpus", "c", "--qa", "qa", "--metrics", "token_f1"])
    err = capsys.readouterr().err
    assert code == 1 and f"the Chroma server at 127.0.0.1:{port} is unreachable" in err and "2 attempt(s)" in err
    assert "Traceback" not in err
    assert main(["runs", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert runs[0]["status"] == "failed" and "--resume" in runs[0]["resume"], runs[0]
