"""The demo's LLM-style run on the Answers page and in the HTML report: each claim shows its settled
verdict (the shipped people's labels settle the planted errors red and orange), who settled it, and
the offline rule's verdict one click away; an answer nobody settled says so in one sentence, once."""
from __future__ import annotations

import functools

import pytest
from streamlit.testing.v1 import AppTest

from rageval.config import RunConfig
from rageval.report.settle import NO_DECIDED_PLAIN, settled_claims
from rageval.report.summary import OFFLINE_VERDICT_NOTE
from rageval.views.trust import JUDGE_WOULD_ADD
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


def test_the_demo_answers_page_shows_planted_errors_settled_by_people(demo_built):
    """The LLM-style run's planted errors are red and orange as the shipped people's labels settle them,
    with the badge, the offline rule's verdict one click away (a <details> element), the evidence
    sentence still marked "likely evidence" (the machine's guess, never shown as what people quoted)."""
    project, run_id = demo_built
    verdicts = {(c["item_id"], c["ordinal"]): c["verdict"] for c in store.claims(project.db_path, run_id)}
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.session_state["project"] = project.slug
    at.switch_page("pages/answers.py").run()
    at.selectbox(key="ans_run").set_value(run_id).run()
    no_failure(at)
    assert not any("low confidence" in c.value for c in at.caption)  # the rules' verdicts carry no probability
    assert any(e.label.startswith("How sure these numbers are") for e in at.expander)  # PPI beside the means
    # a wrong number (q08: 10 days, the handbook says 5): UNVERIFIED by the rule, CONTRADICTED by 3 people
    assert verdicts[("q08", 0)] == "UNVERIFIED"
    at.selectbox(key="ans_item").set_value("q08").run()
    no_failure(at)
    table = _claims_table(at)
    assert ">CONTRADICTED</span>" in table and ">3 people<details><summary>other sources</summary>" in table
    assert "offline rule: UNVERIFIED</div></details>" in table and ">UNVERIFIED</span>" not in table
    assert "likely evidence" in table and "5 unused days" in table
    assert "hints: the claim says 10; the sentence says 5" in table  # what the rule noticed stays
    said = "\n".join(str(c.value).replace("\\", "") for c in at.caption)
    assert "offline rule: agrees with people on" in said  # the rule's agreement with people, beside
    assert JUDGE_WOULD_ADD in said  # what a judge would add, and no verdict shown as a judge's
    assert "judge " not in table
    # a swapped name (q26) and an unsupported addition (q24's second claim)
    for item, expected in (("q26", ">CONTRADICTED</span>"), ("q24", ">NOT_MENTIONED</span>")):
        at.selectbox(key="ans_item").set_value(item).run()
        no_failure(at)
        assert expected in _claims_table(at)
    # a claim copied from a retrieved chunk and labelled: SUPPORTED by people, the copy one click away
    assert verdicts[("q19", 0)] == "SUPPORTED"
    at.selectbox(key="ans_item").set_value("q19").run()
    no_failure(at)
    table = _claims_table(at)
    assert ">SUPPORTED</span>" in table and "copied: SUPPORTED" in table and "verbatim" in table
    # an answer nobody settled: one plain sentence, once; the long machine reason nowhere on the page
    at.selectbox(key="ans_item").set_value("q42").run()
    no_failure(at)
    shown = [str(m.value).replace("\\", "") for m in [*at.markdown, *at.caption]]
    assert sum(NO_DECIDED_PLAIN in x for x in shown) == 1
    assert not any("no_decided_claims" in x for x in shown)
    assert OFFLINE_VERDICT_NOTE not in shown


def test_the_demo_report_says_the_same(demo_built):
    from html import escape

    from rageval.report.html import run_report_html

    project, run_id = demo_built
    page = run_report_html(project, run_id)
    settled = settled_claims(project, run_id)
    n = {v: sum(c.verdict == v for c in settled) for v in ("SUPPORTED", "CONTRADICTED", "NOT_MENTIONED", "UNVERIFIED")}
    assert n["CONTRADICTED"] >= 4 and n["NOT_MENTIONED"] >= 2 and n["UNVERIFIED"] >= 1
    assert (f"<b>Claims:</b> {len(settled)} claims: {n['SUPPORTED']} SUPPORTED, {n['CONTRADICTED']} CONTRADICTED, "
            f"{n['NOT_MENTIONED']} NOT_MENTIONED, {n['UNVERIFIED']} UNVERIFIED; settled "
            f"{len(settled) - n['UNVERIFIED']} by people, {n['UNVERIFIED']} unverified.") in page
    assert escape(OFFLINE_VERDICT_NOTE) in page  # some claims are still the rule's UNVERIFIED
    # the worst answers' claims: settled verdicts with who settled them and what the rule said
    assert 'color:#a61b1b;border-color:#a61b1b">CONTRADICTED</span></td><td>3 people</td>' in page
    assert "hints: the claim says 10; the sentence says 5" in page  # q08's wrong number
    assert "likely evidence: Up to **5 unused days** may be carried over into the next year." in page
    assert "offline rule: UNVERIFIED" in page
    assert "claims low confidence" not in page
