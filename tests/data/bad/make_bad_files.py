"""Write the malformed QA / answer files that tests/test_bad_files.py checks, one per case.

Run ``python tests/data/bad/make_bad_files.py`` to (re)make them beside this script; the files
are small and committed, so the tests do not depend on running it.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def files() -> dict[str, str]:
    good = [{"id": f"q{i}", "question": f"Question {i}?", "reference": f"answer {i}"} for i in range(1, 5)]
    out: dict[str, str] = {}
    # row 2 opens a quote it never closes: csv would merge rows 2-4 into one question
    out["unclosed_quote.csv"] = ('id,question,reference\n'
                                 'q1,First question?,one\n'
                                 'q2,"Second question?,two\n'
                                 'q3,Third question?,three\n'
                                 'q4,Fourth question?,four\n')
    # no 'question' column (nor an alias of it) in any of 50 rows
    out["missing_column.csv"] = "id,prompt,reference\n" + "".join(f"q{i},Prompt {i}?,a{i}\n" for i in range(50))
    out["extra_columns.csv"] = ("id,question,reference,owner,priority\n"
                                "q1,First?,one,ann,high\nq2,Second?,two,bob,low\n")
    out["duplicate_ids.csv"] = "id,question,reference\nq1,First?,one\nq2,Second?,two\nq1,Again?,three\n"
    out["empty_questions.csv"] = "id,question,reference\nq1,First?,one\nq2,   ,two\nq3,,three\nq4,Fourth?,four\n"
    lines = [json.dumps(r) for r in good]
    lines.insert(2, '{"id": "bad", "question": "unterminated')
    out["bad_json_line.jsonl"] = "\n".join(lines) + "\n"
    out["object_not_list.json"] = json.dumps({"id": "q1", "question": "Just one?", "reference": "yes"})
    # json.dumps escapes the lone surrogate as \ud800, as any JSON writer may
    out["lone_surrogate.jsonl"] = "".join(json.dumps(r) + "\n" for r in [
        {"id": "q1", "question": "Broken \ud800 text?", "reference": "one"},
        {"id": "q2", "question": "Fine?", "reference": "two \ud800\x00"},
        {"id": "q3", "question": "Also fine?", "reference": "three"}])
    out["lone_surrogate_answers.jsonl"] = "".join(json.dumps(r) + "\n" for r in [
        {"id": "a1", "question": "Capital of France?", "answer": "Paris \ud800", "reference": "Paris",
         "contexts": ["Paris is the capital of France \udfff."]},
        {"id": "a2", "question": "Capital of Italy?", "answer": "Rome", "reference": "Rome",
         "contexts": ["Rome is the capital of Italy."]}])
    return out


def main() -> None:
    for name, text in files().items():
        (HERE / name).write_text(text, encoding="utf-8", newline="")
        print(name)


if __name__ == "__main__":
    main()
