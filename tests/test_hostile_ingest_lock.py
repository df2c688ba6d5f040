"""Two `rageval ingest` into one project at once: serialised, the second says it waits,
never Chroma's "database is locked"."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from rageval.project import open_project, project_lock
from devtools.projects import DOCS

ROOT = Path(__file__).resolve().parents[1]


def _ingest(home: Path, folder: Path) -> subprocess.Popen:
    env = {**os.environ, "RAGEVAL_HOME": str(home), "PYTHONPATH": str(ROOT)}
    env.pop("RAGEVAL_PROJECT", None)
    env.pop("RAGEVAL_CHROMA_HOST", None)
    return subprocess.Popen([sys.executable, "-m", "rageval", "ingest", str(folder), "--corpus", "c", "--json"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _folders(tmp_path: Path) -> list[Path]:
    out = []
    for n, (name, text) in enumerate(DOCS.items()):
        folder = tmp_path / f"docs{n}"
        folder.mkdir()
        (folder / name).write_text(text, encoding="utf-8")
        (folder / f"extra{n}.txt").write_text(f"Extra document {n}. " + text[::-1], encoding="utf-8")
        out.append(folder)
    return out


def test_a_second_ingest_waits_with_a_message(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("RAGEVAL_HOME", str(home))
    monkeypatch.delenv("RAGEVAL_PROJECT", raising=False)
    folder = _folders(tmp_path)[0]
    with project_lock(open_project("default"), "ingest"):  # another ingest holds the project
        proc = _ingest(home, folder)
        line = proc.stderr.readline()
        assert line.startswith("waiting: another ingest into project default is running"), line
        time.sleep(0.5)
        assert proc.poll() is None  # still waiting
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert len(json.loads(out)["documents"]) == 2


def test_two_ingests_at_once_both_finish(tmp_path):
    home = tmp_path / "home"
    procs = [_ingest(home, folder) for folder in _folders(tmp_path)]
    results = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, results):
        assert p.returncode == 0 and "locked" not in err and "Traceback" not in err, err
    names = sorted(d["name"] for out, _ in results for d in json.loads(out)["documents"])
    assert names == sorted(list(DOCS) + [f"extra{n}.txt" for n in range(3)])
