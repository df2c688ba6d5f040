"""Ratings import/export, consensus, agreement, ceiling, stored analyses and run comparisons."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import krippendorff
from scipy import stats as ss

from rageval import human, stats
from rageval.errors import ConfigError, InputError
from rageval.store import db
from rageval.store import human as hstore
from tests.human_fixtures import make_runs


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path))
    project, truth = make_runs()
    return project


def test_migration_003_keeps_old_correlation_rows(tmp_path):
    path = tmp_path / "old.duckdb"
    import duckdb

    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL,"
                " applied TIMESTAMP DEFAULT current_timestamp)")
    for version, name, sql in db.migrations():
        if version < 3:
            con.execute(sql)
            con.execute("INSERT INTO schema_version (version, name) VALUES (?, ?)", [version, name])
    con.execute("INSERT INTO correlations (id, runs, grouping, method, metric_a, metric_b, rho)"
                " VALUES ('old', '[\"r\"]', 'none', 'spearman', 'a', 'b', 0.5)")
    con.close()
    assert db.schema_version(path) >= 3
    cells = hstore.correlation_cells(path, "old")
    assert cells[0]["rho"] == 0.5 and cells[0]["group_value"] == "all"


@pytest.mark.parametrize("value,ok", [("4", 4), (4, 4), ("4.0", 4), (5.0, 5), ("3.5", None), (0, None), ("6", None),
                                      ("good", None), ("", None), (None, None), (True, None), ("nan", None)])
def test_parse_rating(value, ok):
    if ok is None:
        with pytest.raises(ValueError):
            human.parse_rating(value)
    else:
        assert human.parse_rating(value) == ok


def test_ratings_import_reports_each_bad_row_and_keeps_the_good_ones(proj):
    csv_text = ("item_id,annotator,rating\n"
                "q01,dee,4\n"          # 1 ok
                "q99,dee,3\n"          # 2 unknown item
                "q02,dee,7\n"          # 3 out of range
                "q03,dee,3.5\n"        # 4 half point
                "q04,dee,great\n"      # 5 not a number
                "q01,dee,2\n"          # 6 duplicate
                "q05,,3\n"             # 7 no annotator
                "q06,dee,5.0\n")       # 8 ok
    res = human.import_ratings(proj, "r.csv", csv_text.encode(), run="runA")
    assert res.imported == 2
    reasons = {e.row: e.reason for e in res.errors}
    assert set(reasons) == {2, 3, 4, 5, 6, 7}
    assert "unknown item" in reasons[2] and "out of range" in reasons[3] and "half points" in reasons[4]
    assert "not a number" in reasons[5] and "duplicate" in reasons[6] and "row 1" in reasons[6]
    assert all(str(e).startswith("r.csv, row ") for e in res.errors)
    stored = {(r["item_id"], r["rating"]) for r in hstore.ratings(proj.db_path, ["runA"]) if r["annotator"] == "dee"}
    assert stored == {("q01", 4), ("q06", 5)}


def test_ratings_import_by_question_text_run_column_and_jsonl(proj):
    rows = [{"question": "  question NUMBER 2? ", "annotator": "eve", "rating": 3, "run": "runB"},
            {"question": "Not a question here", "annotator": "eve", "rating": 3, "run": "runB"},
            {"item_id": "q02", "annotator": "eve", "rating": 2, "run": "nope"}]
    data = "\n".join(json.dumps(r) for r in rows).encode()
    res = human.import_ratings(proj, "r.jsonl", data)
    assert res.rows == [("runB", "q02", "eve", 3)]
    assert [e.row for e in res.errors] == [2, 3] and "unknown run" in res.errors[1].reason
    res = human.import_ratings(proj, "r.json", json.dumps(rows[:1]).encode())
    assert res.imported == 1


def test_missing_column_is_reported_once_with_the_columns_found(proj):
    with pytest.raises(InputError) as exc:
        human.import_ratings(proj, "r.csv", b"item_id,who,score_x\nq01,dee,4\nq02,dee,3\n", run="runA")
    msg = str(exc.value)
    assert msg.count("missing column") == 1 and "annotator" in msg and "rating" in msg
    assert "columns found: item_id, score_x, who" in msg and msg.startswith("r.csv: ")
    with pytest.raises(ConfigError):
        human.import_ratings(proj, "r.csv", b"item_id,annotator,rating\n", run="nope")


def test_export_round_trips(proj, tmp_path):
    text = human.export_ratings(proj, ["runA"])
    df = pd.read_csv(pd.io.common.StringIO(text))
    assert len(df) == 30 * 3 and set(df.columns) >= {"run", "item_id", "annotator", "rating", "question"}
    other, _ = make_runs("h2", n=30)
    res = human.import_ratings(other, "e.csv", text.encode())
    assert res.errors == [] and res.imported == 90
    assert human.export_ratings(other, ["runA"], "jsonl").count("\n") == 90


def test_consensus_methods_flags_and_agreed_override(proj):
    assert human.combine([1, 2, 5]) == 2 and human.combine([1, 2, 5], "mean") == pytest.approx(8 / 3)
    assert human.combine([2, 2, 5], "majority") == 2 and human.combine([2, 4], "majority") == 3
    human.rate(proj, "runA", "q00", "ann", 1)
    human.rate(proj, "runA", "q00", "bob", 5)
    c = human.consensus(proj, ["runA"]).set_index("item_id")
    assert bool(c.loc["q00", "flagged"]) and c.loc["q00", "spread"] >= 4
    human.set_agreed(proj, "runA", "q00", 2, "discussed")
    c = human.consensus(proj, ["runA"]).set_index("item_id")
    assert c.loc["q00", "score"] == 2 and c.loc["q00", "source"] == "agreed"
    human.set_agreed(proj, "runA", "q00", None)
    assert human.consensus(proj, ["runA"]).set_index("item_id").loc["q00", "source"] == "median"
    with pytest.raises(ConfigError):
        human.set_agreed(proj, "runA", "q00", 6)


def test_agreement_overall_and_per_domain_matches_krippendorff(proj):
    out = human.agreement(proj, ["runA", "runB"], by="domain")
    long = human.ratings_frame(proj, ["runA", "runB"])
    w = long.assign(k=long.run_id + "/" + long.item_id).pivot(index="annotator", columns="k", values="rating")
    ref = krippendorff.alpha(reliability_data=w.to_numpy(dtype=float), level_of_measurement="ordinal")
    assert out["overall"]["alpha"] == pytest.approx(ref)
    assert set(out["groups"]) == {"hr", "science"}
    assert out["overall"]["annotators"] == 3 and out["overall"]["answers"] == 60
    assert out["overall"]["kappa"]["ann"]["bob"] == pytest.approx(
        stats.cohen_kappa(w.loc["ann"], w.loc["bob"], labels=range(1, 6)))


def test_human_ceiling_is_leave_one_annotator_out(proj):
    long = human.ratings_frame(proj, ["runA"])
    ceiling = human.human_ceiling(long)
    w = long.pivot(index="annotator", columns="item_id", values="rating").astype(float)
    rhos, ns = [], []
    for a in w.index:
        others = w.drop(index=a).median(axis=0)
        rhos.append(ss.spearmanr(w.loc[a], others).statistic)
        ns.append(w.shape[1])
    assert ceiling["rho"] == pytest.approx(np.average(rhos, weights=ns))
    assert set(ceiling["annotators"]) == {"ann", "bob", "cy"}


def test_correlate_runs_stores_and_reopens_grouped_analyses(proj):
    a = human.correlate_runs(proj, ["runA", "runB"], group_by="domain", n_boot=200)
    assert a.groups == ["hr", "science"]
    assert a.metrics == ["bleu", "noise", "token_f1", "human"]
    frame = human.build_frame(proj, ["runA", "runB"])
    part = frame[frame.domain == "science"]
    ok = part["bleu"].notna()
    cell = a.cell("science", "bleu", "human")
    assert cell["n"] == int(ok.sum()) == 28
    assert cell["rho"] == pytest.approx(ss.spearmanr(part.bleu[ok], part.human[ok]).statistic)
    assert cell["ci_low"] <= cell["rho"] <= cell["ci_high"]
    table = a.table()
    assert list(table.index)[-1] == human.CEILING and table.loc["token_f1", "hr"] > table.loc["noise", "hr"]
    again = human.open_analysis(proj, a.id)
    assert again.grouping == "domain" and again.runs == ("runA", "runB")
    pd.testing.assert_frame_equal(again.table(), table)
    pd.testing.assert_frame_equal(again.matrix("science"), a.matrix("science"))
    listed = human.list_analyses(proj)
    assert listed[0]["id"] == a.id and listed[0]["groups"] == 2 and listed[0]["settings"]["n_boot"] == 200
    b = human.correlate_runs(proj, ["runA"], method="kendall", filters={"metrics": ["token_f1"]}, n_boot=0)
    assert b.metrics == ["token_f1", "human"] and b.filters == {"metrics": ["token_f1"]}
    assert b.cell("all", "token_f1", "human")["rho"] == pytest.approx(
        ss.kendalltau(frame[frame.run_id == "runA"].token_f1, frame[frame.run_id == "runA"].human).statistic)
    assert len(human.list_analyses(proj)) == 2
    with pytest.raises(ConfigError):
        human.correlate_runs(proj, ["nope"])
    with pytest.raises(ConfigError):
        human.open_analysis(proj, "corr-nope")


def test_metric_vs_metric_difference(proj):
    d = human.metric_vs_metric(proj, ["runA", "runB"], "token_f1", "noise", n_boot=300)
    assert d["diff"] > 0 and d["ci_low"] > 0 and d["p"] < 0.05


def test_compare_two_and_three_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path))
    project, _ = make_runs("c3", n=40, runs=("r0", "r1", "r2"))
    two = human.compare_runs(project, ["r0", "r2"], "token_f1")
    table = human.score_table(project, ["r0", "r2"], "token_f1")
    ref = ss.wilcoxon(table["r0"], table["r2"])
    assert two.wilcoxon.p == pytest.approx(ref.pvalue) and two.n == 40
    assert two.difference.diff == pytest.approx((table["r2"] - table["r0"]).mean())  # B - A
    assert two.verdict.startswith(f"Run B “{two.name('r2')}” scores") and "run A “" in two.verdict
    assert "40 paired answers" in two.verdict and two.name("r2") != "r2"
    three = human.compare_runs(project, ["r0", "r1", "r2"], "human")
    t3 = human.score_table(project, ["r0", "r1", "r2"], "human")
    assert three.friedman.statistic == pytest.approx(ss.friedmanchisquare(*t3.to_numpy().T).statistic)
    assert list(three.conover.index) == ["r0", "r1", "r2"]
    assert sum(three.first_rank_share.values()) == pytest.approx(1.0)
    assert "Friedman" in three.verdict
    json.dumps(three.as_dict())
    with pytest.raises(ConfigError):
        human.compare_runs(project, ["r0"], "token_f1")
    with pytest.raises(ConfigError):
        human.compare_runs(project, ["r0", "r1"], "nope")


def test_compare_offers_only_metrics_both_runs_scored_on_one_item():
    frame = pd.DataFrame({
        "run_id": ["a", "a", "b", "b"], "item_id": ["q1", "q2", "q1", "q2"],
        "question": ["", "", "", ""], "dataset": ["s"] * 4, "domain": [None] * 4, "model": [None] * 4,
        "token_f1": [0.1, 0.2, 0.3, 0.4],                      # both runs, both items
        "faithfulness": [0.5, None, None, 0.7],                # both runs, but never the same item
        "answer_correctness_offline": [0.9, 0.8, None, None],  # run a only
        "human": [3.0, None, 4.0, None],
    })
    assert human.metric_columns(frame) == ["token_f1", "faithfulness", "answer_correctness_offline", "human"]
    assert human.shared_metric_columns(frame) == ["token_f1", "human"]
