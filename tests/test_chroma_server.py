"""The shared-server path: RAGEVAL_CHROMA_HOST switches the index to a real `chroma run` server."""
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from rageval import index
from rageval.config import RunConfig
from rageval.runs.pipeline import execute, start_run
from devtools.projects import small_project


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def chroma_server(tmp_path):
    exe = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))
    if not Path(exe).exists():
        pytest.fail("the `chroma` command from the chromadb package is not installed")
    port = _free_port()
    proc = subprocess.Popen([exe, "run", "--path", str(tmp_path / "srv"), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1)
            break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                pytest.fail("chroma server did not start")
            time.sleep(0.3)
    yield port
    proc.terminate()
    proc.wait(timeout=20)


def test_run_against_chroma_server(tmp_path, monkeypatch, chroma_server):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("RAGEVAL_CHROMA_PORT", str(chroma_server))
    project = small_project(tmp_path)
    summary = execute(project, start_run(project, RunConfig(corpus="c", qa_set="qa", metrics=("token_f1",), top_k=2)))
    assert summary.status == "finished" and summary.done == 5
    client = index.chroma_client(project)
    ours = [c for c in client.list_collections() if c.name.startswith("rv-t-")]
    assert len(ours) == 1 and ours[0].configuration["hnsw"]["space"] == "cosine"
    assert ours[0].count() > 0
    assert not (project.chroma_path / "chroma.sqlite3").exists()  # nothing went to the local directory
