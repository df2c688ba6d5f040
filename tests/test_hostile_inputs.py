"""Hostile inputs through the entry points a user uses: huge numbers, infinite ratings,
deep nesting, huge fields, odd field types; every bad row named, every good row kept."""
from __future__ import annotations

import json

import pytest

from rageval.cli import main
from devtools.projects import QA, write_docs

BIG = "9" * 400  # a serial number: infinite as a float


@pytest.fixture()
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("RAGEVAL_PROJECT", raising=False)
    return tmp_path


def _jsonl(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


NUMBER_METRICS = "answer_correctness_offline,faithfulness,groundedness,token_f1,exact_match,contradicted_share"


def test_a_400_digit_number_is_text_and_its_row_is_scored(home, capsys):
    rows = [{"id": "big", "question": f"What is serial {BIG}?", "answer": f"It is {BIG}, costs ${BIG} trillion.",
             "contexts": [f"Serial {BIG} costs 5 eur."], "reference": f"{BIG}"},
            {"id": "ok", "question": "How long?", "answer": "7 days", "contexts": ["Refunds within 7 days."],
             "reference": "7 days"}]
    src = _jsonl(home / "a.jsonl", rows)
    assert main(["score", str(src), "--metrics", NUMBER_METRICS, "--no-store"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["id"] for r in out] == ["big", "ok"]
    for r in out:
        assert not any(k.endswith("_status") and "failed" in v for k, v in r.items() if isinstance(v, str)), r
    # the huge number's claims were read and checked: UNVERIFIED offline (not copied), so unscored with that reason
    assert out[1]["exact_match"] == 1.0 and out[0]["faithfulness_status"].startswith("unscored: no_decided_claims")


def test_a_run_over_a_corpus_with_a_400_digit_number_finishes(home, capsys):
    docs = write_docs(home / "docs")
    (docs / "serials.txt").write_text(f"The device with serial {BIG} was made in 1999. It weighs {BIG} kg.",
                                      encoding="utf-8")
    assert main(["ingest", str(docs), "--corpus", "c"]) == 0
    qa = QA + [{"id": "q6", "question": f"When was the device with serial {BIG} made?", "reference": "1999"}]
    assert main(["qa", "import", str(_jsonl(home / "qa.jsonl", qa)), "--name", "qa"]) == 0
    capsys.readouterr()
    assert main(["run", "--corpus", "c", "--qa", "qa", "--top-k", "3", "--json",
                 "--metrics", "token_f1,faithfulness,answer_correctness_offline"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "finished" and out["done"] == 6 and out["failed"] == 0, out


@pytest.fixture()
def rated(home, monkeypatch):
    """A project 'h' with three runs of 4 items (q00..q03) to rate."""
    from tests.human_fixtures import make_runs

    monkeypatch.setenv("RAGEVAL_PROJECT", "h")
    project, _ = make_runs("h", n=4, runs=("r0", "r1", "r2"))
    return project


@pytest.mark.parametrize("name, body", [
    ("r.csv", "item_id,annotator,rating\nq01,ann,4\nq02,ann,inf\nq03,ann,-inf\nq00,ann,Infinity\n"),
    ("s.csv", "item_id,annotator,rating\nq02,ann,1e400\nq01,ann,4\n"),
    ("j.json", '[{"item_id": "q01", "annotator": "ann", "rating": 4}, {"item_id": "q02", "annotator": "ann", '
               '"rating": 1e999}, {"item_id": "q03", "annotator": "ann", "rating": ' + "9" * 5000 + "}]"),
])
def test_infinite_ratings_are_rejected_rows_and_the_good_row_is_kept(rated, home, capsys, name, body):
    src = home / name
    src.write_text(body, encoding="utf-8")
    assert main(["ratings", "import", str(src), "--run", "r0", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["imported"] == 1
    assert out["errors"] and all("not a whole number 1-5" in e["reason"] for e in out["errors"]), out
    bad_rows = [n for n, line in enumerate(body.splitlines()[1:], 1) if "q01" not in line] if name.endswith(".csv") \
        else [2, 3]
    assert [e["row"] for e in out["errors"]] == bad_rows


def test_first_data_row_is_row_1_line_2_in_every_csv_import(rated, home, capsys):
    """One convention: 'row N (line L)', L the line a spreadsheet shows (the header is line 1)."""
    (home / "r.csv").write_text("item_id,annotator,rating\nq01,ann,9\n", encoding="utf-8")
    (home / "q.csv").write_text("id,question\nx,\n", encoding="utf-8")
    (home / "a.csv").write_text('id,question,answer,contexts\nx,q,a,"[1, NaN]"\n', encoding="utf-8")
    main(["ratings", "import", str(home / "r.csv"), "--run", "r0"])
    main(["qa", "import", str(home / "q.csv"), "--name", "q"])
    main(["score", str(home / "a.csv"), "--metrics", "token_f1", "--no-store"])
    cap = capsys.readouterr()
    for name in ("r.csv", "q.csv", "a.csv"):
        assert f"ERROR {name}, row 1 (line 2)" in cap.out + cap.err, name


def _rows(capsys):
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_a_row_nested_100000_deep_is_rejected_with_its_number(home, capsys):
    good = {"id": "g", "question": "q", "answer": "seven days", "reference": "seven days"}
    deep = '{"id": "deep", "question": "q", "answer": "a", "contexts": ' + "[" * 100_000 + "]" * 100_000 + "}"
    nested: object = 1
    for _ in range(33):
        nested = [nested]
    # 35 levels with the row and meta: over the default limit of 32, readable by Python
    mid = json.dumps({"id": "mid", "question": "q", "answer": "a", "meta": {"x": nested}})
    src = _jsonl(home / "deep.jsonl", [good, deep, mid, dict(good, id="g2")])
    assert main(["score", str(src), "--metrics", "exact_match"]) == 1
    cap = capsys.readouterr()
    assert [json.loads(x)["id"] for x in cap.out.splitlines()] == ["g", "g2"]
    assert "ERROR deep.jsonl, row 2 (line 2): row is nested more than 900 levels deep" in cap.err
    assert "ERROR deep.jsonl, row 3 (line 3): row is nested more than 32 levels deep, over the limit of 32" in cap.err
    assert "RAGEVAL_MAX_DEPTH or --max-depth" in cap.err
    assert main(["score", str(src), "--metrics", "exact_match", "--max-depth", "40", "--no-store"]) == 1
    assert [r["id"] for r in _rows(capsys)] == ["g", "mid", "g2"]
    # a JSON array with the deep row: read row by row, the deep one named with its line
    rows = [json.dumps(good), deep, json.dumps(dict(good, id="g2"))]
    (home / "deep.json").write_text("[\n" + ",\n".join(rows) + "\n]\n", encoding="utf-8")
    assert main(["score", str(home / "deep.json"), "--metrics", "exact_match", "--no-store"]) == 1
    cap = capsys.readouterr()
    assert [json.loads(x)["id"] for x in cap.out.splitlines()] == ["g", "g2"]
    assert "ERROR deep.json, row 2 (line 3): row is nested more than 900 levels deep" in cap.err
    # the same rows in a QA set: the deep one named, the others imported
    assert main(["qa", "import", str(src), "--name", "deep", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["items"] == 2 and [e["row"] for e in out["errors"]] == [2, 3]


def test_a_huge_field_is_rejected_with_the_limit_and_the_small_rows_are_scored(home, capsys, monkeypatch):
    huge = "The refund takes seven days. " * 100_000  # 2.9 MB
    rows = [{"id": "a", "question": "How long?", "answer": "seven days", "contexts": ["seven days"],
             "reference": "seven days"},
            {"id": "huge", "question": "How long?", "answer": huge, "contexts": ["x"], "reference": "seven days"},
            {"id": "b", "question": "How long?", "answer": "7 days", "contexts": ["x", huge[:60_000], huge[:60_000]],
             "reference": "seven days"}]
    src = _jsonl(home / "big.jsonl", rows)
    out_file = home / "out.jsonl"
    assert main(["score", str(src), "--metrics", "faithfulness,token_f1", "--out", str(out_file), "--progress"]) == 1
    err = capsys.readouterr().err
    assert [json.loads(x)["id"] for x in out_file.read_text().splitlines()] == ["a"]
    assert ("ERROR big.jsonl, row 2 (line 2), column 'answer': field has 2,900,000 characters, over the limit of "
            "100,000 characters per field (raise it with RAGEVAL_MAX_FIELD_CHARS or --max-field-chars)") in err
    assert "row 3 (line 3), column 'contexts': field has 120,001 characters" in err
    assert "scoring 1 row(s), metrics done: 2/2" in err  # progress on stderr
    monkeypatch.setenv("RAGEVAL_MAX_FIELD_CHARS", "200000")
    assert main(["score", str(src), "--metrics", "token_f1", "--out", str(out_file)]) == 1
    assert [json.loads(x)["id"] for x in out_file.read_text().splitlines()] == ["a", "b"]
    capsys.readouterr()
    # a CSV cell over the csv module's own 128 KiB limit is named by our limit, not as a bad quote
    (home / "big.csv").write_text(f'id,question,answer\nc,q,"{huge[:200_000]}"\nd,q,a\n', encoding="utf-8")
    assert main(["score", str(home / "big.csv"), "--metrics", "token_f1", "--max-field-chars", "150000",
                 "--no-store"]) == 1
    cap = capsys.readouterr()
    assert [json.loads(x)["id"] for x in cap.out.splitlines()] == ["d"]
    assert "row 1 (line 2), column 'answer': field has 200,000 characters, over the limit of 150,000" in cap.err


@pytest.mark.parametrize("row, column, words", [
    ('{"id": "x", "question": "q", "answer": "a", "contexts": 5}', "contexts", "not the number 5"),
    ('{"id": ["list-id"], "question": "q", "answer": "a"}', "id", "must be text or a number, not a list"),
    ('{"id": "x", "question": "q", "answer": "a", "reference": NaN}', "reference", "nan"),
    ('{"id": "x", "question": "q", "answer": "a", "contexts": [Infinity]}', "contexts", "inf"),
    ('{"id": "x", "question": "q", "answer": "a", "domain": {"a": 1}}', "domain", "not an object"),
])
def test_odd_field_types_in_answers_are_rejected_with_row_and_column(home, capsys, row, column, words):
    good = json.dumps({"id": "g", "question": "q", "answer": "7 days", "reference": "7 days"})
    src = _jsonl(home / "odd.jsonl", [good, row, json.dumps({"id": "h", "question": "q", "answer": "b"})])
    assert main(["score", str(src), "--metrics", "exact_match", "--no-store"]) == 1
    cap = capsys.readouterr()
    assert [json.loads(x)["id"] for x in cap.out.splitlines()] == ["g", "h"]
    assert f"ERROR odd.jsonl, row 2 (line 2), column '{column}': " in cap.err and words in cap.err, cap.err
