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
    return "\n".join(str(e.value) for e in at.caption)


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
