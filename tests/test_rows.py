"""QA and answer files: formats, RAGAS names, row-level errors that keep the good rows."""
import json

import pytest

from rageval.errors import InputError
from rageval.ingest.qa import parse_qa
from rageval.runs.scoring import parse_answers


def test_csv_with_bad_rows_keeps_good_ones():
    data = b'id,question,reference\n1,What?,yes\n2,,missing question\n1,Dup?,x\n3,Why?,"[""a"", ""b""]"\n'
    items, errors = parse_qa("set.csv", data)
    assert [i["id"] for i in items] == ["1", "3"]
    assert items[1]["references"] == ["a", "b"]
    assert [(e.row, e.reason) for e in errors] == [
        (2, "empty question"), (3, "duplicate id '1' (first at row 1); this row was skipped")]
    assert str(errors[0]) == "set.csv, row 2 (line 3), column 'question': empty question"


def test_jsonl_ragas_names_and_broken_line():
    lines = [json.dumps({"user_input": "Q1?", "reference": "A"}), "{not json", json.dumps({"question": "Q3?",
             "reference": ["x", "y"], "relevant_ids": {"d1": 2}, "domain": "hr"})]
    items, errors = parse_qa("set.jsonl", "\n".join(lines).encode())
    assert [i["question"] for i in items] == ["Q1?", "Q3?"]
    assert items[0]["id"] == "row1" and items[1]["relevant"] == {"d1": 2.0} and items[1]["domain"] == "hr"
    assert errors[0].row == 2 and "not valid JSON" in errors[0].reason


def test_whole_file_errors_name_the_file():
    with pytest.raises(InputError, match="set.xlsx: unsupported table type"):
        parse_qa("set.xlsx", b"abc")
    with pytest.raises(InputError, match="set.json: a JSON file must hold a list"):
        parse_qa("set.json", b'"text"')
    with pytest.raises(InputError, match="set.csv: not valid UTF-8"):
        parse_qa("set.csv", b"\xff\xfe\x00\x00\xc3\x28garbage\x00")


def test_answers_ragas_columns_and_type_errors():
    rows = [
        {"user_input": "Q?", "response": "A", "retrieved_contexts": ["c1", "c2"], "reference": "A"},
        {"id": "b", "question": "Q2?", "answer": 5, "contexts": []},
        {"id": "c", "question": "Q3?", "answer": "x", "contexts": [{"bad": 1}]},
    ]
    samples, errors = parse_answers("a.json", json.dumps(rows).encode())
    assert len(samples) == 1 and samples[0].contexts == ("c1", "c2") and samples[0].answer == "A"
    assert [(e.row, e.reason) for e in errors] == [(2, "answer must be a string"),
                                                  (3, "contexts must be a string or a list of strings")]
