"""Hostile inputs through the entry points a user uses (issue 24): huge numbers, infinite ratings,
deep nesting, huge fields, odd field types; every bad row named, every good row kept."""
from __future__ import annotations

import json

import pytest

from rageval.cli import main
from tests.projects import QA, write_docs

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
    assert out[1]["exact_match"] == 1.0 and out[0]["faithfulness"] is not None


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
