"""The shipped demo snapshot (rageval/demo/snapshot/) equals a fresh build of the demo, carries the
signature of the code now, and the demo loads from it (a new run on its corpus indexes from the cache)."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from rageval.config import RunConfig
from rageval.demo import DEMO_CORPUS, DEMO_QA, demo_run_id, load_demo
from rageval.demo.snapshot import TABLES, load_snapshot, shipped_manifest, signature, snapshot_dir, write_snapshot
from rageval.project import open_project
from rageval.store import runs as store

CONFIG = RunConfig(corpus=DEMO_CORPUS, qa_set=DEMO_QA)
#: what differs between two builds of the same data: when, where and by which process
VOLATILE = ("created", "started", "finished", "heartbeat", "owner_pid", "owner_host", "owner_start", "latency_ms")


def _table(folder, table: str) -> pd.DataFrame:
    import duckdb

    return duckdb.connect().execute(f"SELECT * FROM read_parquet('{folder / (table + '.parquet')}')").df()


def _ids(folder) -> dict[str, str]:
    """Each build's run and analysis ids -> a name shared by both builds."""
    runs = _table(folder, "runs")
    out = {rid: f"<run:{kind}>" for rid, kind in zip(runs["id"], runs["kind"])}
    out.update({aid: "<analysis>" for aid in set(_table(folder, "correlations")["id"])})
    return out


def _normal(folder, table: str) -> pd.DataFrame:
    frame = _table(folder, table).drop(columns=[c for c in VOLATILE if c in _table(folder, table).columns])
    ids = _ids(folder)
    for col in frame.columns:
        if frame[col].dtype == object or pd.api.types.is_string_dtype(frame[col]):
            def swap(v):
                if isinstance(v, str):
                    for old, new in ids.items():
                        v = v.replace(old, new)
                return v
            frame[col] = frame[col].map(swap)
    if table == "embedding_cache":
        frame["vector"] = frame["vector"].map(lambda b: np.frombuffer(bytes(b), dtype="<f4"))
    keys = [c for c in frame.columns if c != "vector" and (frame[c].dtype == object
                                                           or pd.api.types.is_string_dtype(frame[c]))]
    return frame.sort_values(keys).reset_index(drop=True)


def test_the_shipped_snapshot_is_made_by_the_code_now():
    manifest = shipped_manifest()
    assert manifest is not None, "no shipped demo snapshot: python -m devtools.demo_snapshot"
    assert manifest["signature"] == signature(CONFIG), (
        "the demo's code or inputs changed since the snapshot was made: python -m devtools.demo_snapshot")
    assert sum(f.stat().st_size for f in snapshot_dir().iterdir()) < 1_000_000  # shipped small


def test_the_shipped_snapshot_equals_a_fresh_build(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    load_demo(force=True)  # from nothing (force never reads the snapshot)
    fresh = tmp_path / "fresh"
    made = write_snapshot(open_project("demo"), CONFIG, fresh)
    assert made["rows"] == shipped_manifest()["rows"]
    for table in TABLES:
        a, b = _normal(snapshot_dir(), table), _normal(fresh, table)
        assert list(a.columns) == list(b.columns) and len(a) == len(b), table
        for col in a.columns:
            if col == "vector":  # worker processes pack texts differently: float32 rounding, never more
                assert all(np.allclose(x, y, atol=1e-6, rtol=0) for x, y in zip(a[col], b[col])), table
            elif a[col].dtype.kind == "f":
                assert np.allclose(a[col].to_numpy(float), b[col].to_numpy(float), atol=1e-6, equal_nan=True), (
                    table,
                    col,
                )
            else:
                assert a[col].astype(str).tolist() == b[col].astype(str).tolist(), (table, col)


def test_the_demo_loads_from_the_snapshot_and_a_new_run_indexes_from_its_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    built = load_demo()
    project = open_project("demo")
    assert built["run_id"] == demo_run_id() and built["status"] == "finished" and built["import_run_id"]
    runs = {r.kind: r for r in store.runs(project.db_path)}
    assert set(runs) == {"pipeline", "import"}  # nothing built beside the shipped rows
    assert not load_snapshot(project, CONFIG)  # never loaded twice into one project
    from rageval.embed import minilm, processes

    def no_model(*args, **kwargs):
        raise AssertionError("the demo corpus's vectors are in the shipped cache: no model is needed")

    monkeypatch.setattr(minilm.MiniLMEmbedder, "_model", no_model)  # here, or in a worker process:
    monkeypatch.setattr(processes, "get_pool", no_model)
    from rageval.runs.pipeline import execute, start_run

    summary = execute(project, start_run(project, RunConfig(corpus=DEMO_CORPUS, qa_set=DEMO_QA,
                                                            metrics=("token_f1", "mrr"))))
    assert summary.done == 43
    scores = json.dumps([s["value"] for s in store.scores(project.db_path, demo_run_id()) if s["metric"] == "mrr"])
    assert scores  # the shipped run reads as any run


@pytest.mark.parametrize("change", ["signature", "missing"])
def test_a_stale_or_missing_snapshot_is_not_loaded(tmp_path, monkeypatch, change):
    folder = tmp_path / "snap"
    folder.mkdir()
    for f in snapshot_dir().iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    if change == "signature":
        manifest = json.loads((folder / "manifest.json").read_text())
        (folder / "manifest.json").write_text(json.dumps({**manifest, "signature": "0" * 64}))
    else:
        (folder / "claims.parquet").unlink()
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    project = open_project("demo")
    assert not load_snapshot(project, CONFIG, folder)
    assert store.runs(project.db_path) == []
