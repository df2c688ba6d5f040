"""Scoring over shards: `score --out part-NNN.parquet` per shard, DuckDB reads the parts together,
and the combined result equals scoring the whole file at once: ids and statuses exactly, values
within float32 rounding (1e-6: a shard embeds its texts with other texts, see devtools/rounding.py)."""
from __future__ import annotations

import json

import duckdb

from rageval.cli import main
from devtools.rounding import assert_same_within_rounding
from devtools.samples import SHARD_METRICS, SHARD_ROWS



def _write(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_two_shards_equal_the_whole_file(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    whole = _write(tmp_path / "all.jsonl", SHARD_ROWS)
    parts = [_write(tmp_path / "shard-000.jsonl", SHARD_ROWS[:6]), _write(tmp_path / "shard-001.jsonl", SHARD_ROWS[6:])]
    assert main(["score", str(whole), "--metrics", SHARD_METRICS, "--out", str(tmp_path / "whole.parquet")]) == 0
    for i, part in enumerate(parts):
        assert (
            main(["score", str(part), "--metrics", SHARD_METRICS, "--out", str(tmp_path / f"part-{i:03d}.parquet")])
            == 0
        )
    capsys.readouterr()
    con = duckdb.connect()
    cols = ", ".join(["id"] + [c for m in SHARD_METRICS.split(",") for c in (m, f"{m}_status")])
    combined = con.execute(f"SELECT {cols} FROM read_parquet('{tmp_path}/part-*.parquet') ORDER BY id").fetchall()
    at_once = con.execute(f"SELECT {cols} FROM read_parquet('{tmp_path}/whole.parquet') ORDER BY id").fetchall()
    assert len(combined) == len(SHARD_ROWS)
    assert_same_within_rounding(combined, at_once)  # ids, statuses and reasons exactly
    sources = con.execute(
        f"SELECT DISTINCT source FROM read_parquet('{tmp_path}/part-*.parquet') ORDER BY 1"
    ).fetchall()
    assert sources == [("shard-000.jsonl",), ("shard-001.jsonl",)]
    means = con.execute(f"SELECT avg(token_f1), count(token_f1), count(*) FILTER (WHERE token_f1_status IS NOT NULL)"
                        f" FROM read_parquet('{tmp_path}/part-*.parquet')").fetchone()
    assert means[1] == 9 and means[2] == 1  # the row without a reference is unscored with its reason
    row6 = con.execute(
        f"SELECT token_f1_status FROM read_parquet('{tmp_path}/part-*.parquet') WHERE id = 'r06'"
    ).fetchone()
    assert row6[0].startswith("unscored: ")


def test_jsonl_and_parquet_outputs_hold_the_same_values(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    src = _write(tmp_path / "a.jsonl", SHARD_ROWS[:4])
    assert (
        main(["score", str(src), "--metrics", "token_f1,bleu", "--no-store", "--out", str(tmp_path / "o.jsonl")]) == 0
    )
    assert (
        main(["score", str(src), "--metrics", "token_f1,bleu", "--no-store", "--out", str(tmp_path / "o.parquet")]) == 0
    )
    capsys.readouterr()
    rows = [json.loads(line) for line in (tmp_path / "o.jsonl").read_text().splitlines()]
    got = duckdb.connect().execute(f"SELECT id, token_f1, bleu FROM read_parquet('{tmp_path}/o.parquet')").fetchall()
    assert got == [(r["id"], r["token_f1"], r["bleu"]) for r in rows]
