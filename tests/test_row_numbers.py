"""Every note and error of `score` and `qa import` names the row it is about as "row N (line L)": a
file-level note names the first row that holds the unused column (a CSV header when none does), a
row of a .json array has its line too; never "row 0", never no row."""
from __future__ import annotations

import json

import pytest

from rageval.cli import main

ANSWER = {"question": "How high is Etna?", "answer": "3,357 metres", "contexts": ["Etna is 3,357 metres high."],
          "reference": "3,357 metres"}


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))


def _lines(capsys) -> list[str]:
    captured = capsys.readouterr()
    return [line for line in (captured.out + captured.err).splitlines() if line.startswith(("NOTE", "ERROR"))]


def test_score_jsonl_notes_and_whole_row_errors_name_their_row_and_line(tmp_path, capsys):
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join([json.dumps({"id": "a", **ANSWER}), "", "[1, 2]",
                               json.dumps({"id": "b", **ANSWER, "owner": "ann"}), '"text"',
                               json.dumps({"id": "c", **ANSWER, "owner": "bob", "mood": "ok"})]) + "\n")
    assert main(["score", str(path), "--metrics", "token_f1", "--no-store", "--out", str(tmp_path / "o.jsonl")]) == 1
    known = "(known: answer, context_ids, contexts, domain, id, question, reference, relevant_ids, retrieved_ids)"
    assert _lines(capsys) == [  # in row order
        "ERROR answers.jsonl, row 2 (line 3): row is a list, not an object with named fields",
        f"NOTE answers.jsonl, row 3 (line 4): column(s) 'owner' not used {known}",
        "ERROR answers.jsonl, row 4 (line 5): row is a str, not an object with named fields",
        f"NOTE answers.jsonl, row 5 (line 6): column(s) 'mood' not used {known}",
    ]


def test_score_json_output_gives_every_problem_a_row_and_a_line(tmp_path, capsys):
    path = tmp_path / "answers.json"
    path.write_text('[\n  {"id": "a", "question": "q", "answer": "x"},\n  5,\n  {"id": "b", "question": "q",\n'
                    '   "answer": "y", "owner": "ann"}\n]\n')
    assert (
        main(["score", str(path), "--metrics", "token_f1", "--no-store", "--json", "--out", str(tmp_path / "o.jsonl")])
        == 1
    )
    out = json.loads(capsys.readouterr().out)
    assert out["errors"] == [{"row": 2, "line": 3, "reason": "row is a int, not an object with named fields"}]
    assert [(n["row"], n["line"]) for n in out["notes"]] == [(3, 4)]


@pytest.mark.parametrize(("text", "where"), [
    ("id,question,reference,owner\nq1,What?,x,\nq2,Why?,y,bob\n", "row 2 (line 3)"),  # the first row holding it
    ("id,question,reference,owner\nq1,What?,x,\n", "header (line 1)"),  # no row holds a value: the header
])
def test_qa_import_csv_notes_name_a_row_or_the_header(tmp_path, capsys, text, where):
    path = tmp_path / "qa.csv"
    path.write_text(text)
    assert main(["qa", "import", str(path), "--name", "qa"]) == 0
    lines = _lines(capsys)
    assert lines == [f"NOTE qa.csv, {where}: column(s) 'owner' not used (known: domain, id, kind, question, reference, "
                     "relevant_ids, source_chunks, source_sentences, status)"]


def test_qa_import_json_rows_have_their_lines(tmp_path, capsys):
    path = tmp_path / "qa.json"
    path.write_text('[{"id": "a", "question": "What?", "reference": "r"},\n 5,\n\n {"id": "b"}]')
    assert main(["qa", "import", str(path), "--name", "qa"]) == 1
    assert _lines(capsys) == ["ERROR qa.json, row 2 (line 2): row is a int, not an object with named fields",
                              "ERROR qa.json, row 3 (line 4), column 'question': empty question"]
