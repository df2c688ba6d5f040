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
    with pytest.raises(
        InputError, match=r"labels.jsonl: file has 40 rows, over the limit of 30 .*RAGEVAL_MAX_LABEL_ROWS"
    ):
        cl.import_claim_labels(project, "labels.jsonl", _labels_file(40).encode())
    assert cstore.labels(project.db_path, ["runA"]) == []  # nothing of it stored
    assert cl.import_claim_labels(project, "labels.jsonl", _labels_file(30).encode()).imported == 30


def test_a_claim_labels_file_past_the_size_limit_is_refused_before_it_is_read(project, tmp_path, monkeypatch, capsys):
    path = tmp_path / "labels.jsonl"
    path.write_text(_labels_file(40), encoding="utf-8")
    monkeypatch.setenv("RAGEVAL_MAX_LABEL_FILE_MB", "0.001")
    assert main(["claim-labels", "import", str(path), "--project", project.slug]) == 1
    err = capsys.readouterr().err
    assert (
        f"labels.jsonl: file is {path.stat().st_size:,} bytes, over the limit of 1,000 bytes" in err
        and "RAGEVAL_MAX_LABEL_FILE_MB" in err
    )
    assert "nothing was imported" in err and "Traceback" not in err
    assert cstore.labels(project.db_path, ["runA"]) == []
    with pytest.raises(InputError, match="RAGEVAL_MAX_LABEL_FILE_MB"):  # the app's upload: the same limit
        cl.import_claim_labels(project, "labels.jsonl", path.read_bytes())


HOSTILE = "ann\x1b]0;pwned\x07\x1b[31m \u202elee\x9b2J"


def test_control_characters_in_a_name_are_removed_where_it_enters_and_a_name_of_nothing_else_refused(project):
    from rageval import human
    from rageval.errors import ConfigError
    from rageval.store import human as hstore

    csv = f"run,item_id,annotator,rating\nrunA,q00,{HOSTILE},4\nrunA,q01,\x1b[31m\u202e,3\n"
    result = human.import_ratings(project, "ratings.csv", csv.encode())
    assert [r[2] for r in result.rows] == ["ann lee"]
    assert [e.row for e in result.errors] == [2] and "missing annotator" in result.errors[0].reason
    human.rate(project, "runA", "q02", "bob\x1b[1m\u202e\x00", 5)  # the app's name box
    with pytest.raises(ConfigError, match="annotator name is needed"):
        human.rate(project, "runA", "q03", "\x1b[2J\u2066", 5)
    stored = {(r["item_id"], r["annotator"]) for r in hstore.ratings(project.db_path, ["runA"])}
    assert {("q00", "ann lee"), ("q02", "bob")} <= stored
    assert all(name.isprintable() for _, name in stored)

    labels = json.dumps({"run": "runA", "item_id": "q00", "claim_index": 0, "rater": HOSTILE, "label": "S"}) + "\n"
    assert [r["rater"] for r in cl.import_claim_labels(project, "labels.jsonl", labels.encode()).rows] == ["ann lee"]
    cl.label_claim(project, "runA", "q01", "Claim 0 of answer 1.", "cy\u202e\x07", "S", ordinal=0)
    assert sorted({r["rater"] for r in cstore.labels(project.db_path, ["runA"])}) == ["ann lee", "cy"]
    assert all(r["annotator"].isprintable() for r in hstore.ratings(project.db_path, ["runA"]))


def test_an_export_never_carries_control_or_bidi_characters_of_a_name_to_the_terminal(project):
    from rageval import human
    from rageval.store import human as hstore

    # a name stored raw before names were cleaned (an old database): the export neutralises it
    hstore.save_ratings(project.db_path, [("runA", "q00", HOSTILE, 4)])
    cstore.save_labels(project.db_path, [{"run_id": "runA", "item_id": "q00", "claim": "Claim 0 of answer 0.",
                                          "ordinal": 0, "rater": HOSTILE, "label": "SUPPORTED", "evidence": None,
                                          "evidence_chunk": None, "span_start": None, "span_end": None}])
    for fmt in ("csv", "jsonl"):
        for text in (human.export_ratings(project, ["runA"], fmt), cl.export_claim_labels(project, ["runA"], fmt)):
            assert not any(ch in text for ch in "\x1b\x07\x9b\u202e"), repr(text)
            assert "ann lee" in text


def test_a_ratings_file_without_an_annotator_column_needs_annotator_named_and_then_imports(project, tmp_path, capsys):
    from rageval.store import human as hstore

    path = tmp_path / "maria.csv"
    path.write_text("item_id,rating\nq00,4\nq01,2\nq02,\n", encoding="utf-8")
    args = ["ratings", "import", str(path), "--run", "runA", "--project", project.slug]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "missing column annotator" in err and "--annotator NAME" in err
    assert main([*args, "--annotator", "maria\u202e"]) == 1  # one row rejected (no rating), the others stored
    out = capsys.readouterr().out
    assert "2 rating(s) imported, 1 row(s) rejected" in out
    stored = {(r["item_id"], r["annotator"], r["rating"]) for r in hstore.ratings(project.db_path, ["runA"])}
    assert {("q00", "maria", 4), ("q01", "maria", 2)} <= stored
    # a row's own annotator wins; a blank cell takes the named one
    mixed = b"item_id,annotator,rating\nq03,zoe,5\nq04,,3\n"
    from rageval import human

    result = human.import_ratings(project, "mixed.csv", mixed, run="runA", annotator="maria")
    assert sorted(r[1:3] for r in result.rows) == [("q03", "zoe"), ("q04", "maria")]


def _verdicts(rater: str, label: str, items=range(4)) -> str:
    return "".join(json.dumps({"run": "runA", "item_id": f"q{i:02d}", "claim_index": 0, "rater": rater,
                               "label": label}) + "\n" for i in items)


def test_a_re_import_says_whose_labels_it_replaced_and_keeps_them_for_agreement_as_of_a_time(project, tmp_path,
                                                                                               capsys):
    import time

    from rageval.store.db import connect

    first = cl.import_claim_labels(project, "first.jsonl", _verdicts("ann", "S").encode())
    assert first.replaced == {}
    time.sleep(0.05)
    with connect(project.db_path) as con:  # the store's clock between the two imports
        between = con.execute("SELECT CAST(now() AS TIMESTAMP)").fetchone()[0]
    time.sleep(0.05)
    again = tmp_path / "second.jsonl"
    again.write_text(_verdicts("ann", "C", range(2)) + _verdicts("ann", "S", range(2, 4)) + _verdicts("bob", "S"),
                     encoding="utf-8")
    assert main(["claim-labels", "import", str(again), "--project", project.slug]) == 0
    out = capsys.readouterr().out
    assert "8 claim label(s) imported, 0 row(s) rejected" in out
    assert "2 earlier label(s) replaced (ann 2); the earlier ones are kept in the label history" in out
    old = [(h["item_id"], h["rater"], h["label"], h["replaced_by"]) for h in cstore.history(project.db_path, ["runA"])]
    assert old == [
        ("q00", "ann", "SUPPORTED", "import second.jsonl"),
        ("q01", "ann", "SUPPORTED", "import second.jsonl"),
    ]
    now = cl.labels_frame(project, ["runA"])
    then = cl.labels_frame(project, ["runA"], as_of=between)
    assert sorted(now.loc[now.rater == "ann", "label"]) == ["CONTRADICTED"] * 2 + ["SUPPORTED"] * 2
    assert list(then["rater"]) == ["ann"] * 4 and set(then["label"]) == {"SUPPORTED"}  # bob came later
    assert cl.rater_agreement(then)["raters"] == 1 and cl.rater_agreement(now)["raters"] == 2
    ask = ["agreement", "--claims", "--runs", "runA", "--project", project.slug, "--json"]
    assert main([*ask, "--as-of", between.isoformat()]) == 0
    assert json.loads(capsys.readouterr().out)["raters"]["raters"] == 1
    assert main(ask) == 0 and json.loads(capsys.readouterr().out)["raters"]["raters"] == 2
    assert main([*ask, "--as-of", "last tuesday"]) == 2 and "--as-of 'last tuesday'" in capsys.readouterr().err


def test_three_concurrent_imports_each_say_what_they_replaced_and_lose_nothing(project, tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    procs = []
    for label in ("S", "C", "NM"):
        path = tmp_path / f"{label}.jsonl"
        path.write_text(_verdicts("ann", label), encoding="utf-8")
        procs.append(subprocess.Popen([sys.executable, "-m", "rageval", "claim-labels", "import", str(path),
                                       "--project", project.slug, "--json"], cwd=root, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    replaced = [json.loads(out).get("replaced", {}).get("ann", 0) for out, _ in outs]
    assert sorted(replaced) == [0, 4, 4]  # whichever came first replaced nothing; each later one all four
    history = cstore.history(project.db_path, ["runA"])
    assert len(history) == 8 and all(h["rater"] == "ann" for h in history)
    current = {r["label"] for r in cstore.labels(project.db_path, ["runA"]) if r["rater"] == "ann"}
    assert len(current) == 1  # one import's labels, whole: never a mix
    assert {h["label"] for h in history} | current == {"SUPPORTED", "CONTRADICTED", "NOT_MENTIONED"}
