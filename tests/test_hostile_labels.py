"""People's labels under hostile input: files of labels past their limits, control characters in a
rater's name, re-imports that replace labels, ratings without an annotator column."""
from __future__ import annotations

import json

import pytest

from rageval.cli import main
from rageval.errors import InputError
from rageval.human import claim_labels as cl
from rageval.store import claim_labels as cstore
from tests.claim_fixtures import claims_project


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path))
    return claims_project()[0]


def _labels_file(rows: int, rater: str = "ann") -> str:
    return "".join(json.dumps({"run": "runA", "item_id": f"q{i % 12:02d}", "claim_index": i // 12 % 3,
                               "rater": f"{rater}{i // 36}", "label": "S"}) + "\n" for i in range(rows))


def test_a_claim_labels_file_past_the_row_limit_is_refused_whole_naming_the_setting(project, monkeypatch):
    monkeypatch.setenv("RAGEVAL_MAX_LABEL_ROWS", "30")
    with pytest.raises(InputError, match=r"labels.jsonl: file has 40 rows, over the limit of 30 .*RAGEVAL_MAX_LABEL_ROWS"):
        cl.import_claim_labels(project, "labels.jsonl", _labels_file(40).encode())
    assert cstore.labels(project.db_path, ["runA"]) == []  # nothing of it stored
    assert cl.import_claim_labels(project, "labels.jsonl", _labels_file(30).encode()).imported == 30


def test_a_claim_labels_file_past_the_size_limit_is_refused_before_it_is_read(project, tmp_path, monkeypatch, capsys):
    path = tmp_path / "labels.jsonl"
    path.write_text(_labels_file(40), encoding="utf-8")
    monkeypatch.setenv("RAGEVAL_MAX_LABEL_FILE_MB", "0.001")
    assert main(["claim-labels", "import", str(path), "--project", project.slug]) == 1
    err = capsys.readouterr().err
    assert f"labels.jsonl: file is {path.stat().st_size:,} bytes, over the limit of 1,000 bytes" in err and "RAGEVAL_MAX_LABEL_FILE_MB" in err
    assert "nothing was imported" in err and "Traceback" not in err
    assert cstore.labels(project.db_path, ["runA"]) == []
    with pytest.raises(InputError, match="RAGEVAL_MAX_LABEL_FILE_MB"):  # the app's upload: the same limit
        cl.import_claim_labels(project, "labels.jsonl", path.read_bytes())
