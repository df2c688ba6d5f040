"""AppTest of the product features: presets, refused LLM starts, inapplicable metrics, the finished
message, the answers table, side by side, plots, exports, QA set views and the corpus default."""
from __future__ import annotations

import html.parser
import time

from rageval.runs import presets
from rageval.ingest.corpus import ingest
from rageval.project import open_project
from rageval.store import runs as run_store
from tests.test_app import (CHUNKING, DOCS, app, data_home, home, no_failure, texts, unescape,  # noqa: F401
                            use_data)


def _clear_llm_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RAGEVAL_GENERATOR_API_KEY", "RAGEVAL_GENERATOR_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def test_llm_without_key_or_server_is_refused_before_a_run_exists(use_data, monkeypatch):
    _clear_llm_env(monkeypatch)
    at = app("r", "pages/run.py")
    at.selectbox(key="run_generator").set_value("openai").run()
    assert any("OPENAI_API_KEY" in unescape(w.value) for w in at.warning), "says what to set before Start"
    before = len(run_store.runs(open_project("r").db_path))
    at.button(key="run_start").click().run()
    assert not at.exception
    assert any(e.value.startswith("Not started") and "OPENAI_BASE_URL" in unescape(e.value) for e in at.error)
    assert len(run_store.runs(open_project("r").db_path)) == before, "no run was created"


def test_metrics_that_cannot_apply_are_not_selected_and_say_why(use_data):
    at = app("r", "pages/run.py")
    chosen = at.multiselect(key="run_metrics").value
    # the QA set of tests/test_app.py has gold answers but no relevance labels
    assert "token_f1" in chosen and "recall@5" not in chosen and "mrr" not in chosen
    note = unescape(" ".join(c.value for c in at.caption))
    assert "Not selected: mrr, ndcg@10, recall@5" in note and "relevance labels" in note


def test_presets_are_saved_by_name_and_applied(use_data):
    at = app("r", "pages/run.py")
    at.number_input(key="run_top_k").set_value(4)
    at.number_input(key="run_size").set_value(300)
    at.multiselect(key="run_metrics").set_value(["exact_match"]).run()
    at.text_input(key="preset_name").set_value("tiny").run()
    at.button(key="preset_save").click().run()
    no_failure(at)
    saved = presets.presets(open_project("r"))["tiny"]
    assert saved["top_k"] == 4 and saved["chunking"]["size"] == 300 and saved["metrics"] == ["exact_match"]
    at = app("r", "pages/run.py")
    assert at.number_input(key="run_top_k").value == 10
    at.selectbox(key="run_preset").set_value("tiny").run()
    assert at.number_input(key="run_top_k").value == 4 and at.number_input(key="run_size").value == 300
    assert at.multiselect(key="run_metrics").value == ["exact_match"]


def test_a_finished_run_says_so_and_opens_its_answers(use_data):
    at = app("r", "pages/run.py")
    at.number_input(key="run_size").set_value(300)
    at.number_input(key="run_overlap").set_value(30)
    at.multiselect(key="run_metrics").set_value(["token_f1"])
    at.button(key="run_start").click().run()
    run_id = at.session_state["run_watch"][-1]
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and run_store.get_run(open_project("r").db_path, run_id).status != "finished":
        time.sleep(0.2)
    at.run()
    no_failure(at)
    assert any(s.value.startswith("Finished") and "3 answers, 0 failed" in s.value for s in at.success), (
        [s.value for s in at.success],
        [e.value for e in at.exception],
        [e.value for e in at.error],
    )
    at.button(key=f"open_{run_id}").click().run()
    assert at.session_state["ans_run"] == run_id
    assert any(t.value == "Answers" for t in at.title), "switched to the Answers page"


def test_answers_table_filters_compare_plots_and_exports(use_data):
    built = use_data
    at = app("t", "pages/answers.py")
    at.selectbox(key="ans_run").set_value(built["run_id"]).run()
    table = at.dataframe(key="ans_table").value
    assert len(table) == 3 and {"token_f1", "exact_match", "contradicted"} <= set(table.columns)
    at.text_input(key="ans_search").set_value("etna").run()
    assert list(at.dataframe(key="ans_table").value["id"]) == ["q1"]
    at.text_input(key="ans_search").set_value("").run()
    # the claims run compared with the pipeline run: no shared question, then said so
    at.selectbox(key="ans_compare").set_value(built["claims_run"]).run()
    no_failure(at)
    assert any("The other run has no answer to this question." in i.value for i in at.info)
    assert not at.get("plotly_chart"), "the Plots tab is drawn only when it is open"
    at.session_state["ans_tab"] = "Plots"
    at.run()
    assert len(at.get("plotly_chart")) >= 1, "distribution plot"
    at.session_state["ans_tab"] = "Answers"
    at.run()
    at.toggle(key="ans_exports").set_value(True).run()
    labels = {b.label for b in at.get("download_button")}
    assert {"HTML report", "JSONL", "Parquet", "RAGAS JSONL", "CSV", "Table as CSV"} <= labels


def test_same_question_side_by_side_with_differences(use_data):
    built = use_data
    project = open_project("t")
    # a second pipeline run over the same questions, with the same metrics
    from rageval.config import RunConfig
    from rageval.runs.pipeline import run

    other = run(project, RunConfig(corpus="c", qa_set="qa", chunking=CHUNKING, top_k=1,
                                   metrics=("exact_match", "token_f1"))).run_id
    at = app("t", "pages/answers.py")
    at.selectbox(key="ans_run").set_value(built["run_id"]).run()
    at.selectbox(key="ans_compare").set_value(other).run()
    no_failure(at)
    diff = next(d.value for d in at.dataframe if "B - A" in d.value.columns)  # a styled frame has no key here
    assert set(diff["metric"]) == {"exact_match", "token_f1"} and {"A", "B", "B - A"} <= set(diff.columns)
    at.session_state["ans_tab"] = "Plots"
    at.run()
    assert len(at.get("plotly_chart")) >= 2, "distribution and run-vs-run scatter"
    from rageval.store.db import connect

    with connect(project.db_path) as con:  # leave the shared project as the other tests expect it
        for table in ("answers", "retrievals", "metric_scores", "claims"):
            con.execute(f"DELETE FROM {table} WHERE run_id = ?", [other])
        con.execute("DELETE FROM runs WHERE id = ?", [other])


def test_qa_sets_page_views_a_set_and_offers_templates(use_data):
    at = app("t", "pages/qa_sets.py")
    no_failure(at)
    items = next(d.value for d in at.dataframe if "relevant_ids" in d.value.columns)
    assert list(items["id"]) == ["q1", "q2", "q3"] and items.loc[0, "reference"] == "3,357 metres"
    labels = {b.label for b in at.get("download_button")}
    assert {"Sample QA set (CSV)", "Empty template (CSV)", "This set as CSV"} <= labels
    assert "relevant_ids" in texts(at) and "graded relevance" in texts(at)


def test_documents_default_corpus_is_never_the_demos(home):
    project = open_project("demo")
    ingest(project, "handbook", files=DOCS[:1], chunking=CHUNKING)
    at = app("demo", "pages/documents.py")
    no_failure(at)
    assert at.text_input(key="doc_corpus").value == "my-docs"
    assert any("demo project" in i.value for i in at.info)
    open_project("mine")
    ingest(open_project("mine"), "manuals", files=DOCS[:1], chunking=CHUNKING)
    at = app("mine", "pages/documents.py")
    assert at.text_input(key="doc_corpus").value == "manuals"


class _Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_html_report_of_the_claims_run_escapes_everything(use_data):
    from rageval.report.html import run_report_html

    page = run_report_html(open_project("t"), use_data["claims_run"])
    parsed = _Tags()
    parsed.feed(page)
    assert not any(t == "script" or "src" in a or "href" in a for t, a in parsed.tags)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "CONTRADICTED" in page
