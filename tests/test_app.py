"""AppTest for every page, on an empty project and on one with data; uploads through the widgets.

The project with data is built through the library: two small documents (one carrying HTML and
Markdown that must stay inert), a 3-item QA set, a run with exact_match and token_f1, and an
import run whose claims and scores are stored through ``store.runs.save_item`` exactly as the
pipeline stores a claim metric's output, so the claim view is tested whatever metrics exist.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rageval.config import RunConfig
from rageval.ingest.corpus import ingest
from rageval.config import ChunkingConfig
from rageval.runs.pipeline import run, start_run
from rageval.project import list_projects, open_project
from rageval.ingest.qa import import_qa
from rageval.store import runs as run_store

APP = Path(__file__).resolve().parents[1] / "app.py"
PAGES = ["pages/home.py", "pages/documents.py", "pages/qa_sets.py", "pages/run.py", "pages/answers.py"]
EVIL = "<script>alert(1)</script> ![x](http://127.0.0.1:9/x.png)"
CHUNKING = ChunkingConfig(size=300, overlap=30)
DOCS = [
    ("volcano.txt", b"Mount Etna is an active volcano in Sicily. It is about 3,357 metres high.\n\n"
                    b"A major eruption in 1669 destroyed part of Catania."),
    ("tea.txt", ("Green tea originated in China. Brew it at 70 to 80 degrees Celsius. " + EVIL).encode()),
]
QA = [
    {"id": "q1", "question": "How high is Mount Etna?", "reference": "3,357 metres"},
    {"id": "q2", "question": "Where did green tea originate?", "reference": "China"},
    {"id": "q3", "question": "Which city did the 1669 eruption damage?", "reference": "Catania"},
]
CLAIM_ANSWER = "Green tea originated in Japan. Brew it at 70 to 80 degrees Celsius. " + EVIL


def qa_bytes() -> bytes:
    return "".join(json.dumps(r) + "\n" for r in QA).encode()


def store_claims_run(project) -> str:
    """An import run with one answer, two claims (CONTRADICTED, SUPPORTED) and scores."""
    run_id = "20000101-000000-claims"
    context = DOCS[1][1].decode()
    run_store.create_run(project.db_path, run_id, kind="import", corpus=None, qa_set=None,
                         config={"source": "claims.jsonl", "metrics": ["faithfulness", "hedging", "token_f1"]},
                         config_hash="test", n_items=1)
    sig = "faithfulness|judge:heuristic|v1"
    claims = [
        {"signature": sig, "ordinal": 0, "text": "Green tea originated in Japan.", "verdict": "CONTRADICTED",
         "evidence": "Green tea originated in China.", "evidence_chunk": "ctx-tea", "span_start": 0,
         "span_end": 30, "reason": "entity mismatch: Japan vs China", "judge": "heuristic",
         "details": {"cause": "invented_confidence"}},
        {"signature": sig, "ordinal": 1, "text": "Brew it at 70 to 80 degrees Celsius.", "verdict": "SUPPORTED",
         "evidence": "Brew it at 70 to 80 degrees Celsius.", "evidence_chunk": "ctx-tea", "span_start": 31,
         "span_end": 67, "reason": "all numbers found " + EVIL, "judge": "heuristic", "details": {}},
    ]
    scores = [
        {"metric": "faithfulness", "signature": sig, "value": 0.5, "status": "ok", "reason": None,
         "details": {"diagnosis": {"answer_cause": "invented_confidence", "hedged": False,
                                   "claim_causes": ["invented_confidence", None],
                                   "gold_in_contexts": None, "gold_ranks": None}}},
        {"metric": "hedging", "signature": "hedging|judge:heuristic|v1", "value": 0.0, "status": "ok",
         "reason": None, "details": {"cues": [], "abstained": False, "review": False}},
        {"metric": "token_f1", "signature": "token_f1|norm:squad|v1", "value": None, "status": "unscored",
         "reason": "no_reference", "details": None},
    ]
    run_store.save_item(project.db_path, run_id, {
        "item_id": "c1", "ordinal": 0, "question": "Where does green tea come from? " + EVIL,
        "answer": CLAIM_ANSWER, "references": [], "contexts": [context], "retrieved": [("ctx-tea", 0.81)],
        "status": "ok", "reason": None, "details": {"imported": True},
    }, scores, claims)
    run_store.set_run_status(project.db_path, run_id, "finished")
    return run_id


def build_project(name: str = "t", *, runs: bool = True) -> dict:
    """The project with data (RAGEVAL_HOME must already point at a temporary folder)."""
    project = open_project(name)
    report = ingest(project, "c", files=DOCS, chunking=CHUNKING)
    assert not report.errors
    import_qa(project, "qa.jsonl", qa_bytes(), name="qa")
    if not runs:
        return {"project": project}
    summary = run(project, RunConfig(corpus="c", qa_set="qa", chunking=CHUNKING, top_k=3,
                                     metrics=("exact_match", "token_f1")))
    assert summary.status == "finished" and summary.done == 3
    return {"project": project, "run_id": summary.run_id, "claims_run": store_claims_run(project)}


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    return tmp_path / "home"


@pytest.fixture(scope="module")
def data_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("apphome")
    old = os.environ.get("RAGEVAL_HOME")
    os.environ["RAGEVAL_HOME"] = str(home)
    try:
        built = build_project()
        build_project("r", runs=False)  # for the Run page tests, so "t" keeps its two runs
    finally:
        if old is None:
            os.environ.pop("RAGEVAL_HOME")
        else:
            os.environ["RAGEVAL_HOME"] = old
    return home, built


@pytest.fixture
def use_data(data_home, monkeypatch):
    """The project-with-data home for this test; returns what build_project made."""
    home, built = data_home
    monkeypatch.setenv("RAGEVAL_HOME", str(home))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    return built


def app(project: str | None, page: str | None = None) -> AppTest:
    """The app run once on ``project``, on Home or on ``page`` (a file under pages/), as a browser that
    opens the page's address does: one script run, the page named by its file before it."""
    at = AppTest.from_file(str(APP), default_timeout=90)
    if project:
        at.session_state["project"] = project
    if page:
        at.switch_page(page)
    return at.run()


def texts(at: AppTest) -> str:
    """All text the page shows (markdown, captions, alerts, html bodies, metric labels)."""
    parts = [e.value for kind in ("markdown", "caption", "info", "success", "warning", "error", "title",
                                  "subheader") for e in getattr(at, kind)]
    parts += [h.proto.body for h in at.get("html")]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    return "\n".join(str(p) for p in parts)


def unescape(markdown: str) -> str:
    """Markdown shown by the app with its backslash escapes removed (what the user reads)."""
    return markdown.replace("\\", "")


def no_failure(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not [e.value for e in at.error], [e.value for e in at.error]


@pytest.mark.parametrize("page", PAGES)
def test_every_page_opens_on_an_empty_project(home, page):
    at = app("empty", page)
    no_failure(at)
    if page in ("pages/run.py", "pages/answers.py"):
        # pages that need data made elsewhere say so and link to where to get it
        assert at.info, f"{page} shows no 'what is missing' message"
        assert at.get("page_link"), f"{page} does not link to where to get what is missing"
    if page == "pages/documents.py":
        assert any("No corpus yet" in i.value for i in at.info)


@pytest.mark.parametrize("page", PAGES)
def test_every_page_opens_on_a_project_with_data(use_data, page):
    at = app("t", page)
    no_failure(at)
    assert texts(at).strip()


def test_home_shows_counts_and_a_leaderboard_of_named_runs(use_data):
    at = app("t")
    no_failure(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Documents"] == "2" and metrics["QA sets"] == "1" and metrics["Runs"] == "2"
    # the scored file (an import run) is kept apart: pipeline runs first, the rest on request, marked
    assert at.radio(key="home_board").value == "Pipeline runs"
    assert list(at.dataframe[0].value["kind"]) == ["pipeline run"]
    at.radio(key="home_board").set_value("Scored files").run()
    assert list(at.dataframe[0].value["kind"]) == ["scored file"]
    at.radio(key="home_board").set_value("Both").run()
    no_failure(at)
    board = at.dataframe[0].value
    assert sorted(board["kind"]) == ["pipeline run", "scored file"]
    names = list(board["run"])
    # runs are named by what produced them, not by ids
    assert any(n.startswith("imported claims.jsonl") for n in names)
    assert any(n.startswith("extractive generator · top-3 · c / qa") for n in names)
    assert "id" not in board.columns and set(board["judge"]) == {"heuristic judge (offline)"}
    row = board[board["run"].str.startswith("imported")].iloc[0]
    assert row["faithfulness"] == "0.500" and row["token_f1"] == "—"  # unscored: a dash, never 0 or "None"
    caption = unescape(" ".join(c.value for c in at.caption))
    assert "token_f1 1" in caption and "higher is better" in caption
    # the comparison chart of the two runs
    assert at.get("plotly_chart"), "no plot on Home"


def test_sidebar_switches_and_creates_projects(use_data):
    # AppTest runs app.py (which draws the sidebar) on an app's first run only: with a pages/
    # folder every later AppTest run executes the page script directly. So the sidebar's
    # widgets act through callbacks, and each step starts a fresh AppTest.
    open_project("other")
    at = app("t")
    assert at.sidebar.selectbox(key="project_select").value == "t"
    at.sidebar.selectbox(key="project_select").set_value("other").run()
    assert at.session_state["project"] == "other"
    assert {m.label: m.value for m in at.metric}["Documents"] == "0"

    at = app("t")
    at.text_input(key="new_project_name").set_value("Bad Name!")
    at.button(key="create_project").click().run()
    assert at.session_state["project"] == "t" and "not usable" in at.session_state["new_project_error"]
    at = app("t")
    at.text_input(key="new_project_name").set_value("fresh")
    at.button(key="create_project").click().run()
    assert at.session_state["project"] == "fresh" and "fresh" in list_projects()
    # the field is cleared after use, and the new project starts empty
    assert at.session_state["new_project_name"] == ""
    assert {m.label: m.value for m in at.metric}["Documents"] == "0"


def test_document_upload_through_the_widget(home):
    at = app("up", "pages/documents.py")
    at.file_uploader(key="doc_upload").set_value([
        ("notes.txt", b"The warehouse opens at 7 am on weekdays.", "text/plain"),
        ("broken.pdf", b"%PDF-1.4 this is not really a pdf", "application/pdf"),
    ])
    at.text_input(key="doc_corpus").set_value("manuals")
    at.run()
    at.button(key="doc_ingest").click().run()
    assert not at.exception
    for _ in range(300):  # the ingest runs in the background (tests/test_app_ingest.py); the page shows its report
        if any("notes.txt" in unescape(s.value) for s in at.success):
            break
        time.sleep(0.1)
        at.run()
    assert any("notes.txt: 1 page(s), 1 chunk(s), added" in unescape(s.value) for s in at.success)
    assert any("broken" in e.value for e in at.error), "the bad file's error is shown"
    # the documents table, the ingest error table and the chunk browser
    frames = [d.value for d in at.dataframe]
    assert any("notes.txt" in set(f.get("name", [])) for f in frames)
    assert any("text" in f.columns and f["text"].str.contains("warehouse").any() for f in frames)


def test_qa_upload_shows_row_errors_and_preview(home):
    at = app("qa", "pages/qa_sets.py")
    bad = b"id,question,reference\n1,What time does it open?,7 am\n2,,missing\n"
    at.file_uploader(key="qa_upload").set_value(("my-set.csv", bad, "text/csv"))
    at.run()
    at.button(key="qa_import").click().run()
    no_failure(at)
    assert any("Imported 1 question(s) as my-set." in unescape(s.value) for s in at.success)
    assert "my-set.csv, row 2 (line 3), column 'question': empty question" in "\n".join(c.value for c in at.code)
    assert any(list(d.value["question"]) == ["What time does it open?"] for d in at.dataframe
               if "question" in d.value)
    assert [s["name"] for s in run_store.qa_sets(open_project("qa").db_path)] == ["my-set"]


def test_score_own_answers_stores_an_import_run(home):
    at = app("own", "pages/qa_sets.py")
    rows = [{"id": "a", "question": "q?", "answer": "Paris", "reference": "Paris", "contexts": ["Paris."]},
            {"id": "b", "question": "q?", "answer": "Rome", "reference": "Milan", "contexts": ["Rome."]}]
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    at.file_uploader(key="answers_upload").set_value(("mine.jsonl", data, "application/json"))
    at.run()
    at.multiselect(key="score_metrics").set_value(["exact_match", "token_f1"]).run()
    at.button(key="score_go").click().run()
    no_failure(at)
    table = at.dataframe[-1].value
    assert list(table["exact_match"]) == [1.0, 0.0]
    assert {b.label for b in at.get("download_button")} >= {"Download JSONL", "Download CSV"}
    runs = run_store.runs(open_project("own").db_path)
    assert [(r.kind, r.status, r.done) for r in runs] == [("import", "finished", 2)]


def test_run_page_starts_a_background_run_and_lists_it(use_data):
    at = app("r", "pages/run.py")
    at.number_input(key="run_size").set_value(300)
    at.number_input(key="run_overlap").set_value(30)
    at.number_input(key="run_top_k").set_value(3)
    at.multiselect(key="run_metrics").set_value(["exact_match", "token_f1"])
    before = {r.id for r in run_store.runs(open_project("r").db_path)}
    at.button(key="run_start").click().run()
    no_failure(at)
    deadline = time.monotonic() + 60
    new = []
    while time.monotonic() < deadline:
        new = [r for r in run_store.runs(open_project("r").db_path) if r.id not in before]
        if new and new[0].status in ("finished", "failed"):
            break
        time.sleep(0.2)
    assert new and new[0].status == "finished" and new[0].done == 3, new
    at.run()
    no_failure(at)
    assert new[0].id in set(at.dataframe[0].value["run"])


def test_run_page_estimates_model_calls_for_an_online_generator(use_data):
    at = app("r", "pages/run.py")
    assert any("Everything offline: no model calls" in c.value for c in at.caption)
    at.selectbox(key="run_generator").set_value("openai").run()
    no_failure(at)
    estimate = [unescape(c.value) for c in at.caption if c.value.startswith("Estimate")]
    # one generator call per QA item; the heuristic judge and the local embedder cost nothing
    assert estimate and estimate[0].startswith("Estimate: at most 3 model calls"), estimate


def test_run_page_resumes_an_interrupted_run(use_data):
    project = open_project("r")
    run_id = start_run(project, RunConfig(corpus="c", qa_set="qa", chunking=CHUNKING, top_k=3,
                                          metrics=("exact_match",)))
    run_store.set_run_status(project.db_path, run_id, "interrupted")
    at = app("r", "pages/run.py")
    assert any(o.endswith(f"· interrupted 0/3 · {run_id}") for o in at.selectbox(key="resume_pick").options)
    at.selectbox(key="resume_pick").set_value(run_id)
    at.button(key="run_resume").click().run()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and run_store.get_run(project.db_path, run_id).status != "finished":
        time.sleep(0.2)
    got = run_store.get_run(project.db_path, run_id)
    assert (got.status, got.done) == ("finished", 3)


def test_run_page_shows_a_killed_run_as_interrupted_with_its_resume_command(use_data):
    import subprocess
    import sys

    from rageval.store import owners
    from rageval.store.db import connect

    project, run_id = open_project("r"), "20000101-000000-killed"
    run_store.create_run(project.db_path, run_id, kind="pipeline", corpus="c", qa_set="qa",
                         config={"generator": "extractive", "top_k": 3}, config_hash="h", n_items=3)
    run_store.set_run_status(project.db_path, run_id, "running")
    owners.claim(project.db_path, run_id)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    with connect(project.db_path) as con:  # its owner is a process that has exited: killed mid-run
        con.execute("UPDATE runs SET owner_pid = ? WHERE id = ?", [int(gone.stdout), run_id])
    at = app("r", "pages/run.py")
    no_failure(at)
    table = next(d.value for d in at.dataframe if "resume" in d.value.columns)
    row = table[table["run"] == run_id].iloc[0]
    assert row["status"] == "interrupted"
    assert row["resume"] == f"python -m rageval run --resume {run_id}"
    assert any(o.endswith(f" · {run_id}") for o in at.selectbox(key="resume_pick").options)


def test_answers_page_highlights_claims_and_keeps_text_inert(use_data):
    built = use_data
    at = app("t", "pages/answers.py")
    at.selectbox(key="ans_run").set_value(built["claims_run"]).run()
    no_failure(at)
    bodies = [h.proto.body for h in at.get("html")]
    joined = "\n".join(bodies)
    assert "<script" not in joined.lower(), "document/model text must be escaped"
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in joined
    assert "<img" not in joined.lower()
    # the contradicted claim in red with its number, the supported one in green
    answer = next(b for b in bodies if "originated in Japan" in b)
    assert 'title="CONTRADICTED" style="background:#fde0e0' in answer
    assert 'title="SUPPORTED" style="background:#dcf5e3' in answer
    # the evidence sentence highlighted inside its retrieved chunk
    chunk = next(b for b in bodies if "Green tea originated in China." in b and "Japan" not in b)
    assert ">Green tea originated in China.</span>" in chunk
    # markdown around untrusted text is escaped too: no raw image syntax reaches a markdown element
    markdown = [m.value for kind in ("markdown", "caption", "error", "info") for m in getattr(at, kind)]
    assert not any("![x](http" in m for m in markdown)
    assert "invented confidence" in joined  # the claim's likely cause, in the claims table
    assert any("No judge was used" in c.value and "--judge" in c.value for c in at.caption)  # what offline verdicts are
    assert any("**Diagnosis** likely cause of the unsupported claims: invented confidence" in unescape(m)
               and "**Hedging** no hedging or abstention" in unescape(m) for m in markdown)
    # filters: the contradicted-claims toggle keeps the answer, the threshold 'at least' drops it
    at.toggle(key="ans_contradicted").set_value(True).run()
    assert any("1 of 1 answers match" in c.value for c in at.caption)
    at.selectbox(key="ans_metric").set_value("faithfulness").run()
    at.selectbox(key="ans_direction").set_value("at least").run()
    at.slider(key="ans_value_faithfulness").set_value(0.9).run()
    assert any("0 of 1" in c.value for c in at.caption)
    no_failure(at)


def test_answers_page_on_a_pipeline_run_shows_chunks_and_metrics(use_data):
    built = use_data
    at = app("t", "pages/answers.py")
    at.selectbox(key="ans_run").set_value(built["run_id"]).run()
    no_failure(at)
    labels = [e.label for e in at.expander]
    assert any(lab.startswith("\\#1 · score") for lab in labels), labels
    metric_table = at.dataframe[-1].value
    assert set(metric_table["id"]) == {"exact_match", "token_f1"}
    at.toggle(key="ans_unscored").set_value(True).run()
    no_failure(at)


def test_page_boundary_turns_an_exception_into_a_message(home, monkeypatch):
    import rageval.views.home as q

    def boom(_project):
        raise RuntimeError("database exploded")

    monkeypatch.setattr(q, "project_counts", boom)
    at = app("x")
    assert not at.exception
    assert any("This page could not finish" in e.value and "RuntimeError" in e.value for e in at.error)
    assert "Details" in [e.label for e in at.main.expander]
    assert any("database exploded" in c.value and "Traceback" in c.value for c in at.code), "details kept"
