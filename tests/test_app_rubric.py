"""AppTest of issue 26's library parts on the pages: a rubric metric defined on the Run page,
and each metric's agreement with the raters beside its card and in the leaderboard header."""
from __future__ import annotations

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
    from rageval.app_queries import RUBRIC_EXAMPLE

    at.text_area(key="rubric_text").set_value(RUBRIC_EXAMPLE).run()
    at.button(key="rubric_save").click().run()
    assert not at.exception and not at.error
    assert any("rubric:politeness" in s.value.replace("\\", "") for s in at.success)
    assert "rubric:politeness" in at.multiselect(key="run_metrics").options
    at.multiselect(key="run_metrics").set_value(["token_f1", "rubric:politeness"])
    at.selectbox(key="run_judge").set_value("openai").run()
    estimate = [c.value.replace("\\", "") for c in at.caption if c.value.startswith("Estimate")]
    assert estimate and estimate[0].startswith("Estimate: at most 3 model calls"), estimate  # one per question
