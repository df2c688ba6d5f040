"""The human-evaluation CLI: ratings import/export, correlate, compare, agreement (exit codes, --json)."""
from __future__ import annotations

import json

import pytest
from scipy import stats as ss

from rageval import human
from rageval.cli import main
from tests.human_fixtures import make_runs


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_PROJECT", "h")
    project, _ = make_runs("h", n=30, runs=("r0", "r1", "r2"))
    return project


def _json(capsys):
    return json.loads(capsys.readouterr().out)


def test_ratings_import_exit_codes(proj, tmp_path, capsys):
    good = tmp_path / "good.csv"
    good.write_text("item_id,annotator,rating\nq01,zed,4\nq02,zed,5\n")
    assert main(["ratings", "import", str(good), "--run", "r0", "--json"]) == 0
    assert _json(capsys) == {"imported": 2, "errors": []}
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("item_id,annotator,rating\nq01,zed,4\nq02,zed,2.5\nq77,zed,3\n")
    assert main(["ratings", "import", str(mixed), "--run", "r0", "--json"]) == 1
    out = _json(capsys)
    assert out["imported"] == 1 and [e["row"] for e in out["errors"]] == [2, 3]
    assert main(["ratings", "import", str(mixed), "--run", "r0"]) == 1
    text = capsys.readouterr().out
    assert "ERROR mixed.csv, row 2 (line 3):" in text and "1 rating(s) imported, 2 row(s) rejected" in text
    bad = tmp_path / "bad.csv"
    bad.write_text("item_id,who\nq01,zed\n")
    assert main(["ratings", "import", str(bad), "--run", "r0"]) == 1
    err = capsys.readouterr().err
    assert err.count("missing column") == 1 and "columns found: item_id, who" in err and "Traceback" not in err
    assert main(["ratings", "import", str(tmp_path / "none.csv"), "--run", "r0"]) == 2
    assert main(["ratings", "import", str(good), "--run", "nope"]) == 2


def test_ratings_export(proj, tmp_path, capsys):
    assert main(["ratings", "export", "--run", "r0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "run,item_id,question,annotator,rating,created" and len(lines) == 1 + 90
    out = tmp_path / "r.jsonl"
    assert main(["ratings", "export", "--run", "r0,r1", "--format", "jsonl", "--out", str(out), "--json"]) == 0
    assert _json(capsys)["rows"] == 180 and len(out.read_text().splitlines()) == 180


def test_correlate_stores_prints_lists_and_reopens(proj, capsys):
    assert main(["correlate", "--runs", "r0,r1", "--group-by", "model", "--n-boot", "100", "--json"]) == 0
    out = _json(capsys)
    groups = {c["group_value"] for c in out["cells"]}
    assert groups == {"extractive", "openai:model1"}
    frame = human.build_frame(proj, ["r0"])
    cell = next(c for c in out["cells"] if c["group_value"] == "extractive" and c["metric_a"] == "token_f1"
                and c["metric_b"] == "human")
    assert cell["rho"] == pytest.approx(ss.spearmanr(frame.token_f1, frame.human).statistic)
    assert main(["correlate", "--runs", "r0", "--method", "kendall", "--metrics", "token_f1,bleu",
                 "--n-boot", "100"]) == 0
    text = capsys.readouterr().out
    assert "correlation with the human score" in text and "human ceiling" in text and "noise" not in text
    assert main(["correlate", "--list", "--json"]) == 0
    listed = _json(capsys)["analyses"]
    assert len(listed) == 2 and listed[1]["id"] == out["id"]
    assert main(["correlate", "--open", out["id"], "--json"]) == 0
    def key(c):
        return c["group_value"], c["metric_a"], c["metric_b"]

    assert sorted(_json(capsys)["cells"], key=key) == sorted(out["cells"], key=key)
    assert main(["correlate", "--open", "corr-nope"]) == 2
    assert main(["correlate"]) == 2
    assert main(["correlate", "--runs", "zzz"]) == 2
    with pytest.raises(SystemExit) as exc:
        main(["correlate", "--runs", "r0", "--method", "cosine"])
    assert exc.value.code == 2


def test_compare_two_and_three_runs(proj, capsys):
    assert main(["compare", "--runs", "r0,r2", "--metric", "token_f1", "--json"]) == 0
    out = _json(capsys)
    table = human.score_table(proj, ["r0", "r2"], "token_f1")
    assert out["wilcoxon"]["p"] == pytest.approx(ss.wilcoxon(table["r0"], table["r2"]).pvalue)
    assert out["n"] == 30 and "30 paired answers" in out["verdict"]
    assert out["difference"]["of"] == "B - A"
    assert out["per_question"]["change"] == "B - A" and out["per_question"]["paired"] == 30
    assert main(["compare", "--runs", "r0,r2", "--metric", "token_f1", "--limit", "2"]) == 0
    text = capsys.readouterr().out
    assert "worse (" in text and "better (" in text and "Question number" in text
    assert main(["compare", "--runs", "r0,r1,r2", "--metric", "human"]) == 0
    text = capsys.readouterr().out
    assert "Friedman" in text and "Conover" in text and "first-rank share" in text
    assert main(["compare", "--runs", "r0,r1", "--metric", "nope"]) == 2
    assert main(["compare", "--runs", "r0", "--metric", "human"]) == 2


def test_agreement(proj, capsys):
    assert main(["agreement", "--runs", "r0", "--by", "domain", "--json"]) == 0
    out = _json(capsys)
    assert set(out["groups"]) == {"hr", "science"} and out["overall"]["annotators"] == 3
    assert main(["agreement", "--runs", "r0"]) == 0
    assert "Krippendorff's alpha (ordinal)" in capsys.readouterr().out
