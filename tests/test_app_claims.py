"""AppTest of people's claim labels: the Human review claim queue and the Answers page's buttons."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rageval.store import claim_labels as cstore
from tests.claim_fixtures import claims_project

APP = Path(__file__).resolve().parents[1] / "app.py"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    return claims_project("cl")[0]


def page(path: str) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.session_state["project"] = "cl"
    at.run()
    return at.switch_page(path).run()


def no_failure(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not [e.value for e in at.error], [e.value for e in at.error]


def _captions(at: AppTest) -> str:
    return "\n".join(str(e.value) for e in at.caption).replace("\\", "")


def test_the_claim_queue_labels_one_claim_per_click_unverified_first(project):
    at = page("pages/human_review.py")
    at.selectbox(key="hr_run").set_value("runA").run()
    at.text_input(key="hr_annotator").set_value("dana").run()
    at.segmented_control(key="hr_mode").set_value("Claims").run()
    no_failure(at)
    assert "36 claim(s) left for dana" in _captions(at) and "UNVERIFIED" in _captions(at)
    for label in ("SUPPORTED", "NOT_MENTIONED", "SKIP"):
        at.button(key=f"hr_claim_{label}").click().run()
        no_failure(at)
    assert "33 claim(s) left for dana" in _captions(at)
    stored = cstore.labels(project.db_path, ["runA"])
    assert sorted(r["label"] for r in stored) == ["NOT_MENTIONED", "SKIP", "SUPPORTED"]
    assert all(r["rater"] == "dana" for r in stored)
    assert {r["claim"] for r in stored} <= {f"Claim {k} of answer {i}." for i in range(12) for k in (1, 2)}


def test_the_answers_page_labels_a_claim_with_one_click(project):
    at = page("pages/answers.py")
    at.selectbox(key="ans_run").set_value("runA").run()
    no_failure(at)
    at.text_input(key="ans_rater").set_value("eve").run()
    no_failure(at)
    item = at.selectbox(key="ans_item").value
    at.button(key=f"ans_lab_{item}_1_CONTRADICTED").click().run()
    no_failure(at)
    (row,) = cstore.labels(project.db_path, ["runA"])
    assert (row["item_id"], row["rater"], row["label"], row["ordinal"]) == (item, "eve", "CONTRADICTED", 1)
    assert row["evidence"] and row["span_start"] is not None  # the proposed evidence sentence is kept


def _label_some(project):
    from rageval.human.claim_labels import label_claim

    for i in range(6):
        for k, lab in enumerate(("SUPPORTED", "CONTRADICTED", "NOT_MENTIONED")):
            label_claim(project, "runA", f"q{i:02d}", f"Claim {k} of answer {i}.", "ann", lab, ordinal=k)


def test_correlations_show_every_verifier_against_people(project):
    _label_some(project)
    at = page("pages/correlations.py")
    no_failure(at)
    text = "\n".join(str(e.value) for e in at.markdown).replace("\\", "")
    assert "1 rater(s) labelled 18 claim(s)" in text
    table = next(d.value for d in at.dataframe if "verifier" in d.value.columns)
    assert len(table) == 2 and set(table["labelled"]) == {18}
    assert any("Confusion matrix" in e.label for e in at.expander)


def test_home_and_compare_show_ppi_estimates_where_labels_exist(project):
    _label_some(project)
    at = page("pages/home.py")
    no_failure(at)
    assert "Prediction-powered estimates" in _captions(at) and "share of claims a person calls SUPPORTED" in _captions(at)
    at = page("pages/compare.py")
    no_failure(at)
    assert "PPI: difference of mean human rating (B - A)" in _captions(at)


def test_the_report_has_the_trust_section(project):
    from rageval.views.answers import export

    assert "How far to trust" not in export(project, "runB", "HTML report")
    _label_some(project)
    html = export(project, "runA", "HTML report")
    assert "How far to trust the verdicts and the numbers" in html and "share of claims a person calls SUPPORTED" in html
