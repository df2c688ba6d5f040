"""A full disk is named for what it is (where, how much is free), never "TransactionException:
cannot rollback", and what was stored before it is kept: the run resumes once there is space.

The first test fills a real 8 MB tmpfs (it needs root to mount one, as in CI's container); the
second injects the same chain of errors DuckDB raises (a commit failing with ENOSPC, then the
failed rollback) at the write boundary of a pipeline run, so it runs everywhere."""
from __future__ import annotations

import errno
import json
import os
import subprocess

import duckdb
import pytest

from rageval.cli import main
from rageval.project import open_project
from rageval.store import runs as store

ROWS = 1500


@pytest.fixture
def small_disk(tmp_path):
    """An 8 MB tmpfs at ``tmp_path / "disk"`` (skipped where mounting is not allowed), unmounted after."""
    disk = tmp_path / "disk"
    disk.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(disk)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_a_full_disk_during_a_stored_score_is_named_and_the_score_resumes(tmp_path, monkeypatch, capsys, small_disk):
    rows = [{"id": f"r{i}", "question": "How high is Etna?", "answer": os.urandom(1500).hex(),
             "contexts": ["Mount Etna is 3,357 metres high."], "reference": "3,357 metres"} for i in range(ROWS)]
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    monkeypatch.setenv("RAGEVAL_HOME", str(small_disk / "home"))
    project = open_project("full")
    db, _ = project.db_path, project.id  # the database made (and migrated) before the disk is filled
    free = os.statvfs(small_disk).f_bavail * os.statvfs(small_disk).f_frsize
    (small_disk / "filler").write_bytes(b"\0" * (free - 3 * 2**20))  # 3 MB left: about one batch of 512 rows

    assert (
        main(["score", str(answers), "--metrics", "token_f1", "--project", "full", "--out", str(tmp_path / "o.jsonl")])
        == 1
    )
    err = capsys.readouterr().err
    assert "TransactionException" not in err and "cannot rollback" not in err
    assert f"the disk holding the project database {db} is full (" in err and "MB free in" in err
    run_id = err.rsplit("--resume ", 1)[1].split()[0]
    assert f"resume with: python -m rageval score {answers} --resume {run_id}" in err

    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)  # space again
    kept = store.get_run(db, run_id).done
    assert 0 < kept < ROWS  # what went in before the disk filled is still there
    assert (
        main(["score", str(answers), "--resume", run_id, "--project", "full", "--out", str(tmp_path / "o2.jsonl")]) == 0
    )
    run = store.get_run(db, run_id)
    assert run.status == "finished" and run.done == ROWS
    values = {s["item_id"]: s["value"] for s in store.scores(db, run_id)}
    assert sorted(values) == sorted(r["id"] for r in rows) and len(store.scores(db, run_id)) == ROWS


def test_a_full_disk_during_a_run_is_named_and_the_run_resumes(tmp_path, monkeypatch, capsys):
    from rageval.config import RunConfig
    from rageval.runs.pipeline import start_run
    from rageval.store import items
    from devtools.projects import small_project

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    project = small_project(tmp_path, "full")
    run_id = start_run(project, RunConfig(corpus="c", qa_set="qa", metrics=("token_f1",), top_k=2, concurrency=2))
    real, calls = items._write_batch, []

    def full_on_second(con, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:  # what DuckDB raises: the failed commit, then the failed rollback over it
            try:
                raise duckdb.TransactionException('Failed to commit: Could not write file "x.wal": '
                                                  f"{os.strerror(errno.ENOSPC)}")
            except duckdb.TransactionException:
                raise duckdb.TransactionException(
                    "TransactionContext Error: cannot rollback - no transaction is active"
                )
        return real(con, *args, **kwargs)

    monkeypatch.setattr(items, "_write_batch", full_on_second)
    assert main(["run", "--resume", run_id, "--project", "full"]) == 1
    err = capsys.readouterr().err
    assert "cannot rollback" not in err and f"the disk holding the project database {project.db_path} is full" in err
    assert f"then resume with: python -m rageval run --resume {run_id}" in err
    run = store.get_run(project.db_path, run_id)
    assert run.status == "interrupted" and run.done == 2 and "is full" in run.error
    monkeypatch.setattr(items, "_write_batch", real)
    assert main(["run", "--resume", run_id, "--project", "full"]) == 0
    assert store.get_run(project.db_path, run_id).status == "finished"
    assert len(store.answers(project.db_path, run_id)) == 5
