"""``rageval check``, the CI gate: each exit code, thresholds, unscored answers,
regression from a baseline run or file, JUnit XML and Markdown summaries."""
import json
from xml.etree import ElementTree as ET

import numpy as np
import pytest

from rageval import gate
from rageval.cli import main
from rageval.errors import ConfigError
from tests.human_fixtures import make_runs


def scored(path, values, metric="faithfulness", status=None):
    """A file as `rageval score --out` writes it: id, the metric, and <metric>_status when unscored."""
    rows = []
    for i, v in enumerate(values):
        row = {"id": f"q{i}", metric: v}
        if v is None:
            row[f"{metric}_status"] = status or "unscored: no_contexts"
        rows.append(row)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    return tmp_path


def test_exit_0_when_every_threshold_holds(home, capsys):
    f = scored(home / "s.jsonl", [0.9, 0.8, 1.0, 0.85])
    assert main(["check", f, "--fail-under", "faithfulness=0.8"]) == 0
    out = capsys.readouterr().out
    assert "PASS  faithfulness >= 0.8: mean faithfulness 0.888 over 4 scored answers is at least 0.8" in out
    assert "gate passed" in out


def test_exit_1_below_threshold_with_junit_and_markdown(home, capsys):
    f = scored(home / "s.jsonl", [0.5, 0.6, 0.7])
    junit, md = home / "gate.xml", home / "gate.md"
    assert main(["check", f, "--fail-under", "faithfulness=0.8", "--junit-xml", str(junit),
                 "--markdown", str(md), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["passed"] is False and out["checks"][1]["details"]["mean"] == pytest.approx(0.6)
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite.get("tests") == "2" and suite.get("failures") == "1"
    failure = suite.find("testcase[@name='faithfulness >= 0.8']/failure")
    assert failure is not None and "below 0.8" in failure.get("message")
    text = md.read_text()
    assert text.startswith("### rageval check: failed (1 of 2 checks)") and "❌ fail" in text and "✅ pass" in text


@pytest.mark.parametrize("argv, message", [
    (["--fail-under", "faithfulness"], "must be METRIC=NUMBER"),
    (["--fail-under", "faithfulness=high"], "must be METRIC=NUMBER"),
    (["--fail-under", "nope=0.5"], "has no metric 'nope'"),
    ([], "nothing to check"),
    (["--no-regression-from", "missing.jsonl"], "no such file"),
    (["--no-regression-from", "no-such-run", "--fail-under", "faithfulness=0.1"], "does not exist"),
    (["--fail-under", "faithfulness=0.5", "--min-effect", "-1"], "must be >= 0"),
])
def test_exit_2_on_unusable_arguments(home, capsys, argv, message):
    f = scored(home / "s.jsonl", [0.9, 0.8])
    assert main(["check", f, *argv]) == 2
    assert message in capsys.readouterr().err


def test_exit_2_without_scores_or_with_both(home, capsys):
    assert main(["check", "--fail-under", "faithfulness=0.5"]) == 2
    f = scored(home / "s.jsonl", [0.9])
    assert main(["check", f, "--run", "r0", "--fail-under", "faithfulness=0.5"]) == 2
    assert main(["check", str(home / "absent.jsonl"), "--fail-under", "faithfulness=0.5"]) == 2
    (home / "bad.txt").write_text("x")
    assert main(["check", str(home / "bad.txt"), "--fail-under", "faithfulness=0.5"]) == 2
    assert "unsupported table type" in capsys.readouterr().err


def test_unscored_answers_fail_unless_allowed(home, capsys):
    f = scored(home / "s.jsonl", [0.9, None, 1.0])
    assert main(["check", f, "--fail-under", "faithfulness=0.8"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  faithfulness: every answer scored: 1 of 3 answers unscored on faithfulness (no_contexts 1)" in out
    assert main(["check", f, "--fail-under", "faithfulness=0.8", "--allow-unscored"]) == 0
    assert "mean faithfulness 0.950 over 2 scored answers" in capsys.readouterr().out


def test_fail_over_for_lower_is_better(home):
    f = scored(home / "s.jsonl", [0.1, 0.3], metric="contradicted_share")
    assert main(["check", f, "--fail-over", "contradicted_share=0.1"]) == 1
    assert main(["check", f, "--fail-over", "contradicted_share=0.25"]) == 0


def test_regression_from_a_file_needs_size_and_significance(home, capsys):
    rng = np.random.default_rng(0)
    before = rng.uniform(0.6, 1.0, 30)
    base = scored(home / "base.jsonl", list(before))
    worse = scored(home / "worse.jsonl", list(before - 0.1 - rng.uniform(0, 0.02, 30)))
    same = scored(home / "same.jsonl", list(before))
    assert main(["check", worse, "--no-regression-from", base]) == 1
    out = capsys.readouterr().out
    assert "FAIL  faithfulness: no regression from base.jsonl: a drop of 0.1" in out and "reliable difference" in out
    assert main(["check", worse, "--no-regression-from", base, "--min-effect", "0.2"]) == 0  # too small to matter
    assert main(["check", same, "--no-regression-from", base]) == 0
    assert "identical scores" in capsys.readouterr().out


def test_too_few_changed_answers_pass_unless_alpha_is_1(home, capsys):
    base = scored(home / "base.jsonl", [0.9, 0.9, 0.9, 0.9])
    cur = scored(home / "cur.jsonl", [0.5, 0.5, 0.9, 0.9])
    assert main(["check", cur, "--no-regression-from", base]) == 0
    assert "too few changed answers to test it" in capsys.readouterr().out
    assert main(["check", cur, "--no-regression-from", base, "--alpha", "1"]) == 1


def test_stored_runs_and_signatures(home, capsys):
    project, _ = make_runs("g", n=20, runs=("r0", "r1"))
    assert main(["check", "--project", "g", "--run", "r1", "--fail-under", "token_f1=0.1",
                 "--no-regression-from", "r0", "--allow-unscored"]) == 0
    out = capsys.readouterr().out
    assert "token_f1: no regression from run r0" in out and "PASS  token_f1 >= 0.1" in out
    # bleu has one unscored answer per run (the fixture's item 3)
    assert main(["check", "--project", "g", "--run", "r1", "--fail-under", "bleu=0"]) == 1
    cur = gate.from_run(project, "r1")
    base = gate.ScoreSet("run old", gate.from_run(project, "r0").values, signatures={"token_f1": "token_f1|v0"})
    result = gate.run_gate(cur, baseline=base, metrics=["token_f1"])
    assert not result.passed and "not comparable" in result.failed[0].message
    with pytest.raises(ConfigError):
        gate.from_run(project, "nope")


@pytest.mark.parametrize("name", ["scores.parquet", "scores.csv", "scores.json"])
def test_scored_files_in_every_format_score_writes_or_reads(home, name):
    from rageval.report.score_out import write_rows

    rows = [{"id": "a", "faithfulness": 0.9, "token_f1": 0.5},
            {"id": "b", "faithfulness": None, "faithfulness_status": "unscored: no_contexts", "token_f1": 0.7}]
    path = home / name
    if name.endswith(".parquet"):
        write_rows(path, rows, ["faithfulness", "token_f1"], source="answers.jsonl")
    elif name.endswith(".csv"):
        path.write_text("id,faithfulness,faithfulness_status,token_f1\na,0.9,,0.5\nb,,unscored: no_contexts,0.7\n")
    else:
        path.write_text(json.dumps(rows))
    s = gate.from_file(path)
    assert s.metrics == ["faithfulness", "token_f1"] and s.unscored("faithfulness") == 1
    assert dict(s.reasons["faithfulness"]) == {"no_contexts": 1}
    assert main(["check", str(path), "--fail-under", "token_f1=0.6"]) == 0
    assert main(["check", str(path), "--fail-under", "faithfulness=0.8"]) == 1  # one answer unscored


def test_an_unfinished_run_fails_unless_allowed(home, capsys):
    from rageval.store import runs as rstore

    project, _ = make_runs("part", n=10, runs=("r0",))
    rstore.set_run_status(project.db_path, "r0", "interrupted")
    assert main(["check", "--project", "part", "--run", "r0", "--fail-under", "token_f1=0"]) == 1
    assert "FAIL  run finished: run r0 is interrupted with 10 of 10 answers scored" in capsys.readouterr().out
    assert main(["check", "--project", "part", "--run", "r0", "--fail-under", "token_f1=0", "--allow-unscored"]) == 0
    rstore.set_run_status(project.db_path, "r0", "finished")
    assert main(["check", "--project", "part", "--run", "r0", "--fail-under", "token_f1=0"]) == 0
    assert "PASS  run finished: run r0 is finished with all 10 answers" in capsys.readouterr().out


def test_the_regression_check_holds_no_resample_matrix_per_pair(home):
    # 20,000 pairs: the bootstrap's (2000, n) index matrix alone was 160 MB (8 kB a pair, 8.4 GiB at
    # the documented 1,000,000 rows); it is now drawn a block at a time, a few MB whatever n is
    import tracemalloc

    n = 20_000
    rng = np.random.default_rng(5)
    base = rng.random(n)
    now = np.clip(base - 0.02 * (rng.random(n) < 0.5), 0, 1)
    scored(home / "cur.jsonl", now.tolist())
    scored(home / "old.jsonl", base.tolist())
    current, baseline = gate.from_file(home / "cur.jsonl"), gate.from_file(home / "old.jsonl")
    tracemalloc.start()
    try:
        result = gate.run_gate(current, baseline=baseline)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    check = next(c for c in result.checks if "regression" in c.name)
    assert check.details["paired"] == n and check.details["ci_low"] < check.details["diff"] < check.details["ci_high"]
    assert peak < 40e6, f"{peak / 1e6:.0f} MB for {n} pairs"
