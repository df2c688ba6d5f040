"""Storage: migrations, idempotent documents, item saving without duplicates, runs as typed records, lock waiting."""
import subprocess
import sys

import pytest

from rageval.config import ImportConfig, RunConfig
from rageval.errors import ProjectBusyError
from rageval.store import db, runs
from rageval.store.record import Run


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


def test_a_failing_migration_leaves_the_database_at_the_schema_it_had(tmp_path, monkeypatch):
    real = db.migrations()
    path = tmp_path / "x.duckdb"
    monkeypatch.setattr(db, "migrations", lambda: real[:3])
    assert db.schema_version(path) == real[2][0]  # an older database
    db._MIGRATED.clear()
    broken = (real[-1][0] + 1, f"{real[-1][0] + 1:03d}_broken.sql", "CREATE TABLE later (x INTEGER); SELEKT 1;")
    monkeypatch.setattr(db, "migrations", lambda: [*real, broken])
    with pytest.raises(Exception, match="SELEKT"):
        with db.connect(path):
            pass
    monkeypatch.setattr(db, "migrations", lambda: real[:3])
    db._MIGRATED.clear()
    with db.connect(path) as con:  # none of the pending migrations applied, not even the ones before the broken one
        assert con.execute("SELECT max(version) FROM schema_version").fetchone()[0] == real[2][0]
        tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert not {"claim_labels", "members", "later"} & tables  # made by migrations 008, 012 and the broken one
    db._MIGRATED.clear()


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
    assert runs.get_run(path, "r1").done == 1


def test_ratings_and_claim_labels_saved_again_replace_the_earlier_the_last_row_winning(tmp_path):
    """Both are stored by one statement (``db.unnested``), not a statement per row: a key given twice
    in one call keeps its last row, as row-by-row upserts did, and a later call replaces it."""
    from rageval.store import claim_labels, human

    path = tmp_path / "x.duckdb"
    runs.create_run(path, "r1", kind="pipeline", corpus="c", qa_set="q", config={}, config_hash="h", n_items=2)
    human.save_ratings(path, [("r1", "a", "ann", 2), ("r1", "b", "ann", 4), ("r1", "a", "ann", 5)])
    human.save_ratings(path, [("r1", "b", "ann", 1), ("r1", "b", "bob", 3)])
    got = {(r["item_id"], r["annotator"]): r["rating"] for r in human.ratings(path, ["r1"])}
    assert got == {("a", "ann"): 5, ("b", "ann"): 1, ("b", "bob"): 3}

    def label(text, verdict, span=None):
        return {"run_id": "r1", "item_id": "a", "claim": text, "ordinal": 0, "rater": "ann", "label": verdict,
                "evidence": "e", "evidence_chunk": None, "span_start": span, "span_end": None}

    claim_labels.save_labels(path, [label("x", "SUPPORTED"), label("y", "SKIP"), label("x", "CONTRADICTED", 3)])
    claim_labels.save_labels(path, [label("y", "NOT_MENTIONED")])
    got = {r["claim"]: (r["label"], r["span_start"]) for r in claim_labels.labels(path, ["r1"])}
    assert got == {"x": ("CONTRADICTED", 3), "y": ("NOT_MENTIONED", None)}


def test_a_run_comes_back_as_a_typed_record(tmp_path):
    path = tmp_path / "x.duckdb"
    pipeline = RunConfig(corpus="c", qa_set="q", top_k=3, judge="openai:gpt-4o")
    runs.create_run(path, "p1", kind="pipeline", corpus="c", qa_set="q", config=pipeline.to_dict(),
                    config_hash=pipeline.config_hash(), n_items=2)
    imported = ImportConfig(source="a.csv", metrics=("bleu",), options=(("input", "/data/a.csv"),))
    runs.create_run(path, "i1", kind="import", corpus=None, qa_set=None, config=imported.to_dict(), config_hash="h",
                    n_items=1)
    runs.save_item(path, "p1", {"item_id": "a", "ordinal": 0, "question": "q?", "answer": None, "references": [],
                                "contexts": [], "retrieved": [], "status": "failed", "reason": "llm_error"}, [], [])
    got = runs.get_run(path, "p1")
    assert isinstance(got, Run) and got.config == pipeline and got.config.judge == "openai:gpt-4o"
    assert (got.kind, got.status, got.n_items, got.done, got.failed) == ("pipeline", "pending", 2, 1, 1)
    assert all(type(n) is int for n in (got.n_items, got.done, got.failed))
    assert runs.get_run(path, "i1").config == imported and runs.get_run(path, "i1").config.input == "/data/a.csv"
    assert set(runs.get_runs(path, ["i1", "p1", "gone"])) == {"i1", "p1"}
    (state, _, done) = runs.run_state(path, "p1")
    assert state == got and done == {"a"}
    assert runs.get_run(path, "gone") is None and runs.get_runs(path, []) == {}


def test_locked_database_raises_busy_error_after_wait_and_opens_once_released(tmp_path, monkeypatch):
    """Another process holding the file: connect waits RAGEVAL_DB_WAIT, then names the file; once
    that process lets go, the same call opens it (this process kept nothing attached)."""
    path = tmp_path / "x.duckdb"
    db.schema_version(path)
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys; con = duckdb.connect(sys.argv[1]); "
                               "print('held', flush=True); sys.stdin.read()", str(path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        monkeypatch.setenv("RAGEVAL_DB_WAIT", "0.3")
        with pytest.raises(ProjectBusyError, match=f"{path.name} is in use by another process; waited 0.3 s"):
            with db.connect(path):
                pass
    finally:
        holder.communicate("", timeout=30)
    assert db.schema_version(path) == db.migrations()[-1][0]


def test_nested_units_of_work_read_their_own_files_and_release_both(tmp_path):
    """Units of work nest (the same file twice, another file inside): each cursor's tables are its
    own file's, and when the outer one ends no file is held, so another process opens both."""
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    for path, run_id in ((a, "ra"), (b, "rb")):
        runs.create_run(path, run_id, kind="pipeline", corpus="c", qa_set="q", config={}, config_hash="h", n_items=1)
    with db.connect(a) as outer:
        with db.connect(a) as same:
            assert same.execute("SELECT id FROM runs").fetchall() == [("ra",)]
        with db.connect(b) as other:
            assert other.execute("SELECT id FROM runs").fetchall() == [("rb",)]
        assert outer.execute("SELECT id FROM runs").fetchall() == [("ra",)]
    probe = ("import duckdb, sys\nfor p in sys.argv[1:]:\n"
             "    print(duckdb.connect(p).execute('SELECT id FROM runs').fetchone()[0])")
    out = subprocess.run([sys.executable, "-c", probe, str(a), str(b)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.split() == ["ra", "rb"], out.stderr
