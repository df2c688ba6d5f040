"""The QA sets page's "Generate from documents" section (AppTest): choose, see what it costs,
generate, review, save; the stored set keeps the reviewer's decisions."""
from __future__ import annotations

import pytest

from rageval.project import open_project
from rageval.store import runs as run_store
from tests.test_app import app, build_project, no_failure, texts, unescape


@pytest.fixture()
def project_home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    build_project("g", runs=False)


def test_generate_review_and_save_from_the_page(project_home):
    at = app("g", "pages/qa_sets.py")
    assert "a smoke test of the pipeline, not a substitute" in unescape(texts(at))
    at.number_input(key="qa_gen_n").set_value(2).run()  # the two sure questions of these documents
    at.text_input(key="qa_gen_name").set_value("from-docs").run()
    at.button(key="qa_gen_go").click().run()
    no_failure(at)
    assert "Review from-docs" in unescape(texts(at))
    at.button(key="qa_gen_save").click().run()
    no_failure(at)
    assert any("Saved from-docs: 2 accepted, 0 dropped." in unescape(s.value) for s in at.success)
    items = run_store.qa_items(open_project("g").db_path, "from-docs")
    assert len(items) == 2 and all(it["status"] == "accepted" and it["relevant"] for it in items)


def test_the_llm_generator_shows_its_estimate_before_it_starts(project_home):
    at = app("g", "pages/qa_sets.py")
    at.radio(key="qa_gen_kind").set_value("LLM (openai)").run()
    no_failure(at)
    assert "At most " in unescape(texts(at)) and "model calls" in unescape(texts(at))
