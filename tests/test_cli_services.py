"""A CLI command and the page that do the same thing call one service: scoring an answers file
(runs.scoring.score_file), adding a rubric (runs.rubrics.add_rubric_text), listing runs with
their resume commands (runs.listing)."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from rageval.cli import main
from rageval.config import ImportConfig, RunConfig
from rageval.project import open_project
from rageval.runs.listing import resume_command
from rageval.store.record import Run
from rageval.views import qa_sets
from rageval.views import run as run_view

GOOD = {"id": "a", "question": "Who wrote Hamlet?", "answer": "Shakespeare", "reference": "Shakespeare",
        "contexts": ["Hamlet is a tragedy by William Shakespeare."]}
RUBRIC = ('name = "tone"\ndescription = "polite"\ncriteria = "Is the answer polite?"\n'
          '[anchors]\n1 = "rude"\n2 = "curt"\n3 = "neutral"\n4 = "kind"\n5 = "warm"\n')


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_PROJECT", "p")
    return open_project("p")


def test_score_and_the_upload_store_the_same_import_run(project, tmp_path, capsys):
    data = (json.dumps(GOOD) + "\n").encode()
    (tmp_path / "a.jsonl").write_bytes(data)
    assert main(["score", str(tmp_path / "a.jsonl"), "--metrics", "exact_match,token_f1"]) == 0
    cli_rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    result, errors = qa_sets.score_answers(project, "a.jsonl", data, metrics=["exact_match", "token_f1"],
                                           judge="heuristic")
    assert errors == [] and result.rows == cli_rows
    imports = [r for r in run_view.runs(project) if r.kind == "import"]
    # the CLI also records the file's path (score --resume reads it again); an upload has none
    first, second = ({k: v for k, v in r.config.to_dict().items() if k != "input"} for r in imports)
    assert len(imports) == 2 and first == second


def test_a_file_without_a_usable_row_scores_and_stores_nothing(project, tmp_path, capsys):
    bad = (json.dumps({**GOOD, "contexts": 5}) + "\n").encode()
    (tmp_path / "bad.jsonl").write_bytes(bad)
    assert main(["score", str(tmp_path / "bad.jsonl"), "--metrics", "exact_match"]) == 1
    assert "contexts" in capsys.readouterr().err
    result, errors = qa_sets.score_answers(project, "bad.jsonl", bad, metrics=["exact_match"], judge="heuristic")
    assert result is None and len(errors) == 1
    assert run_view.runs(project) == []


def test_rubric_add_and_the_run_page_store_the_same_rubric(project, tmp_path, capsys):
    (tmp_path / "tone.toml").write_text(RUBRIC, encoding="utf-8")
    assert main(["rubric", "add", str(tmp_path / "tone.toml"), "--json"]) == 0
    from_cli = json.loads(capsys.readouterr().out)
    from_page = run_view.add_rubric(project, RUBRIC)
    assert (from_page.metric, from_page.digest()) == (from_cli["metric"], from_cli["digest"])


@pytest.mark.parametrize("status, command", [("interrupted", True), ("failed", True), ("pending", True),
                                             ("running", False), ("finished", False)])
def test_a_run_that_stopped_before_finishing_has_a_resume_command(status, command):
    run = Run(id="r1", kind="pipeline", corpus="c", qa_set="q", config=RunConfig("c", "q"), config_hash="h",
              status=status, n_items=3)
    assert resume_command(run) == ("python -m rageval run --resume r1" if command else "")
    stored_score = replace(run, kind="import", config=ImportConfig.from_dict({"input": "/data/answers.jsonl"}))
    assert resume_command(stored_score) == (
        "python -m rageval score /data/answers.jsonl --resume r1" if command else ""
    )
