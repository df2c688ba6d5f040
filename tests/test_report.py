"""Exports carry contexts and ids, and RAGAS-format exports score back to the run's own values."""
from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from rageval.config import DEFAULT_METRICS, RunConfig
from rageval.runs.pipeline import run
from rageval.report.exports import export_run, run_table, table_csv
from rageval.report.exports import to_parquet_bytes
from rageval.runs.scoring import parse_answers, score
from rageval.store import runs as store
from devtools.projects import small_project

METRICS = tuple(dict.fromkeys(DEFAULT_METRICS + ("recall@3", "precision@3", "hit_rate@3", "map", "rouge1",
                                                 "token_recall")))


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGEVAL_HOME", str(tmp / "home"))
        project = small_project(tmp)
        summary = run(project, RunConfig(corpus="c", qa_set="qa", top_k=3, metrics=METRICS))
        assert summary.status == "finished"
        yield project, summary.run_id, tmp


def _stored(project, run_id):
    return {(s["item_id"], s["metric"]): (s["status"], s["value"]) for s in store.scores(project.db_path, run_id)}


def _rescored(project, text: str, source: str = "export.jsonl"):
    samples, errors = parse_answers(source, text.encode())
    assert [e for e in errors if e.level != "note"] == []  # a note names the ignored score columns
    result = score(samples, list(METRICS), project=project, source=source)
    got = {}
    for row in result.rows:
        for m in METRICS:
            status = row.get(f"{m}_status", "ok").split(":")[0]
            got[(row["id"], m)] = (status, row[m])
    return got, result.run_id


def _same(a, b):
    assert a.keys() == b.keys()
    for key in a:
        assert a[key][0] == b[key][0], (key, a[key], b[key])
        if a[key][1] is None:
            assert b[key][1] is None, key
        else:
            # float32 embeddings batched differently differ in the 8th digit; everything else is exact
            assert b[key][1] == pytest.approx(a[key][1], abs=1e-6), (key, a[key], b[key])


def test_ragas_export_scores_back_to_the_runs_values(finished):
    project, run_id, _ = finished
    text = export_run(project, run_id, "ragas")
    rows = [json.loads(line) for line in text.splitlines()]
    assert {"user_input", "response", "retrieved_contexts", "reference"} <= set(rows[0])
    assert all(r["retrieved_contexts"] for r in rows), "every row carries its contexts' text"
    assert parse_answers("export.jsonl", text.encode())[1] == []  # a silent round trip: no "not used" note
    stored = _stored(project, run_id)
    assert any(v[0] == "ok" for k, v in stored.items() if k[1] == "recall@3"), "retrieval metrics were scored"
    got, import_id = _rescored(project, text)
    _same(stored, got)
    # and the import run made by scoring exports and scores back the same way again
    again, _ = _rescored(project, export_run(project, import_id, "ragas"), "again.jsonl")
    _same(stored, again)


def test_jsonl_and_parquet_exports_carry_contexts(finished, tmp_path):
    project, run_id, _ = finished
    rows = [json.loads(line) for line in export_run(project, run_id, "jsonl").splitlines()]
    assert len(rows) == 5 and all(len(r["contexts"]) == 3 and len(r["context_ids"]) == 3 for r in rows)
    assert rows[0]["question"] == "How high is Mount Etna?" and "faithfulness" in rows[0]
    export_run(project, run_id, "parquet", tmp_path / "run.parquet")
    frame = pd.read_parquet(tmp_path / "run.parquet")
    assert list(frame["contexts"].map(len)) == [3] * 5
    assert frame["id"].tolist() == [r["id"] for r in rows]
    assert pd.read_parquet(io.BytesIO(to_parquet_bytes(run_table(project, run_id)))).shape == frame.shape
    # the parquet file is itself a valid input of `score` once read back as records
    csv_text = export_run(project, run_id, "csv")
    back = pd.read_csv(io.StringIO(csv_text))
    assert json.loads(back.loc[0, "contexts"]) == rows[0]["contexts"]


def test_csv_export_scores_back_too(finished):
    project, run_id, _ = finished
    got, _ = _rescored(project, export_run(project, run_id, "csv"), "export.csv")
    _same(_stored(project, run_id), got)


def test_table_csv_turns_lists_into_json():
    text = table_csv([{"a": 1, "b": ["x", "y"]}, {"a": 2, "b": []}])
    frame = pd.read_csv(io.StringIO(text))
    assert frame["a"].tolist() == [1, 2] and json.loads(frame.loc[0, "b"]) == ["x", "y"]


def _import_run(project, rows, metrics, source):
    samples, errors = parse_answers(source, "".join(json.dumps(r) + "\n" for r in rows).encode())
    assert errors == []
    return score(samples, metrics, project=project, source=source).run_id


def test_leaderboard_marks_the_best_run_per_column_by_direction(tmp_path, monkeypatch):
    from rageval.project import open_project
    from rageval.report.leaderboard import leaderboard, run_name
    from rageval.store import runs as run_store

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    project = open_project("lb")
    good = [{"id": "a", "question": "q?", "answer": "Paris", "reference": "Paris"},
            {"id": "b", "question": "q?", "answer": "I am not sure, maybe Rome", "reference": "Rome"}]
    bad = [{"id": "a", "question": "q?", "answer": "London", "reference": "Paris"},
           {"id": "b", "question": "q?", "answer": "Milan", "reference": "Rome"}]
    g = _import_run(project, good, ["exact_match", "hedging"], "good.jsonl")
    b = _import_run(project, bad, ["exact_match", "hedging"], "bad.jsonl")
    board = leaderboard(project)
    assert board.best == {"exact_match": g, "hedging": b}  # hedging: lower is better
    names = dict(zip(board.table["id"], board.table["run"]))
    assert names[g].startswith("imported good.jsonl") and names[g] == run_name(run_store.get_run(project.db_path, g))
    row = board.table.set_index("id").loc[g]
    assert row["exact_match"] == pytest.approx(0.5) and row["hedging"] == pytest.approx(0.5)


def test_a_runs_model_has_one_label_in_the_run_list_the_names_and_the_rating_groups(finished):
    from rageval.config import run_model
    from rageval.human.frame import group_labels
    from rageval.report.leaderboard import run_name
    from rageval.views.run import run_rows

    project, pipeline_id, _ = finished
    samples, _ = parse_answers("answers.jsonl", b'{"id": "a1", "question": "q?", "answer": "a", "reference": "a"}\n')
    imported_id = score(samples, ["token_f1"], project=project, source="answers.jsonl").run_id
    rows = {r["run"]: r for r in run_rows(project)}
    for run_id, label in ((pipeline_id, "extractive"), (imported_id, "imported answers.jsonl")):
        run_record = store.get_run(project.db_path, run_id)
        assert run_model(run_record.config) == label
        assert rows[run_id]["generator"] == label
        assert set(group_labels(project, [run_id], "model").values()) == {label}
    assert run_name(store.get_run(project.db_path, imported_id)).startswith("imported answers.jsonl")


def test_an_import_runs_config_reads_typed_and_stores_as_before():
    from rageval.config import ImportConfig, stored_config

    stored = {"source": "a.csv", "metrics": ["bleu", "rubric:tone"], "judge": "openai:m", "language": "it",
              "embedder": "local", "aligncheck_source": "contexts", "rubrics": [{"name": "tone"}]}
    cfg = stored_config("import", stored)
    assert cfg == ImportConfig(source="a.csv", metrics=("bleu", "rubric:tone"), judge="openai:m", language="it",
                               options=(("aligncheck_source", "contexts"),), rubrics=({"name": "tone"},))
    assert cfg.to_dict() == stored  # the stored form (and so the config hash) is the one import runs always had
    assert stored_config("import", {}) == ImportConfig()


def test_a_scored_file_is_never_the_best_beside_a_pipeline_run(tmp_path, monkeypatch):
    from rageval.project import open_project
    from rageval.report.leaderboard import leaderboard
    from rageval.store.db import connect
    from rageval.views import home

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    project = open_project("lb")
    perfect = [{"id": "a", "question": "q?", "answer": "Paris", "reference": "Paris"}]  # a two-row ad hoc test
    half = [{"id": "a", "question": "q?", "answer": "Paris", "reference": "Paris"},
            {"id": "b", "question": "q?", "answer": "Milan", "reference": "Rome"}]
    worse = [{"id": "a", "question": "q?", "answer": "London", "reference": "Paris"},
             {"id": "b", "question": "q?", "answer": "Milan", "reference": "Rome"}]
    adhoc = _import_run(project, perfect, ["exact_match"], "try.jsonl")
    pipeline = [
        _import_run(project, rows, ["exact_match"], name) for rows, name in ((half, "p1.jsonl"), (worse, "p2.jsonl"))
    ]
    with connect(project.db_path) as con:  # the same values, stored as pipeline runs
        con.execute("UPDATE runs SET kind = 'pipeline' WHERE id IN (?, ?)", pipeline)
    board = leaderboard(project)
    kinds = dict(zip(board.table["id"], board.table["kind"]))
    assert kinds == {adhoc: "scored file", pipeline[0]: "pipeline run", pipeline[1]: "pipeline run"}
    assert board.best == {"exact_match": pipeline[0]}  # 0.5, not the scored file's 1.0
    assert "never take the best mark" in home.leaderboard_notes(board, {})
    runs = board.runs
    assert home.board_view(runs) == "Pipeline runs"
    assert [r.id for r in home.board_runs(runs, "Scored files")] == [adhoc]
    assert {r.id for r in home.board_runs(runs, "Pipeline runs")} == set(pipeline)
    assert home.board_view([r for r in runs if r.id == adhoc]) == "Scored files"
    assert leaderboard(project, [r for r in runs if r.kind == "import"]).best == {}  # one run: nothing to beat
