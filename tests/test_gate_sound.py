"""The gate reads only sound numbers: each hostile case (a NaN effect, repeated ids, out-of-range and
infinite values, tampered parts) through ``rageval check`` / ``rageval import-scores``, with the good
rows around the bad one kept."""
from __future__ import annotations

import json
import tracemalloc

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rageval import gate
from rageval.cli import main
from rageval.project import open_project


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    for name in ("RAGEVAL_MAX_SCORE_ROWS", "RAGEVAL_MAX_SCORE_FILE_MB", "RAGEVAL_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def jsonl(path, rows) -> str:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def good(n=20, value=0.5, metric="token_f1"):
    return [{"id": f"q{i}", metric: value} for i in range(n)]


def run(capsys, *argv):
    rc = main(["check", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize("flag, value", [("--min-effect", "nan"), ("--min-effect", "inf"), ("--min-effect", "-0.1"),
                                         ("--min-effect", "2"), ("--alpha", "nan"), ("--alpha", "inf")])
def test_min_effect_and_alpha_must_be_finite_and_in_range(home, capsys, flag, value):
    base = jsonl(home / "base.jsonl", good(30, 0.9))
    cur = jsonl(home / "cur.jsonl", good(30, 0.1))  # a drop every reading of the flags must see
    rc, out, err = run(capsys, cur, "--no-regression-from", base, flag, value)
    assert rc == 2 and "gate passed" not in out
    assert flag in err and ("finite" in err or "range" in err or "(0, 1]" in err), err
    assert run(capsys, cur, "--no-regression-from", base, "--alpha", "1")[0] == 1  # and it is a drop


def test_duplicate_ids_are_an_error_naming_both_rows(home, capsys):
    rows = good(20, 0.0)
    rows.insert(7, {"id": "q3", "token_f1": 1.0})
    rc, out, err = run(capsys, jsonl(home / "s.jsonl", rows), "--fail-under", "token_f1=0.9")
    assert rc == 2 and "gate passed" not in out
    assert "s.jsonl: id 'q3' is in row 4 (line 4) and row 8 (line 8)" in err
    csv = home / "s.csv"
    csv.write_text("id,token_f1\r\nq1,0.5\r\nq2,0.5\r\nq1,1.0\r\n", encoding="utf-8")
    assert run(capsys, str(csv), "--fail-under", "token_f1=0.9")[2].count("row 1 (line 2) and row 3 (line 4)") == 1
    pq.write_table(pa.table({"id": ["a", "b", "a"], "token_f1": [0.1, 0.2, 0.3]}), home / "s.parquet")
    assert "id 'a' is in row 1 and row 3" in run(capsys, str(home / "s.parquet"), "--fail-under", "token_f1=0.1")[2]


@pytest.mark.parametrize("bad, why", [
    ('{"id": "bad", "token_f1": 25.0}', "25.0 is outside token_f1's range [0, 1]"),
    ('{"id": "bad", "token_f1": -3}', "-3.0 is outside token_f1's range [0, 1]"),
    ('{"id": "bad", "token_f1": 1e999}', "inf is not a finite number"),
    ('{"id": "bad", "token_f1": -Infinity}', "-inf is not a finite number"),
    ('{"id": "bad", "token_f1": NaN}', "NaN is not a number"),
    ('{"id": "bad", "token_f1": true}', "true is not a number"),
    ('{"id": "bad", "token_f1": "high"}', "'high' is not a number"),
    ('{"id": "bad", "token_f1": "inf"}', "inf is not a finite number"),
    ('{"id": "bad", "token_f1": 0.7, "token_f1_status": "failed: llm_error"}', "has the value 0.7 and the status"),
])
def test_a_bad_value_is_rejected_by_id_and_counted_unscored(home, capsys, bad, why):
    rows = [*good(10, 0.5), bad, {"id": "z", "token_f1": 0.7}]
    f = jsonl(home / "s.jsonl", rows)
    rc, out, _ = run(capsys, f, "--fail-under", "token_f1=0.4")
    assert rc == 1 and "gate FAILED" in out
    assert f"REJECTED s.jsonl row 11 (line 11), id 'bad', token_f1: {why}" in out
    assert "1 of 12 answers unscored on token_f1 (rejected:" in out
    rc, out, _ = run(capsys, f, "--fail-under", "token_f1=0.4", "--allow-unscored", "--json")
    result = json.loads(out)
    assert rc == 0 and result["rejected"][0]["id"] == "bad" and why in result["rejected"][0]["reason"]
    mean = next(c for c in result["checks"] if c["name"] == "token_f1 >= 0.4")["details"]
    assert mean["scored"] == 11 and mean["mean"] == pytest.approx((10 * 0.5 + 0.7) / 11)  # the good rows kept


def test_the_issues_out_of_range_and_infinite_files_no_longer_pass(home, capsys):
    f = jsonl(home / "s.jsonl", [*good(19, 0.0), {"id": "big", "token_f1": 25.0}])
    rc, out, _ = run(capsys, f, "--fail-under", "token_f1=0.9")
    assert rc == 1 and "mean 8.4" not in out and "mean token_f1 0.000 over 19 scored answers is below 0.9" in out
    csv = home / "s.csv"
    csv.write_text("id,token_f1\r\na,0.95\r\nb,inf\r\nc,0.97\r\n", encoding="utf-8")
    rc, out, _ = run(capsys, str(csv), "--fail-under", "token_f1=0.9")
    assert rc == 1 and "mean inf" not in out and "REJECTED s.csv row 2 (line 3), id 'b', token_f1: inf" in out


def test_unreadable_rows_are_rejected_by_number_and_fail_every_metric(home, capsys):
    f = jsonl(home / "s.jsonl", [*good(3, 0.9), "{not json", '{"token_f1": 0.9}', '[1, 2]',
                                 {"id": "z", "token_f1": 0.8}])
    rc, out, _ = run(capsys, f, "--fail-under", "token_f1=0.5")
    assert rc == 1
    assert "REJECTED s.jsonl row 4 (line 4), no id: not valid JSON" in out
    assert "REJECTED s.jsonl row 5 (line 5), no id: the row has no id" in out
    assert "REJECTED s.jsonl row 6 (line 6), no id: the row is a JSON list" in out
    assert "3 of 7 answers unscored on token_f1 (rejected: unreadable row 3)" in out
    assert run(capsys, f, "--fail-under", "token_f1=0.5", "--allow-unscored")[0] == 0


def test_thresholds_one_per_metric_finite_and_in_range(home, capsys):
    f = jsonl(home / "s.jsonl", good(5, 0.5))
    for argv, message in [(["--fail-under", "token_f1=0.1", "--fail-under", "token_f1=0.9"], "gives token_f1 twice"),
                          (["--fail-under", "token_f1=25"], "token_f1=25 is outside token_f1's range [0, 1]"),
                          (["--fail-over", "token_f1=-1"], "outside token_f1's range"),
                          (["--fail-under", "token_f1=nan"], "with a finite number"),
                          (["--fail-under", "token_f1=1e999"], "with a finite number")]:
        rc, out, err = run(capsys, f, *argv)
        assert rc == 2 and message in err and "gate" not in out, (argv, err)


def test_a_baseline_with_bad_values_fails_unless_allowed(home, capsys):
    base = jsonl(home / "base.jsonl", [*good(10, 0.5), {"id": "x", "token_f1": float("inf")}])
    cur = jsonl(home / "cur.jsonl", [*good(10, 0.5), {"id": "x", "token_f1": 0.5}])
    rc, out, _ = run(capsys, cur, "--no-regression-from", base)
    assert rc == 1 and "FAIL  baseline base.jsonl: every value sound: 1 value(s)" in out
    assert "REJECTED base.jsonl row 11 (line 11), id 'x', token_f1: inf is not a finite number" in out
    assert run(capsys, cur, "--no-regression-from", base, "--allow-unscored")[0] == 0


def test_a_tampered_stored_run_is_rejected(home, capsys):
    from rageval.store.db import connect
    from tests.human_fixtures import make_runs

    project, _ = make_runs("g", n=20, runs=("r0",))
    with connect(project.db_path) as con:
        con.execute(
            "UPDATE metric_scores SET value = 25 WHERE run_id = 'r0' AND metric = 'token_f1' AND item_id = 'q05'"
        )
    rc, out, _ = run(capsys, "--project", "g", "--run", "r0", "--fail-under", "token_f1=0.01", "--allow-unscored")
    assert "REJECTED run r0: stored score, id 'q05', token_f1: 25.0 is outside token_f1's range [0, 1]" in out
    scored = gate.from_run(project, "r0")
    assert scored.values["token_f1"].max() <= 1.0 and scored.reasons["token_f1"]["rejected: outside [0, 1]"] == 1


def test_size_and_row_limits_have_a_clear_message(home, capsys, monkeypatch):
    f = jsonl(home / "s.jsonl", good(6, 0.5))
    monkeypatch.setenv("RAGEVAL_MAX_SCORE_ROWS", "5")
    rc, _, err = run(capsys, f, "--fail-under", "token_f1=0.1")
    assert rc == 2 and "more than 5 rows, over the limit (raise it with RAGEVAL_MAX_SCORE_ROWS)" in err
    monkeypatch.delenv("RAGEVAL_MAX_SCORE_ROWS")
    monkeypatch.setenv("RAGEVAL_MAX_SCORE_FILE_MB", "0.0001")
    rc, _, err = run(capsys, f, "--fail-under", "token_f1=0.1", "--no-regression-from", f)
    assert rc == 2 and "over the limit of 0.0 MB (raise it with RAGEVAL_MAX_SCORE_FILE_MB)" in err
    monkeypatch.setenv("RAGEVAL_MAX_SCORE_FILE_MB", "0.0005")  # 500 bytes: the JSONL fits, the same .json not
    (home / "s.json").write_text(json.dumps(good(6, 0.5)), encoding="utf-8")
    assert run(capsys, f, "--fail-under", "token_f1=0.1")[0] == 0
    rc, _, err = run(capsys, str(home / "s.json"), "--fail-under", "token_f1=0.1")
    assert rc == 2 and "for a .json file, which is parsed whole; write one row per line" in err


def test_reading_a_scored_file_keeps_memory_to_the_numbers(home):
    """2,000 rows with a 20,000-character answer each (a 40 MB file): read row by row, the peak of
    Python allocations stays a small fraction of the file."""
    path = home / "big.jsonl"
    answer = "x" * 20_000
    with path.open("w", encoding="utf-8") as fh:
        for i in range(2000):
            fh.write(json.dumps({"id": f"q{i}", "answer": answer, "token_f1": 0.5, "bleu": 0.25}) + "\n")
    size = path.stat().st_size
    tracemalloc.start()
    try:
        scored = gate.from_file(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert scored.values.shape == (2000, 2) and scored.metrics == ["bleu", "token_f1"]
    assert peak < size / 10, (peak, size)


def test_text_columns_are_not_metrics_and_metric_names_keep_their_case(home, capsys):
    f = jsonl(home / "s.jsonl", [{"id": f"q{i}", "rougeL": 0.5, "notes": "fine" if i else "3"} for i in range(4)])
    scored = gate.from_file(home / "s.jsonl")
    assert scored.metrics == ["rougeL"]
    assert run(capsys, f, "--fail-under", "rougeL=0.5")[0] == 0


# ------------------------------------------------------------------- import-scores


def _parts(home, capsys, rows):
    """An OUT_DIR as `score --engine ray` leaves it, made with `score --out part-....parquet` (same schema)."""
    from rageval.scoring.parts import Part, finish
    from rageval.scoring.unit import Plan

    answers = jsonl(home / "answers.jsonl", rows)
    out = home / "out"
    out.mkdir()
    names = []
    for k, chunk in enumerate((rows[:3], rows[3:])):
        jsonl(home / f"a{k}.jsonl", chunk)
        name = f"part-{k:05d}-00000"
        assert main(["score", str(home / f"a{k}.jsonl"), "--metrics", "token_f1,exact_match", "--no-store",
                     "--out", str(out / f"{name}.parquet")]) == 0
        names.append(name)
    capsys.readouterr()
    made = Plan.make("token_f1,exact_match")
    plan = {**made.to_dict(), "metric_names": made.names(), "part_rows": 5}  # as score --engine ray writes it
    finish(out, plan, [Part(n, answers, "jsonl", 0, 0) for n in names], 0.0)
    return out


def _tamper(path, values):
    """Set token_f1 of the part's rows to ``values`` in the stored record (what import-scores reads)."""
    table = pq.read_table(path)
    records = table.column("record").to_pylist()
    for i, v in values.items():
        rec = json.loads(records[i])
        row = next(s for s in rec["scores"] if s["metric"] == "token_f1")
        row.update(value=v, status="ok", reason=None)
        records[i] = v if isinstance(v, str) and v.startswith("{") else json.dumps(rec)
    pq.write_table(table.set_column(table.schema.get_field_index("record"), "record", pa.array(records)), path)


def test_import_scores_rejects_tampered_parts_and_keeps_the_good(home, capsys):
    rows = [{"id": f"a{i}", "question": "q?", "answer": "the cat sat", "reference": "the cat sat"} for i in range(8)]
    out = _parts(home, capsys, rows)
    _tamper(out / "part-00000-00000.parquet", {0: 25.0, 1: float("inf"), 2: -3})
    _tamper(out / "part-00001-00000.parquet", {0: float("nan"), 1: "{not json"})
    (out / "part-00002-00000.parquet").write_bytes(b"PAR1 not a parquet file")
    rc = main(["import-scores", str(out), "--name", "tampered", "--project", "p"])
    text = capsys.readouterr().out
    assert rc == 1
    for line in ("REJECTED part-00000-00000.parquet row 1, id 'a0', token_f1: 25.0 is outside token_f1's range [0, 1]",
                 "REJECTED part-00000-00000.parquet row 2, id 'a1', token_f1: inf is not a finite number",
                 "REJECTED part-00000-00000.parquet row 3, id 'a2', token_f1: -3.0 is outside",
                 "REJECTED part-00001-00000.parquet row 1, id 'a3', token_f1: NaN is not a number",
                 "REJECTED part-00001-00000.parquet row 2, no id: the record is not valid JSON",
                 "REJECTED part-00002-00000.parquet, no id: the part cannot be read"):
        assert line in text, line
    run_id = text.strip().splitlines()[-1].split()[1].rstrip(":")
    assert "7 answer(s) imported" in text  # every row but the unreadable record
    rc, out_text, _ = run(capsys, "--project", "p", "--run", run_id, "--fail-under", "token_f1=0.5")
    assert rc == 1 and "mean inf" not in out_text and "4 of 7 answers unscored on token_f1" in out_text
    rc, out_text, _ = run(capsys, "--project", "p", "--run", run_id, "--fail-under", "token_f1=0.5", "--allow-unscored")
    assert rc == 0 and "mean token_f1 1.000 over 3 scored answers" in out_text
    assert "exact_match" in gate.from_run(open_project("p"), run_id).metrics
