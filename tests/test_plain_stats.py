"""Statistics in plain words and regressions per question."""
import numpy as np
import pytest

from rageval import human
from rageval.human.plain import min_pairs_for, na, paired_sentence, plain_reason
from rageval.views.regressions import answer_link, regression_text, regressions
from rageval.store import runs as rstore
from tests.human_fixtures import make_runs

BASE = dict(n=17, nonzero=15)


@pytest.mark.parametrize("kw, expected", [
    # neither test finds a difference
    (dict(diff=-0.12, ci_low=-0.38, ci_high=0.12, p=0.57),
     "Run B scores 0.12 lower than run A on faithfulness (95% CI -0.38 to +0.12, Wilcoxon p = 0.57, "
     "17 paired answers): not a reliable difference."),
    # both agree
    (dict(diff=0.2, ci_low=0.1, ci_high=0.3, p=0.004),
     "Run B scores 0.20 higher than run A on faithfulness (95% CI +0.10 to +0.30, Wilcoxon p = 0.004, "
     "17 paired answers): a reliable difference, run B is better."),
])
def test_sentence_table(kw, expected):
    assert paired_sentence("A", "B", "faithfulness", **kw, **BASE) == expected


def test_identical_runs_say_so():
    s = paired_sentence("A", "B", "token_f1", diff=0.0, ci_low=0.0, ci_high=0.0, p=None, n=10, nonzero=0)
    assert "identical scores" in s and "all 10 paired answers" in s and "n/a" not in s and "+0" not in s


@pytest.mark.parametrize("p, lo, hi, which", [
    (0.17, 0.02, 0.3, "the CI of the mean excludes 0 but the test finds no shift"),
    (0.01, -0.05, 0.3, "the test finds a shift but the CI of the mean includes 0"),
])
def test_disagreement_is_explained(p, lo, hi, which):
    s = paired_sentence("A", "B", "m", diff=0.1, ci_low=lo, ci_high=hi, p=p, **BASE)
    assert "uncertain" in s and which in s and "median" in s and "mean difference" in s


def test_lower_is_better_names_the_run_ahead():
    s = paired_sentence("A", "B", "contradicted_share", diff=-0.2, ci_low=-0.3, ci_high=-0.1, p=0.001,
                        higher_is_better=False, **BASE)
    assert "0.20 lower than run A" in s and "paired answers; lower is better)" in s and "run B is better" in s


def test_too_few_changed_answers_is_a_reason_not_na():
    assert min_pairs_for(0.05) == 6  # 2 / 2**5 = 0.0625 >= 0.05, 2 / 2**6 < 0.05
    s = paired_sentence("A", "B", "m", diff=0.3, ci_low=0.1, ci_high=0.5, p=0.0625, n=10, nonzero=5)
    assert "only 5 of the 10 answers changed" in s and "can never reach p < 0.05" in s


def test_reasons_in_words():
    assert "same value on every answer" in na("constant_input")
    assert "fewer than 3" in plain_reason("too_few_pairs")
    assert plain_reason("some_new_code") == "some new code" and na(None) == "n/a"


def test_compare_identical_runs_and_names(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path))
    project, _ = make_runs("same", n=12, runs=("r0", "r1"))
    # r1 := a copy of r0's token_f1 values
    values = {s["item_id"]: s["value"] for s in rstore.scores(project.db_path, "r0") if s["metric"] == "token_f1"}
    for item in rstore.answers(project.db_path, "r1"):
        rstore.save_item(project.db_path, "r1", item,
                         [{"metric": "token_f1", "signature": "token_f1|v1", "value": values[item["item_id"]],
                           "status": "ok", "reason": None}], [])
    c = human.compare_runs(project, ["r0", "r1"], "token_f1")
    assert "identical scores on all 12 paired answers on token_f1" in c.verdict
    assert not c.reliable and c.changed == 0 and "r0" not in c.verdict  # readable names, not ids
    assert c.as_dict()["difference"]["of"] == "B - A"


def test_regressions_sorted_with_links(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path))
    project, _ = make_runs("reg", n=20, runs=("r0", "r2"))
    r = regressions(project, "r0", "r2", "token_f1")
    a = {s["item_id"]: s["value"] for s in rstore.scores(project.db_path, "r0") if s["metric"] == "token_f1"}
    b = {s["item_id"]: s["value"] for s in rstore.scores(project.db_path, "r2") if s["metric"] == "token_f1"}
    changes = {i: b[i] - a[i] for i in a}
    assert len(r.worse) == sum(v < 0 for v in changes.values()) and len(r.better) == sum(
        v > 0 for v in changes.values()
    )
    assert list(r.worse["change"]) == sorted(r.worse["change"])  # largest drop first
    assert list(r.better["change"]) == sorted(r.better["change"], reverse=True)
    first = r.worse.iloc[0]
    assert first["change"] == pytest.approx(min(changes.values()))
    assert first["question"].startswith("Question number")
    assert first["link"] == answer_link(project.slug, "r0", "r2", first["item_id"])
    assert "run_b=r2" in first["link"] and "question=" in first["link"]
    text = regression_text(r, limit=2)
    assert "change = B - A" in text and "worse (" in text and "first 2" in text
    assert r.as_dict()["worse"][0]["item_id"] == first["item_id"]


def test_regressions_lower_is_better_and_lost(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path))
    project, _ = make_runs("reg2", n=6, runs=("r0", "r1"))
    claim = {"signature": "faithfulness|v1", "ordinal": 0, "text": "c", "verdict": "CONTRADICTED", "judge": "h"}
    for run, vals in (("r0", [0.0, 0.5, 0.5, 0.2, 0.1, 0.3]), ("r1", [0.4, 0.5, 0.1, None, 0.1, 0.3])):
        for item in rstore.answers(project.db_path, run):
            v = vals[item["ordinal"]]
            # q04 keeps its score in r1 but gains a contradicted claim: a verdict that got worse
            claims = [claim] if run == "r1" and item["item_id"] == "q04" else []
            rstore.save_item(project.db_path, run, item, [{
                "metric": "contradicted_share", "signature": "cs|v1", "value": v,
                "status": "ok" if v is not None else "unscored", "reason": None if v is not None else "no_claims"}],
                claims)
    r = regressions(project, "r0", "r1", "contradicted_share")
    assert not r.higher_is_better and r.lost == 1 and r.paired == 5 and r.unchanged == 2
    assert list(r.worse["item_id"]) == ["q00", "q04"] and list(r.better["item_id"]) == ["q02"]
    assert list(r.worse["contradicted_b"]) == [0, 1]
    assert r.worse.iloc[0]["gain"] == pytest.approx(-0.4) and np.isclose(r.better.iloc[0]["change"], -0.4)


def test_html_report_can_list_regressions(tmp_path, monkeypatch):
    from rageval.cli import main
    from rageval.errors import ConfigError
    from rageval.report.html import run_report_html

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path))
    project, _ = make_runs("rep", n=12, runs=("r0", "r2"))
    r = regressions(project, "r0", "r2", "token_f1")
    page = run_report_html(project, "r2", regressions=r, limit=3)
    assert "Per question against" in page and f"{len(r.worse)} worse" in page and "<h3>Worse" in page
    assert "Per question against" not in run_report_html(project, "r2")
    with pytest.raises(ConfigError):
        run_report_html(project, "r0", regressions=r)  # the list is about r2, not r0
    out = tmp_path / "r.html"
    assert main(["report", "--project", "rep", "--run", "r2", "--baseline", "r0", "--metric", "token_f1",
                 "--out", str(out)]) == 0
    assert "Per question against" in out.read_text()
    assert main(["report", "--project", "rep", "--run", "r2", "--baseline", "r0", "--out", str(out)]) == 0
    assert "on token_f1" in out.read_text()  # the first main metric both runs scored
    assert main(["report", "--project", "rep", "--run", "r2", "--baseline", "nope", "--out", str(out)]) == 2
