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


def test_a_utf8_csv_with_a_stray_nul_keeps_its_rows_and_notes_the_nul():
    """A raw NUL in a UTF-8 CSV once made the file decode as UTF-16: every row vanished, no message."""
    data = "id,question,reference\r\nq1,What is\x00 it?,A\r\nq2,Why?,B\r\n".encode("utf-8")
    items, errors = parse_qa("set.csv", data)
    assert [i["question"] for i in items] == ["What is it?", "Why?"]
    assert any(e.row == 1 and "NUL" in e.reason and e.level == "note" for e in errors)
    utf16 = "id,question,reference\r\nq1,Où?,A\r\n".encode("utf-16-le")  # no BOM: told by its NUL bytes
    items, errors = parse_qa("set.csv", utf16)
    assert [i["question"] for i in items] == ["Où?"] and not [e for e in errors if e.level == "error"]


def test_jsonl_lines_break_only_at_newline():
    """U+0085 and U+2028 are left unescaped by JSON writers; they are not line breaks in JSON Lines."""
    data = ('{"id": "a", "question": "one\u0085two", "reference": "x"}\r\n'
            '{"id": "b", "question": "three\u2028four", "reference": "y"}\n').encode("utf-8")
    items, errors = parse_qa("set.jsonl", data)
    assert [i["question"] for i in items] == ["one\u0085two", "three\u2028four"] and not errors


def test_a_relevance_grade_past_float_range_rejects_only_its_row():
    big = "9" * 400
    data = ('{"id": "a", "question": "Q?", "answer": "x", "relevant_ids": {"d1": ' + big + '}}\n'
            '{"id": "b", "question": "Q?", "answer": "y", "relevant_ids": {"d1": 2}}\n').encode()
    samples, errors = parse_answers("a.jsonl", data)
    assert [s.id for s in samples] == ["b"]
    assert [(e.row, e.level) for e in errors] == [(1, "error")] and "finite" in errors[0].reason
