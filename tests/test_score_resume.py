"""A stored `score` is owned like a run: killed with SIGKILL (a real subprocess, the fake LLM server
answering slowly), it is shown `interrupted` by `runs` and the app with the command that resumes it;
`run --resume` on it names that command; `score --resume` stores exactly the rows an
uninterrupted score stores, with no row duplicated or lost."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rageval.cli import main
from rageval.project import open_project
from rageval.store import runs as store
from devtools.judge_responder import respond

ROOT = Path(__file__).resolve().parents[1]
ROWS = 40
ARGS = ("--metrics", "faithfulness,token_f1", "--judge", "openai:test-model", "--concurrency", "2")  # batches of 8


def _answers(folder: Path) -> Path:
    rows = [{"id": f"a{i}", "question": f"How high is peak {i}?", "answer": f"Peak {i} is {1000 + i} metres high. "
             f"It was first climbed in {1800 + i}.", "contexts": [f"Peak {i} stands {1000 + i} metres high."],
             "reference": f"{1000 + i} metres"} for i in range(ROWS)]
    path = folder / "answers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _about_peaks_from(first: int):
    """The fake server's hold: a chat call about peak ``first`` or a later one (the rows after the first batch)."""
    def hold(body: dict) -> bool:
        text = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
        return any(int(n) >= first for n in re.findall(r"Peak (\d+)", text))
    return hold


def _stored(db: Path, run_id: str) -> list[tuple]:
    answers = sorted((a["item_id"], a["answer"]) for a in store.answers(db, run_id))
    scores = sorted((s["item_id"], s["metric"], s["signature"], s["value"], s["status"], s["reason"])
                    for s in store.scores(db, run_id))
    return answers + scores


def _cli(home: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "RAGEVAL_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "rageval", *args, "--project", "s"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_killed_score_is_interrupted_and_resumes_to_the_uninterrupted_rows(tmp_path, monkeypatch, llm_env, capsys):
    answers = _answers(tmp_path)
    llm_env.script(responder=respond)
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "ref"))
    assert main(["score", str(answers), *ARGS, "--project", "s", "--out", str(tmp_path / "ref.jsonl")]) == 0
    ref_db = open_project("s").db_path
    expected = _stored(ref_db, store.runs(ref_db)[0].id)

    home = tmp_path / "killed"
    monkeypatch.setenv("RAGEVAL_HOME", str(home))
    db = open_project("s").db_path
    # every call about a row after the second batch is held: the child stores the first batch (and
    # perhaps the second) and can go no further, so it is killed there however fast or slow the machine
    # is. Not after the first: a judged score scores the next batch while one finishes, and held calls
    # of the second batch could take every concurrency slot before the first batch's last calls went out
    llm_env.script(responder=respond, hold=_about_peaks_from(16))
    child = _cli(home, "score", str(answers), *ARGS, "--out", str(tmp_path / "out.jsonl"))
    deadline = time.monotonic() + 240
    while not store.runs(db) or store.runs(db)[0].done < 8:  # the first batch is stored
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "the child stored nothing"
        time.sleep(0.5)  # seldom: each look opens the database the child writes to
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    llm_env.end_latency()  # the held calls answer the dead child
    run = store.runs(db)[0]
    run_id = run.id
    assert run.kind == "import" and run.status == "running" and run.done in (8, 16)

    hint = f"python -m rageval score {answers} --resume {run_id}"
    assert main(["runs", "--project", "s"]) == 0
    out = capsys.readouterr().out
    assert f"{run_id}  interrupted" in out and f"resume with: {hint}" in out
    from rageval.views.run import run_rows

    row = next(r for r in run_rows(open_project("s")) if r["run"] == run_id)  # the app's run list
    assert row["status"] == "interrupted" and row["resume"] == hint and "is gone" in row["error"]

    assert main(["run", "--resume", run_id, "--project", "s"]) == 2  # a usage error, never a TypeError
    err = capsys.readouterr().err
    assert "TypeError" not in err and f"resume it with: {hint}" in err

    child = _cli(home, "score", str(answers), "--resume", run_id, "--json", "--out", str(tmp_path / "rest.jsonl"))
    stdout, stderr = child.communicate(timeout=300)
    assert child.returncode == 0, stderr
    assert json.loads(stdout)["run_id"] == run_id
    assert store.get_run(db, run_id).status == "finished"
    assert _stored(db, run_id) == expected  # nothing lost, nothing duplicated, the same values
    rest = [json.loads(line)["id"] for line in (tmp_path / "rest.jsonl").read_text().splitlines()]
    assert len(rest) == ROWS - run.done  # only the rows it lacked were scored


def test_resume_refuses_another_input_or_other_metrics(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    answers = _answers(tmp_path)
    assert (
        main(["score", str(answers), "--metrics", "token_f1", "--project", "s", "--out", str(tmp_path / "o.jsonl")])
        == 0
    )
    run_id = store.runs(open_project("s").db_path)[0].id
    assert main(["score", str(answers), "--resume", run_id, "--metrics", "exact_match", "--project", "s"]) == 2
    assert "was scored with --metrics token_f1" in capsys.readouterr().err
    answers.write_text(answers.read_text().replace("Peak 3 ", "Peak three "), encoding="utf-8")
    assert main(["score", str(answers), "--resume", run_id, "--project", "s"]) == 2
    assert "input_sha256" in capsys.readouterr().err
    assert main(["score", str(answers), "--project", "s"]) == 2
    assert "score needs --metrics" in capsys.readouterr().err


def test_a_pipeline_run_is_not_resumed_by_score(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path))
    project = open_project("s")
    store.create_run(project.db_path, "p1", kind="pipeline", corpus="c", qa_set="q", config={}, config_hash="h",
                     n_items=1)
    answers = _answers(tmp_path)
    assert main(["score", str(answers), "--resume", "p1", "--project", "s"]) == 2
    assert "resume it with: python -m rageval run --resume p1" in capsys.readouterr().err


@pytest.mark.parametrize("status", ["interrupted", "failed"])
def test_the_app_offers_the_score_command_for_a_stopped_score(tmp_path, monkeypatch, status):
    from rageval.views.run import resume_command

    from dataclasses import replace

    from rageval.config import ImportConfig
    from rageval.store.record import Run

    run = Run(id="r9", kind="import", corpus=None, qa_set=None, config=ImportConfig(source="mine.csv"),
              config_hash="h", status=status, n_items=2)
    assert resume_command(run) == "python -m rageval score mine.csv --resume r9"
    assert (
        resume_command(
            replace(run, config=ImportConfig.from_dict({"source": "x.csv", "input": "/data/my answers.csv"}))
        )
        == "python -m rageval score '/data/my answers.csv' --resume r9"
    )
