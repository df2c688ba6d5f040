"""Parts, retries and usage errors of `score --engine ray`, without starting Ray (rageval/scale/)."""
from __future__ import annotations

import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rageval.cli import main
from rageval.errors import ConfigError
from rageval.ingest.limits import RowLimits
from rageval.scale import ray_engine
from rageval.scoring.parts import list_inputs, plan_parts, read_part, start_plan
from rageval.scale.ray_engine import ScoreActor
from rageval.scoring.unit import Plan, score_table

ROWS = [{"id": f"r{i}", "question": f"Q{i}?", "answer": f"Answer {i} is Paris.", "reference": "Paris",
         "contexts": [f"Paris is the capital, says source {i}."]} for i in range(9)]


def _jsonl(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_jsonl_parts_number_rows_as_the_whole_file(tmp_path):
    lines = [json.dumps(r) for r in ROWS]
    lines[4] = '{"id": "broken", '            # row 5 is not JSON
    lines[6] = json.dumps({**ROWS[6], "id": ""})  # row 7 has no id: it is row7, as `score` names it
    src = _jsonl(tmp_path / "a.jsonl", lines[:3] + [""] + lines[3:])  # a blank line 4 is no row
    parts = plan_parts(list_inputs(str(src)), part_rows=4)
    assert [(p.name, p.first_row, p.rows, p.first_line) for p in parts] == [
        ("part-00000-00000", 1, 4, 1), ("part-00000-00001", 5, 4, 6), ("part-00000-00002", 9, 1, 10)]
    assert [(e.row, e.line) for e in read_part(parts[1]).problems] == [(5, 6)]
    over = read_part(parts[0], RowLimits(max_field_chars=20)).problems  # every context is longer
    assert [e.row for e in over] == [1, 2, 3, 4] and all("row skipped" in e.reason for e in over)
    plan = Plan.make("token_f1")
    got = [r for p in parts for r in ray_engine.score_rows_table(read_part(p), plan).to_pylist()]
    whole = score_table([json.loads(x) if x.endswith("}") else None for x in lines], plan, source="a.jsonl")
    assert [r["id"] for r in got] == ["r0", "r1", "r2", "r3", "row5", "r5", "row7", "r7", "r8"]
    assert got[4]["token_f1_status"].startswith("failed: input: not valid JSON")
    assert [r["token_f1"] for r in got] == [r["token_f1"] for r in whole.to_pylist()]


def test_parquet_parts_follow_row_groups(tmp_path):
    path = tmp_path / "s.parquet"
    pq.write_table(pa.Table.from_pylist(ROWS), path, row_group_size=5)
    parts = plan_parts([path], part_rows=3)
    assert [(p.group, p.start, p.rows, p.first_row) for p in parts] == [(0, 0, 3, 1), (0, 3, 2, 4), (1, 0, 3, 6),
                                                                         (1, 3, 1, 9)]
    assert [n for p in parts for n, _ in read_part(p).records] == list(range(1, 10))


def test_a_failing_batch_is_retried_then_its_rows_are_failed_never_dropped(tmp_path, monkeypatch):
    src = _jsonl(tmp_path / "a.jsonl", [json.dumps(r) for r in ROWS])
    part = plan_parts([src], part_rows=9)[0]
    actor = ScoreActor(Plan.make("token_f1").to_dict(), str(tmp_path), batch_size=5, retries=2)
    calls = []
    real = ray_engine.score_rows_table

    def flaky(piece, *a, **kw):
        calls.append(len(piece.records))
        if len(calls) == 1 or len(piece.records) == 4:  # the first try of batch 1, every try of batch 2
            raise MemoryError("out of memory")
        return real(piece, *a, **kw)

    monkeypatch.setattr(ray_engine, "score_rows_table", flaky)
    rows = actor.score_part(part).to_pylist()
    assert calls == [5, 5, 4, 4, 4]
    assert [r["id"] for r in rows] == [r["id"] for r in ROWS]
    assert all(r["token_f1"] is not None for r in rows[:5])
    assert all(r["token_f1_status"] == "failed: batch_error: MemoryError: out of memory" and r["record"] is None
               for r in rows[5:])


def test_an_out_dir_of_other_inputs_is_refused(tmp_path):
    a = _jsonl(tmp_path / "a.jsonl", [json.dumps(r) for r in ROWS])
    start_plan(tmp_path / "out", {"metrics": ["token_f1"]}, plan_parts([a], 4))
    with pytest.raises(ConfigError, match="other inputs or with other settings"):
        start_plan(tmp_path / "out", {"metrics": ["bleu"]}, plan_parts([a], 4))


def test_usage_errors_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    src = _jsonl(tmp_path / "a.jsonl", [json.dumps(r) for r in ROWS])
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the extra were not installed
    assert main(["score", str(src), "--metrics", "token_f1", "--engine", "ray", "--out", str(tmp_path / "o")]) == 2
    assert 'pip install "rageval[ray]"' in capsys.readouterr().err
    assert main(["score", str(src), "--metrics", "aligncheck", "--aligncheck-types", "3", "--engine", "ray",
                 "--out", str(tmp_path / "o2")]) == 2
    assert "depend on how rows are split" in capsys.readouterr().err
    (tmp_path / "a.csv").write_text("id,answer\n1,x\n")
    assert main(["score", str(tmp_path / "a.csv"), "--metrics", "token_f1", "--engine", "ray",
                 "--out", str(tmp_path / "o3")]) == 2
    assert "convert CSV/JSON to JSONL" in capsys.readouterr().err
    assert main(["import-scores", str(tmp_path / "o")]) == 2  # started, never finished: no _SUCCESS
    assert "did not finish" in capsys.readouterr().err
