"""Malformed QA and answer files (made by tests/data/bad/make_bad_files.py): one clear message
naming file, row/line and column; the good rows kept; nothing already stored touched."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rageval.cli import main
from rageval.project import open_project
from rageval.store import runs as store
from tests.data.bad.make_bad_files import files

BAD = Path(__file__).parent / "data" / "bad"
KEEP = [{"id": "k1", "question": "Kept?", "reference": "yes"}]


@pytest.fixture()
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("RAGEVAL_PROJECT", raising=False)
    p = open_project("default")
    from rageval.ingest.qa import import_qa

    import_qa(p, "keep.jsonl", json.dumps(KEEP[0]).encode(), name="keep")
    import_qa(p, "keep.jsonl", json.dumps(KEEP[0]).encode(), name="target")
    return p


def _import(name: str, capsys) -> tuple[int, str, str]:
    code = main(["qa", "import", str(BAD / name), "--name", "target"])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _ids(project, name="target"):
    return [i["id"] for i in store.qa_items(project.db_path, name)]


def _untouched(project):
    assert [i["question"] for i in store.qa_items(project.db_path, "keep")] == ["Kept?"]


def test_committed_files_are_what_the_script_makes():
    for name, text in files().items():
        assert (BAD / name).read_bytes() == text.encode("utf-8"), f"{name}: rerun make_bad_files.py"


def test_unclosed_quote_is_reported_not_merged(project, capsys):
    code, out, _ = _import("unclosed_quote.csv", capsys)
    assert code == 1
    assert "ERROR unclosed_quote.csv, row 2 (line 3), column 'question': unclosed quote" in out
    assert "1 row(s) rejected" in out
    assert _ids(project) == ["q1", "q3", "q4"]  # the rows after the quote are kept, not swallowed
    assert [i["question"] for i in store.qa_items(project.db_path, "target")][1] == "Third question?"
    _untouched(project)


def test_missing_column_reported_once_with_the_columns_found(project, capsys):
    code, out, err = _import("missing_column.csv", capsys)
    assert code == 1
    assert err.count("missing required column") == 1 and out == ""
    assert "missing_column.csv: missing required column 'question'; columns found: 'id', 'prompt', 'reference'" in err
    assert _ids(project) == ["k1"]  # the set of that name was not replaced
    _untouched(project)


def test_extra_columns_are_a_note_and_the_rows_are_kept(project, capsys):
    code, out, _ = _import("extra_columns.csv", capsys)
    assert code == 0
    assert "NOTE extra_columns.csv, row 1 (line 2): column(s) 'owner', 'priority' not used" in out
    assert "row 0" not in out
    assert _ids(project) == ["q1", "q2"]


def test_duplicate_ids_name_the_first_row(project, capsys):
    code, out, _ = _import("duplicate_ids.csv", capsys)
    assert code == 1
    assert ("ERROR duplicate_ids.csv, row 3 (line 4), column 'id': duplicate id 'q1' (first at row 1)" in out)
    assert _ids(project) == ["q1", "q2"]


def test_empty_questions(project, capsys):
    code, out, _ = _import("empty_questions.csv", capsys)
    assert code == 1
    assert "row 2 (line 3), column 'question': empty question" in out
    assert "row 3 (line 4), column 'question': empty question" in out
    assert _ids(project) == ["q1", "q4"]


def test_bad_json_line_among_good_ones(project, capsys):
    code, out, _ = _import("bad_json_line.jsonl", capsys)
    assert code == 1
    assert "ERROR bad_json_line.jsonl, row 3 (line 3): not valid JSON" in out and "1 row(s) rejected" in out
    assert _ids(project) == ["q1", "q2", "q3", "q4"]


def test_json_object_instead_of_a_list(project, capsys):
    code, out, err = _import("object_not_list.json", capsys)
    assert code == 1 and "Traceback" not in err
    assert "object_not_list.json: holds one JSON object (keys 'id', 'question', 'reference') where a list" in err
    assert _ids(project) == ["k1"]
    _untouched(project)


def test_lone_surrogates_in_qa_import_are_replaced_and_reported(project, capsys):
    code, out, _ = _import("lone_surrogate.jsonl", capsys)
    assert code == 0
    assert "NOTE lone_surrogate.jsonl, row 1 (line 1), column 'question': 1 lone surrogate(s) replaced by U+FFFD" in out
    assert (
        "row 2 (line 2), column 'reference': 1 lone surrogate(s) replaced by U+FFFD, 1 NUL character(s) removed" in out
    )
    items = store.qa_items(project.db_path, "target")
    assert [i["id"] for i in items] == ["q1", "q2", "q3"]
    assert items[0]["question"] == "Broken \ufffd text?" and items[1]["references"] == ["two \ufffd"]


def test_lone_surrogates_in_score_do_not_crash_and_the_run_finishes(project, tmp_path, capsys):
    out_file = tmp_path / "scores.jsonl"
    code = main(["score", str(BAD / "lone_surrogate_answers.jsonl"), "--metrics", "exact_match,token_f1",
                 "--out", str(out_file)])
    err = capsys.readouterr().err
    assert code == 0 and "Traceback" not in err
    assert "NOTE lone_surrogate_answers.jsonl, row 1 (line 1), column 'answer'" in err
    rows = [json.loads(line) for line in out_file.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["a1", "a2"] and rows[1]["exact_match"] == 1.0
    imports = [r for r in store.runs(project.db_path) if r.kind == "import"]
    assert len(imports) == 1 and imports[0].status == "finished" and imports[0].done == 2


def test_an_import_run_that_fails_is_never_left_running(project, tmp_path, monkeypatch, capsys):
    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("rageval.scoring.imports.save_items", boom)
    code = main(["score", str(BAD / "lone_surrogate_answers.jsonl"), "--metrics", "exact_match",
                 "--out", str(tmp_path / "o.jsonl")])
    err = capsys.readouterr().err
    assert code == 1 and "error: OSError: disk full" in err and "Traceback" not in err
    runs = [r for r in store.runs(project.db_path) if r.kind == "import"]
    assert len(runs) == 1 and runs[0].status == "failed" and "disk full" in runs[0].error
