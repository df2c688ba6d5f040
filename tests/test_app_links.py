"""AppTest of the state in the URL: a pasted link or a reload opens the same view, a
widget change wins over the address it came from, and every tab announces a run that finished."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pages.parts import common, nav
from rageval.store import human as hstore
from rageval.store import runs as rstore
from tests.human_fixtures import make_runs

APP = Path(__file__).resolve().parents[1] / "app.py"


@pytest.fixture
def linked(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    project, _ = make_runs("lk", n=12, runs=("r0", "r1"))
    return project


def opened(page: str, params: dict[str, str]) -> AppTest:
    """A new session (a new tab, a reload) opening ``page`` at an address with ``params``."""
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.query_params.update(params)
    at.run()
    if page != "home":
        at.switch_page(nav.PAGES[page])
        at.query_params.update(params)  # the address of the page, not cleared as the sidebar does
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown(at: AppTest) -> str:
    parts = [str(e.value) for kind in ("markdown", "subheader", "caption") for e in getattr(at, kind)]
    return "\n".join(parts + [h.proto.body for h in at.get("html")]).replace("\\", "")


def test_view_url_is_the_page_path_with_encoded_parameters():
    assert nav.view_url("answers", project="demo", run="r1", run_b="r0", question="q 3", contradicted=True) == \
        "answers?project=demo&run=r1&run_b=r0&question=q+3&contradicted=1"
    assert nav.view_url("home", project="demo", run=None) == "?project=demo"
    assert nav.view_url("human_review") == "human_review"


def test_a_pasted_answers_link_reopens_the_question_with_its_filters(linked):
    at = opened("answers", {"project": "lk", "run": "r0", "run_b": "r1", "question": "q07", "contradicted": "0",
                            "metric": "token_f1", "threshold": "below", "value": "0.9"})
    assert at.session_state["project"] == "lk"
    assert at.selectbox(key="ans_run").value == "r0"
    assert at.selectbox(key="ans_compare").value == "r1"
    assert at.selectbox(key="ans_metric").value == "token_f1"
    assert at.selectbox(key="ans_direction").value == "below"
    assert at.selectbox(key="ans_item").value == "q07"
    assert "Question number 7?" in shown(at)
    # the address now holds the whole view, so a reload opens the same one
    assert {"project": "lk", "run": "r0", "run_b": "r1", "question": "q07", "metric": "token_f1"}.items() <= \
        at.query_params.items()


def test_a_widget_change_wins_over_the_address_it_came_from(linked):
    at = opened("answers", {"project": "lk", "run": "r1", "question": "q03"})
    at.selectbox(key="ans_item").set_value("q05").run()
    assert at.selectbox(key="ans_item").value == "q05" and at.query_params["question"] == "q05"
    at.toggle(key="ans_contradicted").set_value(True).run()
    assert at.query_params["contradicted"] == "1" and at.selectbox(key="ans_run").value == "r1"


def test_an_unknown_run_or_question_in_a_link_falls_back_without_an_error(linked):
    at = opened("answers", {"project": "lk", "run": "nope", "question": "zzz", "value": "not-a-number"})
    assert not at.error and at.selectbox(key="ans_run").value in ("r0", "r1")


def test_a_human_review_link_opens_that_answer_and_save_and_next_moves_the_address(linked):
    at = opened("human_review", {"project": "lk", "run": "r1", "rater": "dana", "question": "q04"})
    radio = next(r for r in at.radio if r.key.startswith("hr_rating_"))
    assert radio.key.endswith("_q04") and at.query_params["question"] == "q04"
    radio.set_value(5)
    next(b for b in at.button if b.label == "Save and next").click().run()
    assert not at.exception
    mine = {r["item_id"]: r["rating"] for r in hstore.ratings(linked.db_path, ["r1"]) if r["annotator"] == "dana"}
    assert mine == {"q04": 5}
    radio = next(r for r in at.radio if r.key.startswith("hr_rating_"))
    assert radio.key.endswith("_q05") and radio.value is None, "moved on to the next unrated answer"
    assert at.query_params["question"] == "q05" and at.query_params["rater"] == "dana"


def test_a_run_that_finishes_is_announced_in_another_tab_once_with_its_link(linked):
    other_tab = opened("human_review", {"project": "lk"})
    assert not [s for s in other_tab.success if s.value.startswith("Finished")], "old runs are not news"
    rstore.create_run(linked.db_path, "r9", kind="import", corpus=None, qa_set=None,
                      config={"source": "late.jsonl"}, config_hash="r9", n_items=0)
    other_tab.run()
    assert not [s for s in other_tab.success if s.value.startswith("Finished")]
    rstore.set_run_status(linked.db_path, "r9", "finished")
    other_tab.run()
    news = [s.value.replace("\\", "") for s in other_tab.success if s.value.startswith("Finished")]
    assert len(news) == 1 and news[0].startswith("Finished: imported late.jsonl") and "0 answers" in news[0]
    other_tab.button(key="open_r9").click().run()
    assert any(t.value == "Answers" for t in other_tab.title)
    assert other_tab.session_state["ans_run"] == "r9"
    other_tab.run()
    assert not [s for s in other_tab.success if s.value.startswith("Finished")], "announced once"


def test_home_says_building_the_demo_with_its_phase_until_it_is_done(tmp_path, monkeypatch):
    import threading

    from rageval.project import open_project
    from rageval.runs.worker import Progress

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    open_project("demo")
    gate, release = common.demo_gate(), threading.Event()
    thread = threading.Thread(target=release.wait, daemon=True)
    thread.start()
    gate.update(thread=thread, progress=Progress().update("chunks", 6, 6).update("index", 64, 300))
    try:
        at = AppTest.from_file(str(APP), default_timeout=90)
        at.session_state["project"] = "demo"
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        text = shown(at)
        assert "Building the demo: embedding chunks 64/300" in text
        assert "Upload documents" not in text and all(m.value == "…" for m in at.metric)
        bars = [b.proto.text for b in at.get("progress")]
        assert any("embedding chunks 64/300" in t for t in bars), bars
    finally:
        release.set()
        thread.join(5)
        gate.update(thread=None, progress=None)
    at.run()
    assert "Building the demo" not in shown(at) and any(m.label == "Documents" for m in at.metric)


def test_the_demo_builds_own_runs_are_not_announced_but_a_later_run_is(tmp_path, monkeypatch):
    """A first start: the demo's runs end while the app is open. Home shows the demo when it is
    built, so they are not news (no banner, no toast); a run that ends after the build is."""
    import threading

    from rageval.project import open_project

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    demo = open_project("demo")
    gate, release = common.demo_gate(), threading.Event()
    thread = threading.Thread(target=release.wait, daemon=True)
    thread.start()
    gate.update(thread=thread, runs=set())

    def make(run_id):
        rstore.create_run(demo.db_path, run_id, kind="import", corpus=None, qa_set=None,
                          config={"source": f"{run_id}.jsonl"}, config_hash=run_id, n_items=0)

    def news(at):
        shown = [s.value for s in at.success if s.value.startswith("Finished")] + [t.value for t in at.toast]
        return [text.replace("\\", "") for text in shown]  # Markdown escapes out

    try:
        make("pipeline-run")
        make("llm-answers")
        at = AppTest.from_file(str(APP), default_timeout=90)
        at.session_state["project"] = "demo"
        at.run()
        rstore.set_run_status(demo.db_path, "pipeline-run", "finished")  # mid-build
        at.run()
        assert news(at) == []
        gate["runs"] = {"pipeline-run", "llm-answers"}  # what the build reports before it ends
        rstore.set_run_status(demo.db_path, "llm-answers", "finished")
        release.set()
        thread.join(5)
        at.run()
        assert not at.exception and news(at) == [], "the build's runs, ended during or at its end"
        make("mine")
        rstore.set_run_status(demo.db_path, "mine", "finished")
        at.run()
        assert [s for s in news(at) if s.startswith("Finished: imported mine.jsonl")], news(at)
    finally:
        release.set()
        gate.update(thread=None, progress=None, runs=set())


def _params_after(at: AppTest, page: str) -> dict[str, str]:
    at.switch_page(nav.PAGES[page]).run()  # the sidebar: the address of the page before is kept
    assert not at.exception, [e.value for e in at.exception]
    return dict(at.query_params)


def test_each_page_keeps_only_its_own_url_parameters(linked):
    at = opened("compare", {"project": "lk"})
    at.selectbox(key="cmp_metric").set_value("bleu").run()
    assert {"runs", "metric"} <= set(at.query_params)
    hr = _params_after(at, "human_review")  # stops early (no rater yet): its address is written all the same
    assert "runs" not in hr and "metric" not in hr and hr["project"] == "lk"
    answers = _params_after(at, "answers")
    assert "metric" not in answers and "runs" not in answers
    assert at.selectbox(key="ans_metric").value != "bleu"  # Compare's metric did not become a filter here
    back = _params_after(at, "compare")
    assert set(back) <= {"project", "runs", "metric"}


def test_a_link_that_shares_the_view_still_carries_its_run(linked):
    at = opened("answers", {"project": "lk", "run": "r0"})
    assert at.selectbox(key="ans_run").value == "r0"
    hr = _params_after(at, "human_review")  # the run (the view's identity) goes on, filters do not
    assert at.selectbox(key="hr_run").value == "r0" and hr.get("run") == "r0"
