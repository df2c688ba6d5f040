"""The demo shows what offline verdicts are (Answers page and HTML report): a claim copied from a
retrieved chunk SUPPORTED, the others UNVERIFIED with their likely evidence and hints, and one
plain sentence saying that a judge or a person decides the rest, with the command and the Run-page
setting that add a judge."""
from __future__ import annotations

import functools

import pytest
from streamlit.testing.v1 import AppTest

from rageval.config import RunConfig
from rageval.report.summary import OFFLINE_VERDICT_NOTE
from rageval.store import runs as store
from tests.test_app_claims import APP, no_failure


@pytest.fixture(scope="module")
def demo_built(tmp_path_factory):
    """The demo built as the app builds it, once for the module (both tests only read it), its runs
    scored with three of the default metrics instead of all (faithfulness gives the claims;
    answer_correctness_offline picks the report's worst answers, as in the demo;
    tests/test_pipeline.py does the same). The build starts on a copy of the demo corpus's ingest,
    made once per test process (devtools/projects.py): the build's own ingest then finds every
    document stored and every vector in the embedding cache. What is read here is made after the
    ingest; the build from nothing is tests/test_pipeline.py's."""
    from rageval import config as config_module
    from rageval import demo
    from devtools.projects import demo_corpus

    small = ("token_f1", "faithfulness", "answer_correctness_offline")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(demo, "RunConfig", functools.partial(RunConfig, metrics=small))
        mp.setattr(config_module, "DEFAULT_METRICS", small)
        mp.setenv("RAGEVAL_HOME", str(tmp_path_factory.mktemp("demo") / "home"))
        mp.setenv("RAGEVAL_NO_AUTODEMO", "1")
        demo_corpus(demo.DEMO_PROJECT)
        built = demo.load_demo()
        yield demo.open_project(demo.DEMO_PROJECT), built["import_run_id"]


def _claims_table(at: AppTest) -> str:
    return next(h.proto.body for h in at.get("html") if "<th" in h.proto.body and "likely cause" in h.proto.body)


def test_the_demo_answers_page_shows_unverified_claims_with_evidence_and_hints(demo_built):
    project, run_id = demo_built
    verdicts = {c["item_id"]: c["verdict"] for c in store.claims(project.db_path, run_id)}
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.session_state["project"] = project.slug
    at.run()
    at.switch_page("pages/answers.py").run()
    at.selectbox(key="ans_run").set_value(run_id).run()
    no_failure(at)
    assert not any("low confidence" in c.value for c in at.caption)  # the rules' verdicts carry no probability
    table = at.dataframe(key="ans_table").value
    assert "low_confidence" not in table.columns and table["unverified"].sum() > 0  # counted, no column of zeros
    assert table.set_index("id").loc["q08", "unverified"] >= 1
    # a wrong number: UNVERIFIED, its likely evidence shown (never as support) and the hint
    assert verdicts["q08"] == "UNVERIFIED"
    at.selectbox(key="ans_item").set_value("q08").run()
    no_failure(at)
    table = _claims_table(at)
    assert ">UNVERIFIED</span>" in table and "likely evidence" in table and "5 unused days" in table
    assert "hints: the claim says 10; the sentence says 5" in table
    assert any(c.value == OFFLINE_VERDICT_NOTE for c in at.caption)  # one plain sentence: a judge or a person
    assert "judge or a person" in OFFLINE_VERDICT_NOTE and "Run page" in OFFLINE_VERDICT_NOTE
    assert "--judge" in OFFLINE_VERDICT_NOTE
    # a claim copied from a retrieved chunk: SUPPORTED, its sentence as support
    assert verdicts["q19"] == "SUPPORTED"
    assert verdicts["q07"] == "SUPPORTED"  # copied from a Markdown sentence with **emphasis**
    at.selectbox(key="ans_item").set_value("q19").run()
    no_failure(at)
    table = _claims_table(at)
    assert ">SUPPORTED</span>" in table and "likely evidence" not in table and "verbatim" in table


def test_the_demo_report_says_the_same(demo_built):
    from html import escape

    from rageval.report.html import run_report_html

    project, run_id = demo_built
    page = run_report_html(project, run_id)
    claims = [c for c in store.claims(project.db_path, run_id) if c["signature"].startswith("faithfulness|")]
    supported = sum(c["verdict"] == "SUPPORTED" for c in claims)
    assert supported and supported < len(claims)
    assert (f"<b>Claims:</b> {escape(OFFLINE_VERDICT_NOTE)} In this run: {len(claims)} claims: {supported} SUPPORTED, "
            f"{len(claims) - supported} UNVERIFIED.") in page  # the sentence, and what it means in this run
    # the worst answers' claims: UNVERIFIED with their likely evidence and hints, in grey
    assert "hints: the claim says 10; the sentence says 5" in page  # q08's wrong number
    assert "likely evidence: Up to **5 unused days** may be carried over into the next year." in page
    assert 'color:#4a5261;border-color:#4a5261">UNVERIFIED</span>' in page and "CONTRADICTED</span>" not in page
    assert "claims low confidence" not in page
