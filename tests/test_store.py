"""Storage: migrations, idempotent documents, item saving without duplicates, lock waiting."""
import duckdb
import pytest

from rageval.errors import ProjectBusyError
from rageval.store import db, runs


def test_migrations_apply_in_order_once(tmp_path):
    path = tmp_path / "x.duckdb"
    versions = [v for v, _, _ in db.migrations()]
    assert versions == sorted(versions) and versions[0] == 1
    assert db.schema_version(path) == versions[-1]
    db._MIGRATED.clear()  # a new process opening the same file applies nothing twice
    assert db.schema_version(path) == versions[-1]
    with db.connect(path) as con:
        applied = con.execute("SELECT count(*) FROM schema_version").fetchone()[0]
        tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert applied == len(versions)
    assert {"documents", "chunks", "qa_items", "runs", "answers", "retrievals", "metric_scores", "claims",
            "human_ratings", "correlations", "llm_calls", "llm_cache", "embedding_cache"} <= tables


def test_save_item_twice_replaces_rows(tmp_path):
    path = tmp_path / "x.duckdb"
    runs.create_run(path, "r1", kind="pipeline", corpus="c", qa_set="q", config={}, config_hash="h", n_items=1)
    item = {"item_id": "a", "ordinal": 0, "question": "q?", "answer": "x", "references": ["x"],
            "contexts": ["ctx"], "retrieved": [("c1", 0.9), ("c2", 0.5)], "status": "ok"}
    score = {"metric": "exact_match", "signature": "s", "value": 1.0, "status": "ok", "reason": None, "details": None}
    claim = {"signature": "f", "ordinal": 0, "text": "x", "verdict": "SUPPORTED", "judge": "heuristic"}
    for _ in range(2):
        runs.save_item(path, "r1", item, [score], [claim])
    assert len(runs.answers(path, "r1")) == 1
    assert runs.answers(path, "r1")[0]["retrieved"] == [("c1", 0.9), ("c2", 0.5)]
    assert len(runs.scores(path, "r1")) == 1
    assert len(runs.claims(path, "r1")) == 1
    assert runs.get_run(path, "r1")["done"] == 1


def test_locked_database_raises_busy_error_after_wait(tmp_path, monkeypatch):
    path = tmp_path / "x.duckdb"
    db.schema_version(path)
    monkeypatch.setenv("RAGEVAL_DB_WAIT", "0.3")
    real_connect = duckdb.connect

    def locked(*args, **kwargs):
        raise duckdb.IOException('IO Error: Could not set lock on file "x.duckdb": Conflicting lock is held (PID 1)')

    monkeypatch.setattr(duckdb, "connect", locked)
    with pytest.raises(ProjectBusyError, match="in use by another process"):
        with db.connect(path):
            pass
    monkeypatch.setattr(duckdb, "connect", real_connect)
