"""AppTest of rubrics and rater agreement on the pages: a rubric metric defined on the Run page,
and each metric's agreement with the raters beside its card and in the leaderboard header."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.test_app import APP, build_project


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return build_project("r", runs=False)["project"]


def run_page(project: str) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.session_state["project"] = project
    at.run()
    return at.switch_page("pages/run.py").run()


def test_a_rubric_defined_on_the_run_page_becomes_a_metric(proj):
    at = run_page("r")
    assert not at.exception
    at.text_area(key="rubric_text").set_value('name = "tone"\ndescription = "x"\ncriteria = "y"').run()
    at.button(key="rubric_save").click().run()
    assert any("[anchors] must describe each score" in e.value.replace("\\", "") for e in at.error)
    from rageval.views.run import RUBRIC_EXAMPLE

    at.text_area(key="rubric_text").set_value(RUBRIC_EXAMPLE).run()
    at.button(key="rubric_save").click().run()
    assert not at.exception and not at.error
    assert any("rubric:politeness" in s.value.replace("\\", "") for s in at.success)
    assert "rubric:politeness" in at.multiselect(key="run_metrics").options
    at.multiselect(key="run_metrics").set_value(["token_f1", "rubric:politeness"])
    at.selectbox(key="run_judge").set_value("openai").run()
    estimate = [c.value.replace("\\", "") for c in at.caption if c.value.startswith("Estimate")]
    assert estimate and estimate[0].startswith("Estimate: at most 3 model calls"), estimate  # one per question


def test_agreement_with_raters_beside_each_metric(tmp_path, monkeypatch):
    from rageval import human
    from rageval.human.trust import metric_agreement
    from tests.human_fixtures import make_runs

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    project, _ = make_runs("ag", n=30, runs=("r0", "r1"))
    assert metric_agreement(project) == {}  # no stored analysis: nothing shown
    human.correlate_runs(project, ["r0"], group_by="domain", n_boot=0)
    grouped_only = metric_agreement(project)
    assert grouped_only == {}  # a grouped analysis has no overall group to read
    analysis = human.correlate_runs(project, ["r0", "r1"], n_boot=50)
    got = metric_agreement(project)
    cell = analysis.cell("all", "token_f1", "human")
    assert got["token_f1"].rho == pytest.approx(cell["rho"]) and got["token_f1"].n == cell["n"] == 60
    assert got["token_f1"].analysis == analysis.id and "human" not in got
    assert got["token_f1"].rho > got["noise"].rho  # the fixture's token_f1 follows the raters, noise does not
    assert got["token_f1"].short().startswith("ρ 0.") and "(n 60)" in got["token_f1"].short()
    assert got["token_f1"].words() == f"raters {got['token_f1'].rho:.2f}"  # the page's words; ρ in the tooltip
    assert "Spearman's rho" in got["token_f1"].sentence() and analysis.id in got["token_f1"].sentence()

    at = AppTest.from_file(str(APP), default_timeout=90)
    at.session_state["project"] = "ag"
    at.run()
    assert not at.exception
    configs = [json.loads(d.proto.columns) for d in at.dataframe if d.proto.columns]
    labels = [c.get("label") for config in configs for c in config.values() if isinstance(c, dict)]
    assert f"Token F1 ↑ · {got['token_f1'].words()}" in labels, labels  # the readable name; the id is in the tooltip
    at.switch_page("pages/answers.py").run()
    assert not at.exception
    captions = "\n".join(c.value for c in at.caption)
    assert f"agrees with {got['token_f1'].words()}" in captions, "no agreement under the metric card"


def test_a_rubric_defined_in_the_app_scores_a_judged_run_against_the_test_server(tmp_path, monkeypatch, llm_env):
    """Defined on the Run page, started from it, judged by the project's scripted LLM server."""
    import time

    from rageval.project import open_project
    from rageval.store import runs as run_store
    from rageval.views.run import RUBRIC_EXAMPLE
    from devtools.judge_responder import respond

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    build_project("j", runs=False)
    llm_env.script(responder=respond)
    at = run_page("j")
    at.text_area(key="rubric_text").set_value(RUBRIC_EXAMPLE).run()
    at.button(key="rubric_save").click().run()
    at.multiselect(key="run_metrics").set_value(["token_f1", "rubric:politeness"])
    at.selectbox(key="run_judge").set_value("openai").run()
    at.button(key="run_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    run_id = at.session_state["run_watch"][-1]
    db = open_project("j").db_path
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and run_store.get_run(db, run_id).status not in ("finished", "failed"):
        time.sleep(0.2)
    assert run_store.get_run(db, run_id).status == "finished"
    rubric = [s for s in run_store.scores(db, run_id) if s["metric"] == "rubric:politeness"]
    assert rubric and all(s["status"] == "ok" and 0.0 <= s["value"] <= 1.0 for s in rubric)
    assert llm_env.count("/v1/chat/completions") >= len(rubric)  # judged by the server, one call per answer
