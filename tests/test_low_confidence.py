"""Low-confidence verdicts are marked in every view: the Answers page (claim list, answer
table, faithfulness card), the customer HTML report (a low-confidence CONTRADICTED never reads as a
firm contradiction) and ``score --details``; and the flag is stored with each claim."""
from __future__ import annotations


import pytest
from streamlit.testing.v1 import AppTest

from rageval.project import open_project
from rageval.report.html import run_report_html
from rageval.views.answer_table import answer_table
from rageval.store import runs as run_store
from tests.test_app import APP, no_failure

CONTEXT = "Green tea originated in China. Brew it at 70 to 80 degrees Celsius."
SIG = "faithfulness|judge:heuristic|v1"


def stored_run(project) -> str:
    """An import run with one answer: a low-confidence CONTRADICTED claim and a firm SUPPORTED one."""
    run_id = "20000101-000000-lowconf"
    run_store.create_run(project.db_path, run_id, kind="import", corpus=None, qa_set=None,
                         config={"source": "a.jsonl", "metrics": ["faithfulness"]}, config_hash="t", n_items=1)
    claims = [
        {"signature": SIG, "ordinal": 0, "text": "Green tea originated in Japan.", "verdict": "CONTRADICTED",
         "evidence": "Green tea originated in China.", "evidence_chunk": "ctx", "span_start": 0, "span_end": 30,
         "reason": "the claim names someone or something the evidence does not", "judge": "heuristic",
         "details": {"confidence": 0.55, "low_confidence": True, "evidence_role": "refutes"}},
        {"signature": SIG, "ordinal": 1, "text": "Brew it at 70 to 80 degrees Celsius.", "verdict": "SUPPORTED",
         "evidence": "Brew it at 70 to 80 degrees Celsius.", "evidence_chunk": "ctx", "span_start": 31,
         "span_end": 67, "reason": "found verbatim in context 1", "judge": "heuristic",
         "details": {"confidence": 1.0, "low_confidence": False, "evidence_role": "support"}},
    ]
    scores = [{"metric": "faithfulness", "signature": SIG, "value": 0.5, "status": "ok", "reason": None,
               "details": {"diagnosis": {}}}]
    run_store.save_item(project.db_path, run_id, {
        "item_id": "c1", "ordinal": 0, "question": "Where does green tea come from?",
        "answer": "Green tea originated in Japan. Brew it at 70 to 80 degrees Celsius.", "references": [],
        "contexts": [CONTEXT], "retrieved": [("ctx", 0.8)], "status": "ok", "reason": None,
        "details": {"imported": True},
    }, scores, claims)
    run_store.set_run_status(project.db_path, run_id, "finished")
    return run_id


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    p = open_project("lc")
    return p, stored_run(p)


def test_answers_page_marks_low_confidence_everywhere(project):
    p, run_id = project
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.session_state["project"] = "lc"
    at.run()
    at.switch_page("pages/answers.py").run()
    at.selectbox(key="ans_run").set_value(run_id).run()
    no_failure(at)
    claims = next(h.proto.body for h in at.get("html") if "<th" in h.proto.body and "confidence" in h.proto.body)
    assert "CONTRADICTED?" in claims and "0.55 · low confidence" in claims
    assert "border:1px dashed" in claims and ">SUPPORTED</span>" in claims and "1.00 · low" not in claims
    assert any("1 of 2 claims low confidence" in c.value for c in at.caption)  # the faithfulness card
    answer = next(
        h.proto.body for h in at.get("html") if "originated in Japan" in h.proto.body and "<th" not in h.proto.body
    )
    assert 'title="CONTRADICTED? (low confidence)" style="background:#f4f5f7;border-bottom:2px dashed' in answer
    assert 'title="SUPPORTED" style="background:#dcf5e3' in answer
    table = answer_table(p, run_id)
    assert table.loc[0, "low_confidence"] == 1 and table.loc[0, "contradicted"] == 1


def test_report_never_shows_a_low_confidence_contradiction_as_firm(project):
    p, run_id = project
    page = run_report_html(p, run_id)
    assert "possibly contradicted (low confidence)" in page and "border-style:dashed" in page
    assert ">CONTRADICTED</span>" not in page and ">SUPPORTED</span>" in page
    assert "1 of 2 claims low confidence" in page and "<td class='num'>0.55</td>" in page
