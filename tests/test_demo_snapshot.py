"""The shipped demo snapshot (rageval/demo/snapshot/) equals a build of the demo from nothing (stopped and
resumed on the way, as a killed first start would be), carries the signature of the code now, and the demo
loads from it (a new run on its corpus indexes from the cache)."""
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


def test_an_interrupted_build_resumes_once_and_equals_the_shipped_snapshot(tmp_path, monkeypatch):
    """The demo built from nothing (``force`` never reads the snapshot), stopped after two batches
    and resumed by the next start, equals the shipped snapshot table by table; the build holds what
    the demo promises (ratings, offline verdicts with hints, claim labels, one analysis, a trust view
    with content with no key), and a third start builds nothing."""
    from rageval import demo

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    real_execute = demo.execute
    calls = iter(range(100))
    monkeypatch.setattr(demo, "execute", lambda p, r, progress=None: real_execute(
        p, r, batch_size=8, should_stop=lambda: next(calls) >= 2))
    first = load_demo(force=True)
    assert first["status"] == "interrupted"
    monkeypatch.setattr(demo, "execute", real_execute)
    again = load_demo()  # the pending run resumed; the snapshot is never mixed into a build under way
    assert again["run_id"] == first["run_id"] and again["status"] == "finished" and again["items"] == 43
    project = open_project("demo")
    assert [r.kind for r in store.runs(project.db_path)] == ["import", "pipeline"]

    fresh = tmp_path / "fresh"
    made = write_snapshot(project, CONFIG, fresh)
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

    ratings = store.ratings(project.db_path, again["run_id"])
    assert {r["annotator"] for r in ratings} == {"ann_a", "ann_b", "ann_c"} and len(ratings) == 3 * 43
    demo_claims = store.claims(project.db_path, again["import_run_id"])
    # offline (no judge) the demo's claims are SUPPORTED where copied and UNVERIFIED otherwise: never
    # CONTRADICTED or NOT_MENTIONED, which only a judge writes
    assert {c["verdict"] for c in demo_claims} == {"SUPPORTED", "UNVERIFIED"}
    unverified = [c for c in demo_claims if c["verdict"] == "UNVERIFIED"]  # shown with evidence and hints
    assert unverified and all(c["evidence"] and c["details"]["evidence_role"] == "likely evidence" for c in unverified)
    assert any("the claim says" in h for c in unverified for h in c["details"]["hints"])  # a wrong number, hinted
    # illustrative claim labels of the three profiles, on both runs, imported once
    from rageval.store import claim_labels as cstore

    both = [again["run_id"], again["import_run_id"]]
    labels = cstore.labels(project.db_path, both)
    assert {r["rater"] for r in labels} == {"ann_a", "ann_b", "ann_c"} and {r["run_id"] for r in labels} == set(both)
    written = (demo.demo_dir() / "claim_labels.csv").read_text(encoding="utf-8").count("\n") - 1
    assert len(labels) == written  # every written label names a claim the demo's runs hold
    # with no key every trust view has content: the verifier against the labels, the raters' agreement,
    # each run's prediction-powered estimates and the report's section on them
    from rageval.views import trust

    verifiers, raters = trust.claim_agreement(project, both, n_boot=50)
    assert raters["raters"] == 3 and raters["shared"] > 0 and raters["alpha"].value is not None
    assert any(r["labelled"] and r["accuracy"] is not None for r in verifiers)
    for run_id in both:
        sentences = [trust.estimate_sentence(r) for r in trust.estimate_rows(project, run_id)
                     if r.get("estimate") is not None or r.get("point") is not None]
        assert any("share of claims a person calls SUPPORTED" in s for s in sentences)
        assert "How far to trust the verdicts and the numbers" in trust.report_section(project, run_id)
    third = load_demo()
    assert (third["run_id"], third["import_run_id"]) == (again["run_id"], again["import_run_id"])  # built once
    assert len(cstore.labels(project.db_path, both)) == written
    assert len(store.runs(project.db_path)) == 2
    # the demo opens with one stored correlation analysis of its ratings, made once
    from rageval import human

    assert third["analysis_id"] == again["analysis_id"] and len(human.list_analyses(project)) == 1
    assert human.open_analysis(project, again["analysis_id"]).cell("all", human.CEILING, "human")["rho"] is not None


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
