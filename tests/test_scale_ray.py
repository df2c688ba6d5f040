"""`score --engine ray` on one local Ray cluster (started once for this module, bound to 127.0.0.1
with a short temp dir): the parts equal single-process `score` reason for reason, verdict for
verdict and value for value within float32 rounding (1e-6: a part embeds its texts with other
texts than one process does, see devtools/rounding.py), offline and judged; a killed worker's part is retried; a re-run
does nothing; the parts import into a project as the same run `score` stores.

Skipped when Ray is not installed (`pip install "rageval[ray]"`).
"""
from __future__ import annotations

import json
import secrets
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ray = pytest.importorskip("ray", reason='Ray is not installed; install the extra: pip install "rageval[ray]"')

from rageval.cli import main  # noqa: E402
from rageval.project import open_project  # noqa: E402
from rageval.scale.ray_engine import RayOptions, score_with_ray  # noqa: E402
from rageval.scoring.unit import Plan  # noqa: E402
from rageval.store import runs as store  # noqa: E402
from devtools.judge_responder import respond  # noqa: E402
from devtools.samples import SHARD_ROWS as BASE  # noqa: E402
from devtools.rounding import assert_same_within_rounding  # noqa: E402

# 90 distinct rows (each answer numbered, so no two rows ask the judge the same thing): enough for
# uneven parts on two workers; what Ray adds does not grow with the rows
ROWS = [{**r, "id": f"{r['id']}-{k:02d}", "answer": f"{r['answer'][:-1]} (case {k})."} for k in range(9) for r in BASE]
OFFLINE = "token_f1,bleu,exact_match,faithfulness,answer_similarity"


@pytest.fixture(scope="module")
def cluster():
    """One local Ray cluster for every in-process Ray test (they are all in this module): a start costs
    seconds of CPU, and an idle cluster's daemons go on using CPU until it is shut down, so it lives for
    this module only (the killed-driver test in test_ray_cleanup.py starts its own, in the process it kills)."""
    temp = f"/tmp/rg-{secrets.token_hex(3)}"  # Unix socket paths are capped at 107 bytes
    ray.init(num_cpus=2, _node_ip_address="127.0.0.1", _temp_dir=temp, include_dashboard=False,
             logging_level="WARNING", log_to_driver=False)
    yield
    ray.shutdown()
    shutil.rmtree(temp, ignore_errors=True)


def _shards(folder, rows, n):
    folder.mkdir()
    size = -(-len(rows) // n)
    for i in range(n):
        pq.write_table(pa.Table.from_pylist(rows[i * size:(i + 1) * size]), folder / f"shard-{i}.parquet")
    return folder


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _parts(out):
    return pa.concat_tables([pq.read_table(p) for p in sorted(out.glob("part-*.parquet"))]).to_pylist()


def _without_source(rows):
    return [{k: v for k, v in r.items() if k != "source"} for r in rows]


def test_offline_parts_equal_single_process_then_rerun_does_nothing_and_import(cluster, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    shards, out = _shards(tmp_path / "shards", ROWS, 3), tmp_path / "out"
    whole = _jsonl(tmp_path / "all.jsonl", ROWS)
    assert main(["score", str(whole), "--metrics", OFFLINE, "--details", "--out", str(tmp_path / "one.parquet")]) == 0
    capsys.readouterr()
    args = ["score", str(shards), "--engine", "ray", "--metrics", OFFLINE, "--details", "--out", str(out),
            "--workers", "2", "--part-rows", "12", "--batch-size", "8", "--json"]
    assert main(args) == 0
    manifest = json.loads(capsys.readouterr().out)
    assert manifest["rows"] == 90 and manifest["parts"] == 9 and manifest["scored_parts"] == 9  # 12 + 12 + 6 per shard
    assert manifest["metrics"]["token_f1"] == {"ok": 81, "unscored": 9, "failed": 0}
    single = pq.read_table(tmp_path / "one.parquet").to_pylist()
    # values, reasons, claims, records
    assert_same_within_rounding(_without_source(_parts(out)), _without_source(single))

    stamps = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["scored_parts"] == 0
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == stamps  # nothing rewritten

    assert main(["import-scores", str(out), "--name", "cluster", "--json"]) == 0
    imported = json.loads(capsys.readouterr().out)
    assert imported["rows"] == 90 and imported["rejected"] == 0
    db = open_project(None).db_path
    by_source = {r.config.source: r.id for r in store.runs(db)}
    a, b = by_source["all.jsonl"], by_source["cluster"]

    def strip(rows):
        return [{k: v for k, v in r.items() if k != "run_id"} for r in rows]
    assert_same_within_rounding(strip(store.scores(db, b)), strip(store.scores(db, a)))
    assert strip(store.answers(db, b)) == strip(store.answers(db, a))
    assert_same_within_rounding(strip(store.claims(db, b)), strip(store.claims(db, a)))


def test_judged_parts_equal_single_process_within_the_fleet_limits_and_cached(cluster, tmp_path, monkeypatch,
                                                                              llm_env, capsys):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    # the server lists the judge's model, so the preflight check (once per process: the driver here,
    # each worker there) reads /v1/models and sends no chat call: the counts below are scoring calls
    llm_env.script(responder=respond, latency=0.02, models=["judge-model"])
    rows = ROWS[:40]
    shards, whole = _shards(tmp_path / "shards", rows, 2), _jsonl(tmp_path / "all.jsonl", rows)
    metrics = "faithfulness,token_f1"
    judged = ["--metrics", metrics, "--judge", "openai:judge-model", "--concurrency", "4"]
    assert main(["score", str(whole), *judged, "--no-cache", "--no-store", "--out", str(tmp_path / "one.parquet")]) == 0
    single_calls = llm_env.count("/v1/chat/completions")
    llm_env.reset()
    llm_env.script(responder=respond, latency=0.02, models=["judge-model"])
    cache = str(tmp_path / "llm-cache.duckdb")
    ray_args = ["--engine", "ray", "--workers", "2", "--part-rows", "10", "--batch-size", "5", "--llm-cache", cache]
    assert main(["score", str(shards), *judged, *ray_args, "--out", str(tmp_path / "out")]) == 0
    assert_same_within_rounding(_without_source(_parts(tmp_path / "out")),
                                _without_source(pq.read_table(tmp_path / "one.parquet").to_pylist()))
    assert llm_env.count("/v1/chat/completions") == single_calls > 0
    assert 1 <= llm_env.peak_in_flight <= 4  # two workers with 2 calls each, never above --concurrency

    llm_env.reset()
    assert main(["score", str(shards), *judged, *ray_args, "--out", str(tmp_path / "again")]) == 0
    assert llm_env.count() == 0  # every reply from the shared cache
    assert _parts(tmp_path / "again") == _parts(tmp_path / "out")
    capsys.readouterr()


def test_a_killed_worker_is_retried_and_a_lost_part_is_kept_as_failed(cluster, tmp_path):
    from tests.ray_actors import AlwaysDies, DiesOnce

    rows = ROWS[:40]
    src = _jsonl(tmp_path / "a.jsonl", rows)
    plan = Plan.make("token_f1")
    opts = RayOptions(workers=1, part_rows=20, batch_size=20, retries=1)
    (tmp_path / "one").mkdir()
    manifest = score_with_ray(str(src), tmp_path / "one" / "out", plan, opts, actor=DiesOnce)
    assert (tmp_path / "one" / "died").exists()
    assert manifest["rows"] == 40 and manifest["rejected"] == 0
    assert manifest["metrics"]["token_f1"]["failed"] == 0
    assert [r["id"] for r in _parts(tmp_path / "one" / "out")] == [r["id"] for r in rows]

    (tmp_path / "two").mkdir()
    manifest = score_with_ray(str(src), tmp_path / "two" / "out", plan,
                              RayOptions(workers=1, part_rows=40, batch_size=20, retries=1), actor=AlwaysDies)
    got = _parts(tmp_path / "two" / "out")
    assert [r["id"] for r in got] == [r["id"] for r in rows]  # never dropped
    assert all(r["token_f1"] is None and r["token_f1_status"].startswith("failed: worker_lost") for r in got)
    assert manifest["rejected"] == 40
