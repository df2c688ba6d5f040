"""What rageval writes: CSV cells never run as formulas, output files are never partial."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from rageval import files
from rageval.cli import main

ROOT = Path(__file__).resolve().parents[1]
FORMULAS = ["=HYPERLINK(\"http://x\",\"y\")", "+cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0", "-2+3",
            "\tTAB", "\rCR", "'=quoted", "plain"]


@pytest.fixture()
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("RAGEVAL_PROJECT", raising=False)
    return tmp_path


def _answers(home) -> Path:
    rows = [{"id": f"r{i}", "question": f, "answer": f, "reference": f, "domain": f, "contexts": [f]}
            for i, f in enumerate(FORMULAS)]
    path = home / "answers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _cells(text: str) -> list[list[str]]:
    import csv
    import io

    return list(csv.reader(io.StringIO(text, newline="")))


def _dangerous(cells: list[list[str]]) -> list[str]:
    return [c for row in cells for c in row if c[:1] in ("=", "+", "-", "@", "\t", "\r")]


def test_every_csv_the_cli_writes_is_neutralised_and_reads_back_equal(home, capsys):
    src = _answers(home)
    assert main(["score", str(src), "--metrics", "token_f1,exact_match", "--json", "--out",
                 str(home / "s.jsonl")]) == 0
    run_id = json.loads(capsys.readouterr().out)["run_id"]
    # export --format csv: no cell starts a formula; scores stay numbers
    assert main(["export", "--run", run_id, "--format", "csv", "--out", str(home / "e.csv")]) == 0
    text = (home / "e.csv").read_bytes().decode("utf-8")
    cells = _cells(text)
    assert _dangerous(cells) == [] and "'=HYPERLINK" in text and "'-2+3" in text
    header = cells[0]
    assert all(re.fullmatch(r"[01](\.\d+)?", row[header.index("token_f1")]) for row in cells[1:])
    # JSONL keeps the exact text
    assert main(["export", "--run", run_id, "--format", "jsonl", "--out", str(home / "e.jsonl")]) == 0
    rows = [json.loads(x) for x in (home / "e.jsonl").read_text().splitlines()]
    assert sorted(r["question"] for r in rows) == sorted(f.strip() for f in FORMULAS)
    # the CSV read back by score gives the stored text again (the quote prefix is undone on read)
    assert main(["score", str(home / "e.csv"), "--metrics", "exact_match", "--no-store"]) == 0
    again = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["id"] for r in again] == [r["id"] for r in rows]
    # score --out FILE.csv
    assert main(["score", str(src), "--metrics", "token_f1", "--no-store", "--out", str(home / "s.csv")]) == 0
    assert _dangerous(_cells((home / "s.csv").read_bytes().decode("utf-8"))) == []


def test_ratings_export_csv_is_neutralised_and_reimports_equal(home, capsys, monkeypatch):
    from rageval import human
    from tests.human_fixtures import make_runs

    monkeypatch.setenv("RAGEVAL_PROJECT", "h")
    project, _ = make_runs("h", n=4, runs=("r0",))
    human.rate(project, "r0", "q00", "=HYPERLINK(\"http://evil\")", 4)
    human.rate(project, "r0", "q01", "-2+3", 2)
    assert main(["ratings", "export", "--run", "r0", "--out", str(home / "r.csv")]) == 0
    text = (home / "r.csv").read_bytes().decode("utf-8")
    assert _dangerous(_cells(text)) == [] and "'=HYPERLINK" in text and ",'-2+3," in text
    frame = pd.read_csv(home / "r.csv")
    assert frame["rating"].dtype.kind == "i"  # numbers stay numbers
    assert main(["ratings", "import", str(home / "r.csv"), "--json"]) == 0
    capsys.readouterr()
    from rageval.store import human as hstore

    stored = {(r["item_id"], r["annotator"]): r["rating"] for r in hstore.ratings(project.db_path, ["r0"])}
    assert stored[("q00", "=HYPERLINK(\"http://evil\")")] == 4 and stored[("q01", "-2+3")] == 2  # read back equal


def test_the_apps_csv_downloads_go_through_the_one_helper():
    """Every CSV the product writes goes through rageval.files.csv_text: no other to_csv / csv.writer."""
    offenders = []
    for path in list((ROOT / "rageval").rglob("*.py")) + list((ROOT / "pages").glob("*.py")):
        if path.name == "files.py":
            continue
        text = path.read_bytes().decode("utf-8")
        if re.search(r"\.to_csv\(|csv\.writer\(|csv\.DictWriter\(", text):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
    from rageval.report.exports import table_csv

    frame = pd.DataFrame({"name": FORMULAS, "value": [-2.5] * len(FORMULAS)}, index=FORMULAS)
    for text in (table_csv(frame), table_csv(frame, index=True), table_csv(frame.to_dict("records"))):
        cells = _cells(text)
        assert _dangerous([row[:-1] for row in cells]) == []
        assert all(row[-1] == "-2.5" for row in cells[1:])  # a negative number stays a number


@pytest.mark.parametrize("value", FORMULAS + ["", "'", "''", "'''-x", "-", "=", 5, -1.5, None])
def test_safe_cell_round_trips(value):
    assert files.read_cell(files.safe_cell(value)) == value


def _fail_midway(monkeypatch):
    """Make every atomic write fail after its bytes are in the temporary file."""
    def boom(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", boom)


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl", ".csv"])
def test_score_out_is_never_partial(home, capsys, monkeypatch, suffix):
    src = _answers(home)
    out = home / "shards" / f"part-007{suffix}"
    out.parent.mkdir()
    _fail_midway(monkeypatch)
    assert main(["score", str(src), "--metrics", "token_f1", "--no-store", "--out", str(out)]) == 1
    assert "No space left" in capsys.readouterr().err
    assert list(out.parent.iterdir()) == []  # no final file, no temporary file
    monkeypatch.undo()
    monkeypatch.setenv("RAGEVAL_HOME", str(home / "home"))
    assert main(["score", str(src), "--metrics", "token_f1", "--no-store", "--out", str(out)]) == 0
    assert [p.name for p in out.parent.iterdir()] == [out.name]
    if suffix == ".parquet":
        import duckdb

        n = duckdb.sql(f"SELECT count(*) FROM read_parquet('{out.parent}/part-*.parquet')").fetchall()[0][0]
        assert n == len(FORMULAS)


def test_export_report_and_ratings_export_are_never_partial(home, capsys, monkeypatch):
    src = _answers(home)
    assert main(["score", str(src), "--metrics", "token_f1", "--json", "--out", str(home / "s.jsonl")]) == 0
    run_id = json.loads(capsys.readouterr().out)["run_id"]
    out = home / "out"
    out.mkdir()
    (out / "report.html").write_text("previous report", encoding="utf-8")
    _fail_midway(monkeypatch)
    for argv in (["export", "--run", run_id, "--format", "csv", "--out", str(out / "e.csv")],
                 ["export", "--run", run_id, "--format", "parquet", "--out", str(out / "e.parquet")],
                 ["report", "--run", run_id, "--out", str(out / "report.html")],
                 ["ratings", "export", "--run", run_id, "--out", str(out / "r.csv")]):
        assert main(argv) == 1, argv
    assert sorted(p.name for p in out.iterdir()) == ["report.html"]
    assert (out / "report.html").read_text() == "previous report"  # the earlier complete file is kept
