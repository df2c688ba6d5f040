"""One end-to-end test in a real browser: Debian's Chromium driven by the playwright package.

The app runs as ``streamlit run app.py`` on a free port over a temporary RAGEVAL_HOME, one server
and one Chromium for the module's tests (each start costs CPU-seconds). Each test works on
its own copy of the small project of tests/test_app.py (built once per test process through the
library, its database copied for each test: devtools/projects.py) in a browser context of its own, as
separate users of one server would. In the browser:
upload a .txt on Documents through the hidden file input and ingest it, leave at once for Answers
and see claims highlighted while hostile document text stays inert, then find the ingest finished
back on Documents; a new
user's whole path (create a project, upload two documents and a QA set, run, open an answer, see
claims with verdicts) with no request to any host but 127.0.0.1, taking the README's screenshots
(``RAGEVAL_SCREENSHOTS=docs/img``); and the shared views: a pasted link (and a reload) reopens a
question, a rating saves and moves on (the address follows), a run started in one tab is announced
in another, Compare states its verdict; human review's claim queue labels claims, and Correlations and
Home then show the agreement and the prediction-powered estimate; the QA sets page generates a set from
the documents, a question is edited in the review table and a row dropped, and the saved set holds the
edit and the reviewer's decisions.
Skipped only when /usr/bin/chromium is absent (``apt-get install -y chromium``; .ci/run does it).
"""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import pytest

from rageval.project import open_project
from devtools.projects import copy_of

CHROMIUM = Path("/usr/bin/chromium")
#: how long any one step may take before the test fails: generous, since a cold machine (Chromium's
#: first start, the first model load in the server) on 2 busy cores is slow; speed is a bench/ figure
WAIT_MS = 120_000
ROOT = Path(__file__).resolve().parents[1]
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(port: int, server: subprocess.Popen, timeout: float = WAIT_MS / 1000) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {server.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.read() == b"ok":
                    return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"streamlit did not answer /_stcore/health on port {port} within {timeout:g} s")


def _env(home: Path) -> dict[str, str]:
    """The environment of a process over ``home`` that imports this checkout (no demo build)."""
    return {**os.environ, "RAGEVAL_HOME": str(home), "RAGEVAL_NO_AUTODEMO": "1",
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


@pytest.fixture(scope="module")
def chromium():
    """Chromium through playwright, started once for the module's tests (its start costs a second
    or two); each test opens a context of its own (its own cookies, storage, tabs and viewport)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass(frozen=True)
class App:
    """The test's view of the shared server: its address, this test's own project, the server's log."""
    url: str
    project: str
    log: Path

    def at(self, page: str = "", **params: str) -> str:
        """The address of ``page`` ("" is Home) on this test's project, with ``params``."""
        return f"{self.url}/{page}?" + urlencode({"project": self.project, **params}, safe=",")


@pytest.fixture(scope="module")
def streamlit_server(tmp_path_factory):
    """``streamlit run app.py`` over a home of its own, once per test module (its start, and the
    first script run that imports the library, cost seconds): ``(process, url, home, log)``. Each
    test works on a project of its own in that home (:func:`app`), as separate users of one server
    would."""
    folder = tmp_path_factory.mktemp("streamlit")
    home, log_path = folder / "home", folder / "streamlit.log"
    port = free_port()
    log = log_path.open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
         "--server.address=127.0.0.1", f"--server.port={port}", "--browser.gatherUsageStats=false",
         "--server.fileWatcherType=none"],
        cwd=ROOT, env=_env(home), stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_healthy(port, proc)
        yield proc, f"http://127.0.0.1:{port}", home, log_path
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()


@pytest.fixture
def app(streamlit_server, monkeypatch, request) -> App:
    """The shared server, and this test's own project in its home: a fresh copy of
    tests/test_app.py's project (built once per test process, in this one, whose models are then
    loaded for the tests after it), named after the test (a clash fails) and given its own id
    before the test opens it, as a user's copy would be; the server indexes its chunks from the
    copied embedding cache. Every address the test opens names this project."""
    from tests.test_app import build_project

    proc, url, home, log = streamlit_server
    assert proc.poll() is None, f"the shared streamlit server exited with code {proc.returncode}"
    monkeypatch.setenv("RAGEVAL_HOME", str(home))
    # short, as the sidebar and the README's screenshots show it: the test name's first three words
    name = "-".join(request.node.name.split("_")[1:4])
    copy_of("browser", lambda project, _: build_project(project.slug), name)
    return App(url, name, log)


QA_CSV = ("id,question,reference,domain\n"
          "b1,When does the warehouse open on Saturdays?,9 am,operations\n"
          "b2,How many vans does the depot have?,twelve vans,fleet\n"
          "b3,What is the depot's phone number?,,operations\n")
DOC_A = ("The warehouse opens at 7 am on weekdays and at 9 am on Saturdays. It is closed on Sundays.\n\n"
         "Deliveries are accepted until 4 pm.")
DOC_B = "The depot has twelve vans and two trucks. Every van is serviced each spring."


#: what the Run page's bar (and the runs table) says while a run executes
PROGRESS = re.compile(r"loading models|embedding chunks|answering \d+/\d+|scoring \d+/\d+|answered and scored")

#: the screenshots the README shows (docs/img), taken where RAGEVAL_SCREENSHOTS names a folder
README_SHOTS = ("home", "answers", "run", "plots", "correlations")


def _shot(page, name: str) -> None:
    """A screenshot in $RAGEVAL_SCREENSHOTS (docs/img for the README) when it is set and the README shows
    ``name``; none otherwise (each costs the browser a render)."""
    shots = os.environ.get("RAGEVAL_SCREENSHOTS")
    if shots and name in README_SHOTS:
        Path(shots).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(shots) / f"{name}.png"), full_page=False)


def _server_log(log: Path) -> str:
    """The end of the Streamlit server's output, for a failure message (a traceback, a busy project)."""
    return f"\n--- streamlit.log ---\n{log.read_text(errors='replace')[-3000:]}" if log.exists() else ""


#: the page has settled: no grey placeholder left, no script run in progress (its status icon gone)
SETTLED = ("() => !document.querySelector('[data-testid=\"stSkeleton\"], [data-testid=\"stSkeletonElement\"]')"
           " && !document.querySelector('[data-testid=\"stStatusWidgetRunningIcon\"]')")
#: two animation frames: what was drawn has been painted (a table's canvas), measured, not slept for
PAINTED = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"
#: the element at the centre of the argument is the argument itself or inside it: nothing covers it
UNCOVERED = ("el => { const r = el.getBoundingClientRect();"
             " return el.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)); }")
#: metric card titles cut short: a label whose text is wider than its box
CUT_TITLES = (
    "() => [...document.querySelectorAll('[data-testid=\"stMetricLabel\"]')].filter(el =>"
    " [el, ...el.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth + 1)).map(el => el.innerText)"
)


def _settled(page) -> None:
    """Wait on the page's state, never on a clock: placeholders gone, the run over, the frame painted."""
    page.wait_for_function(SETTLED, timeout=WAIT_MS, polling=200)
    page.evaluate(PAINTED)


def _nav(page, name: str) -> None:
    page.locator('[data-testid="stSidebarNav"] a', has_text=name).click()
    page.get_by_role("heading", name=name).wait_for()
    _settled(page)


def _toast_covers_nothing(page, button) -> None:
    """The finished-run toast, shown now, does not cover ``button`` (the one it announces)."""
    from playwright.sync_api import expect

    toast = page.locator('[data-testid="stToast"]').first
    expect(toast).to_be_visible()
    t, b = toast.bounding_box(), button.bounding_box()
    assert t and b and (t["x"] + t["width"] <= b["x"] or b["x"] + b["width"] <= t["x"]
                        or t["y"] + t["height"] <= b["y"] or b["y"] + b["height"] <= t["y"]), (t, b)
    assert button.evaluate(UNCOVERED), "something covers the button"


def test_new_user_path_from_empty_project_to_claims_with_verdicts(chromium, app, tmp_path):
    """Create a project, upload two documents and a QA set, run, open an answer, see verdicts.

    Fails with the page's text when something expected is missing, and when the page requested
    anything from a host other than 127.0.0.1.
    """
    from urllib.parse import urlsplit

    from playwright.sync_api import expect

    expect.set_options(timeout=WAIT_MS)
    for name, text in (("warehouse.txt", DOC_A), ("depot.md", DOC_B), ("questions.csv", QA_CSV)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    outside: list[str] = []
    ctx = chromium.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.set_default_timeout(WAIT_MS)
    page.on("request", lambda r: outside.append(r.url)
            if urlsplit(r.url).hostname not in ("127.0.0.1", None) and not r.url.startswith("data:") else None)
    try:
        page.goto(app.at())
        expect(page.get_by_role("heading", name="Leaderboard")).to_be_visible()
        expect(page.locator(".js-plotly-plot").first).to_be_visible()  # the runs compared
        expect(page.locator('[data-testid="stDataFrame"] canvas').first).to_be_visible()
        _settled(page)  # the table's canvas painted before the screenshot
        _shot(page, "home")

        # a project, created in plain sight; it starts empty
        field = page.get_by_role("textbox", name="New project")
        field.fill("e2e")
        field.press("Enter")
        page.get_by_role("button", name="Create").click()
        expect(page.get_by_text("Created project e2e")).to_be_visible()
        expect(page.get_by_role("heading", name="Project e2e")).to_be_visible()

        _nav(page, "Documents")
        page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
            [str(tmp_path / "warehouse.txt"), str(tmp_path / "depot.md")])
        expect(page.get_by_text("depot.md", exact=True).first).to_be_visible()
        page.get_by_role("button", name="Ingest").click()
        expect(page.get_by_text("warehouse.txt: 1 page(s)")).to_be_visible()
        expect(page.get_by_text("depot.md: 1 page(s)")).to_be_visible()

        _nav(page, "QA sets")
        page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(
            str(tmp_path / "questions.csv"))
        expect(page.get_by_text("questions.csv", exact=True).first).to_be_visible()
        page.get_by_role("button", name="Import", exact=True).click()
        expect(page.get_by_text("Imported 3 question(s) as questions.")).to_be_visible()

        _nav(page, "Run")
        expect(page.get_by_text("Everything offline: no model calls, no cost.")).to_be_visible()
        page.get_by_role("button", name="Start run").click()
        # progress (or the end) shows without a reload; how soon is a speed figure (bench/), not asserted
        expect(page.get_by_text(PROGRESS).or_(page.get_by_text("Finished:")).first).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_text("Finished:").first).to_be_visible(timeout=240_000)  # the message (and a toast)
        _toast_covers_nothing(page, page.get_by_role("button", name="Open its answers"))
        _shot(page, "run")
        page.get_by_role("button", name="Open its answers").click()

        expect(page.get_by_role("heading", name="Answers")).to_be_visible()
        expect(page.get_by_text("Claims (").first).to_be_visible()
        badges = page.locator("td span", has_text=re.compile(r"^(SUPPORTED|CONTRADICTED|NOT_MENTIONED)$"))
        expect(badges.first).to_be_visible()
        page.get_by_text("Claims (").first.scroll_into_view_if_needed()
        page.mouse.wheel(0, -350)
        _shot(page, "answers")
        page.get_by_role("tab", name="Plots").click()
        expect(page.locator(".js-plotly-plot").first).to_be_visible()
        _shot(page, "plots")

        # Correlations: no run has ratings yet, and the page says so; chosen by hand, the run gets an
        # analysis all the same (metric x metric), and its heatmap renders
        _nav(page, "Correlations")
        expect(page.get_by_text("None of the finished runs has human ratings yet")).to_be_visible()
        page.locator('[data-testid="stMultiSelect"]').first.click()
        page.get_by_role("option").first.click()
        page.keyboard.press("Escape")
        page.get_by_role("button", name="Compute and store").click()
        expect(page.get_by_role("heading", name="Agreement with the human score")).to_be_visible(timeout=WAIT_MS)
        expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=WAIT_MS)
        _shot(page, "correlations")
    except Exception as exc:  # noqa: BLE001 - playwright's timeouts too: fail with what the page showed
        raise AssertionError(f"{exc}\n--- page text ---\n{page.inner_text('body')[:4000]}"
                             f"{_server_log(app.log)}") from exc
    finally:
        ctx.close()
    assert outside == [], f"the page requested outside hosts: {sorted(set(outside))[:10]}"


def _project_runs(app: App) -> list:
    """The runs of the test's project, read through the library (the server holds no connection idle;
    the ``app`` fixture points RAGEVAL_HOME at the server's home)."""
    from rageval.store import runs as run_store

    return run_store.runs(open_project(app.project).db_path)


def test_links_ratings_and_runs_announced_across_tabs(chromium, app):
    """Two tabs on one server: a pasted link and a reload reopen a question; a rating saves and moves
    on; a run started in tab A is announced in tab B; Compare states its verdict in a sentence."""
    from playwright.sync_api import expect

    expect.set_options(timeout=WAIT_MS)
    pipeline_run = next(r.id for r in _project_runs(app) if r.kind == "pipeline")
    ctx = chromium.new_context(viewport={"width": 1280, "height": 1000})
    a, b = ctx.new_page(), ctx.new_page()
    for page in (a, b):
        page.set_default_timeout(WAIT_MS)
    try:
        # a link someone pasted: that run, that question; a reload keeps it
        a.bring_to_front()
        a.goto(app.at("answers", run=pipeline_run, question="q3"))
        expect(a.get_by_role("heading", name="Answers")).to_be_visible()
        expect(a.get_by_text("Which city did the 1669 eruption damage?").filter(visible=True).first).to_be_visible()
        a.reload()
        expect(a.get_by_text("Which city did the 1669 eruption damage?").filter(visible=True).first).to_be_visible()
        assert "question=q3" in a.url and f"run={pipeline_run}" in a.url, a.url

        # tab B rates: save and next moves to the next answer, and the address follows
        b.bring_to_front()  # a hidden tab does not paint: Chromium pauses its animation frames
        b.goto(app.at("human_review", run=pipeline_run, rater="e2e", question="q1"))
        expect(b.get_by_text("e2e: 0 of 3 answers rated")).to_be_visible()
        b.get_by_text("4 Good").click()
        b.get_by_role("button", name="Save and next").click()
        expect(b.get_by_text("e2e: 1 of 3 answers rated")).to_be_visible()
        expect(b.get_by_text("2. Where did green tea originate?").filter(visible=True).first).to_be_visible()
        expect(b).to_have_url(re.compile(r"question=q2"))

        # tab A starts a run; tab B, still on Human review, announces it with its link
        a.bring_to_front()
        a.goto(app.at("run"))
        a.get_by_role("button", name="Start run").click()
        expect(a.get_by_text(PROGRESS).or_(a.get_by_text("Finished:")).first).to_be_visible(timeout=WAIT_MS)
        b.bring_to_front()
        expect(b.get_by_text("Finished:").first).to_be_visible(timeout=900_000)  # 11 default metrics, a busy machine
        expect(b.get_by_role("button", name="Open its answers")).to_be_visible()
        _toast_covers_nothing(b, b.get_by_role("button", name="Open its answers"))  # at 1280 px

        # Compare the two pipeline runs: the verdict is a sentence, and the per-question lists
        a.bring_to_front()
        new_run = next(r.id for r in _project_runs(app)
                       if r.kind == "pipeline" and r.id != pipeline_run)
        a.goto(app.at("compare", runs=f"{pipeline_run},{new_run}", metric="token_f1"))
        expect(a.get_by_role("heading", name="Compare runs")).to_be_visible()
        expect(a.get_by_text(re.compile(r"difference|scores (higher|lower)|reliable")).first).to_be_visible()
        expect(a.get_by_role("heading", name="Per question: what got worse, what got better")).to_be_visible()
        expect(a.get_by_text(re.compile(r"^(Worse|Better) in B \(\d+\)$")).first).to_be_visible()

        # the new run's eleven metric cards at 1280 px: every title whole, none ending in "…"
        a.goto(app.at("answers", run=new_run))
        expect(a.locator('[data-testid="stMetricLabel"]').nth(10)).to_be_visible()
        _settled(a)
        assert a.evaluate(CUT_TITLES) == []
    except Exception as exc:  # noqa: BLE001 - fail with what the pages showed
        raise AssertionError(f"{exc}{_server_log(app.log)}\n--- tab A ---\n{a.inner_text('body')[:3000]}"
                             f"\n--- tab B ---\n{b.inner_text('body')[:3000]}") from exc
    finally:
        ctx.close()


def _click_another_sentence(where) -> str:
    """Click the second sentence of the evidence picker in ``where`` (the proposed one, filled, is the
    first, as the claims here carry no evidence of their own); returns its text as the label stores it."""
    from playwright.sync_api import expect

    sentences = where.locator('[class*="_ev_"][class*="_list"] button')
    expect(sentences.first).to_have_attribute("data-testid", "stBaseButton-primary")
    # the rerun of the label before it over: the list may still be drawing, and a click during a
    # rerun can be dropped (or land on the list that rerun replaces). A pick is idempotent (the
    # clicked sentence becomes the evidence), so a click that did not take is made again.
    for _ in range(3):
        _settled(where.page)
        assert sentences.count() > 1, "the contexts have one sentence only: nothing else to click"
        sentences.nth(1).click()
        try:
            expect(sentences.first).to_have_attribute("data-testid", "stBaseButton-tertiary", timeout=10_000)
            break
        except AssertionError:
            continue
    expect(sentences.nth(1)).to_have_attribute("data-testid", "stBaseButton-primary")
    expect(sentences.first).to_have_attribute("data-testid", "stBaseButton-tertiary")
    return sentences.nth(1).inner_text().strip().split("] ", 1)[1].removesuffix(" (proposed)")


def test_label_three_claims_then_see_agreement_and_the_ppi_estimate(chromium, app):
    """Human review's claim queue: two one-click labels and one by its key, its evidence changed by a click
    on another sentence; Correlations then shows the rater's claims and the verifier's agreement, and Home
    the prediction-powered estimate; on Answers a key labels the claim in the box
    (its evidence clicked) and the box moves to the next claim."""
    from playwright.sync_api import expect

    from tests.claim_fixtures import add_claims

    expect.set_options(timeout=WAIT_MS)
    pipeline_run = next(r.id for r in _project_runs(app) if r.kind == "pipeline")
    verdicts = ("SUPPORTED", "UNVERIFIED", "CONTRADICTED")
    add_claims(open_project(app.project), pipeline_run, [
        {"item_id": f"q{i}", "signature": "faithfulness|judge:heuristic|v1", "ordinal": k, "judge": "heuristic",
         "text": f"Claim {k} of answer {i}.", "verdict": verdicts[(i + k) % 3], "confidence": 1.0}
        for i in (1, 2, 3) for k in (0, 1)])
    ctx = chromium.new_context(viewport={"width": 1280, "height": 1000})
    page = ctx.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        # (before any label, Home shows no estimate and Correlations says so: tests/test_app_claims.py)
        page.goto(app.at("human_review", run=pipeline_run, rater="e2e"))
        page.get_by_role("radio", name="Claims").or_(page.get_by_role("button", name="Claims")).first.click()
        expect(page.get_by_text("6 claim(s) left for e2e")).to_be_visible()
        expect(page.get_by_text("no verdict yet (UNVERIFIED)")).to_be_visible()  # UNVERIFIED first
        for n, name in enumerate(("Supported (1)", "Not mentioned (3)")):
            page.get_by_role("button", name=name).click()
            expect(page.get_by_text(f"{5 - n} claim(s) left for e2e")).to_be_visible()
        clicked = _click_another_sentence(page.locator("body"))  # the evidence: one click on a sentence
        page.keyboard.press("2")  # the third by its key: Contradicted
        expect(page.get_by_text("3 claim(s) left for e2e")).to_be_visible()
        from rageval.store import claim_labels as cstore

        stored = cstore.labels(open_project(app.project).db_path, [pipeline_run])
        assert sorted(r["label"] for r in stored) == ["CONTRADICTED", "NOT_MENTIONED", "SUPPORTED"]
        assert next(r["evidence"] for r in stored if r["label"] == "CONTRADICTED") == clicked

        page.goto(app.at("correlations"))
        expect(page.get_by_text(re.compile(r"1 rater\(s\) labelled 3 claim\(s\)"))).to_be_visible()
        expect(page.get_by_text("Claim verifiers against people")).to_be_visible()
        expect(page.get_by_text(re.compile(r"Confusion matrix: offline rule"))).to_be_visible()
        page.goto(app.at())
        page.get_by_text("How sure these numbers are").click()  # the estimates, in words, in an expander
        expect(page.get_by_text(re.compile(r"share of claims a person calls SUPPORTED \(offline rule\): \d")).first
               ).to_be_visible()

        # Answers: the keys act on the claim in the box, which moves on after each label
        page.goto(app.at("answers", run=pipeline_run, question="q1"))
        page.get_by_text("Label these claims").click()
        page.get_by_label("Your name").fill("e2f")
        page.get_by_label("Your name").press("Enter")
        box = page.locator(".st-key-ans_claim_current")
        expect(box).to_contain_text("▶ 1. Claim 0 of answer 1.")
        clicked = _click_another_sentence(box)
        page.keyboard.press("1")
        expect(box).to_contain_text("▶ 2. Claim 1 of answer 1.")
        (row,) = [r for r in cstore.labels(open_project(app.project).db_path, [pipeline_run]) if r["rater"] == "e2f"]
        assert (row["claim"], row["label"], row["evidence"]) == ("Claim 0 of answer 1.", "SUPPORTED", clicked)
    except Exception as exc:  # noqa: BLE001 - fail with what the page showed
        raise AssertionError(f"{exc}{_server_log(app.log)}\n--- page ---\n{page.inner_text('body')[:3000]}") from exc
    finally:
        ctx.close()


#: the question the QA sets test types over the first generated one
EDITED = "Which city did the 1669 eruption partly destroy?"
#: the review table's rows are 35 px high under a 35 px header (Streamlit's data editor)
ROW_PX = 35


def _idle(page) -> None:
    """Wait until the app has finished the rerun an edit started (its status widget gone)."""
    time.sleep(0.5)
    page.locator('[data-testid="stStatusWidget"]').wait_for(state="hidden")


def test_generate_a_qa_set_edit_drop_and_save(chromium, app):
    from playwright.sync_api import expect

    from rageval.store import runs as run_store

    expect.set_options(timeout=WAIT_MS)
    ctx = chromium.new_context(viewport={"width": 1400, "height": 1400})
    try:
        page = ctx.new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(app.at())
        _nav(page, "QA sets")
        page.get_by_text("Generate from documents").click()
        expect(page.get_by_text("not a substitute for a set written by an LLM or a person")).to_be_visible()
        # the small corpus offers two sure offline questions (tests/test_app.py asks for as many)
        for label, value in (("Questions", "2"), ("Name of the new set", "reviewed")):
            box = page.get_by_label(label)
            box.fill(value)
            box.press("Enter")
        expect(page.get_by_label("Name of the new set")).to_have_value("reviewed")
        page.get_by_role("button", name="Generate").click()
        expect(page.get_by_text("Review reviewed")).to_be_visible()

        grid = page.locator('[data-testid="stDataFrame"]').first
        grid.scroll_into_view_if_needed()
        _idle(page)
        time.sleep(1.0)  # the grid draws on a canvas after its frame appears
        box = grid.bounding_box()
        row = lambda i: box["y"] + ROW_PX + ROW_PX * i + ROW_PX // 2  # noqa: E731
        editor = page.locator("#portal textarea")  # the grid's cell editor, opened by Enter
        for _ in range(10):  # the canvas takes clicks only once drawn: select the cell until it opens
            page.mouse.click(box["x"] + 150, row(0))  # the question of row 1: select, edit, replace
            page.keyboard.press("Enter")
            try:
                editor.wait_for(timeout=3000)
                break
            except Exception:
                page.keyboard.press("Escape")
        editor.fill(EDITED)
        editor.press("Enter")
        _idle(page)
        page.mouse.click(box["x"] + 30, row(1))  # row 2's keep box: select, untick
        page.keyboard.press("Space")
        _idle(page)
        page.get_by_role("button", name="Save the set").click()
        expect(page.get_by_text("Saved reviewed: 1 accepted, 1 dropped.")).to_be_visible()
        expect(page.locator('[data-testid="stDownloadButton"]', has_text="JSONL")).to_be_visible()
    except Exception as exc:
        raise AssertionError(f"{exc}{_server_log(app.log)}") from exc
    finally:
        ctx.close()
    items = run_store.qa_items(open_project(app.project).db_path, "reviewed", include_dropped=True)
    assert [it["status"] for it in items] == ["accepted", "dropped"]
    assert items[0]["question"] == EDITED and all(it["relevant"] and it["references"] for it in items)


def test_an_ingest_goes_on_while_answers_show_claims_and_hostile_text_stays_inert(chromium, app, tmp_path):
    """Upload a document on Documents and ingest it, leave at once for Answers: claims show with their
    verdicts and the project's hostile document text stays inert (no dialog, no request to another
    host); back on Documents, the ingest has finished and its report shows (it used to run inside the
    page's script run, which leaving the page stopped)."""
    from playwright.sync_api import expect

    from rageval.store import corpus as corpus_store

    expect.set_options(timeout=WAIT_MS)  # the first ingest loads the embedding model in the server
    doc = tmp_path / "depot.txt"
    doc.write_text(
        " ".join(f"Bay {i} of the depot stores {i * 7} crates of tent poles on weekdays." for i in range(300)),
        encoding="utf-8",
    )  # long enough to embed for a while
    dialogs: list[str] = []
    outside: list[str] = []
    ctx = chromium.new_context(viewport={"width": 1400, "height": 1400})
    try:
        page = ctx.new_page()
        page.set_default_timeout(WAIT_MS)
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("request", lambda r: outside.append(r.url) if "127.0.0.1:9/" in r.url else None)
        page.goto(app.at("documents"))
        expect(page.get_by_role("heading", name="Documents")).to_be_visible()
        page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(doc))
        expect(page.get_by_text("depot.txt", exact=True).first).to_be_visible()
        page.get_by_role("button", name="Ingest").click()
        # the click has started it (a click followed at once by a page change can be lost before it runs)
        expect(page.get_by_text(re.compile(r"Ingesting 1 file\(s\) into"))).to_be_visible()

        page.locator('[data-testid="stSidebarNav"] a', has_text="Answers").click()  # mid-ingest
        expect(page.get_by_role("heading", name="Answers")).to_be_visible()
        expect(page.get_by_text("entity mismatch: Japan vs China")).to_be_visible()
        contradicted = page.locator('span[title="CONTRADICTED"]', has_text="Green tea originated in Japan.")
        expect(contradicted).to_be_visible()
        # hostile text from the document and the "model" is shown as text and loads nothing
        expect(page.get_by_text("<script>alert(1)</script>", exact=False).filter(visible=True).first).to_be_visible()
        assert page.locator('img[src*="127.0.0.1:9"]').count() == 0

        _nav(page, "Documents")
        expect(page.get_by_text(re.compile(r"depot\.txt: 1 page\(s\), \d+ chunk\(s\), added"))).to_be_visible()
        db = open_project(app.project).db_path
        names = [d["name"] for c in corpus_store.corpora(db) for d in corpus_store.documents(db, c["name"])]
        assert "depot.txt" in names
    except Exception as exc:  # noqa: BLE001 - playwright's timeouts too: fail with what the page showed
        raise AssertionError(f"{exc}{_server_log(app.log)}\n--- page ---\n{page.inner_text('body')[:3000]}") from exc
    finally:
        ctx.close()
    assert dialogs == [], "a script from document text ran"
    assert outside == [], "markdown from document text loaded a resource"


def _choose(page, label: str, text: str) -> None:
    """Pick the option of the select box ``label`` that ``text`` begins, by typing it."""
    box = page.get_by_role("combobox", name=label)
    box.click()
    box.fill(text)
    page.keyboard.press("Enter")
    _idle(page)


def test_the_presenters_script(chromium, streamlit_server, monkeypatch):
    """docs/demo.md, step by step, on the demo project (loaded from its shipped snapshot into the
    server's home): each screen shows what the script says."""
    from playwright.sync_api import expect

    from rageval.demo import load_demo

    proc, url, home, _log = streamlit_server
    monkeypatch.setenv("RAGEVAL_HOME", str(home))
    built = load_demo()
    expect.set_options(timeout=WAIT_MS)
    ctx = chromium.new_context(viewport={"width": 1400, "height": 1600})
    try:
        page = ctx.new_page()
        page.set_default_timeout(WAIT_MS)
        # 1. Home: the counts, the leaderboard, the intervals in an expander
        page.goto(f"{url}/?project=demo")
        expect(page.get_by_role("heading", name="Leaderboard")).to_be_visible()
        expect(page.get_by_text("How sure these numbers are, where people labelled")).to_be_visible()
        expect(page.get_by_text(re.compile(r"% decided: the share of claims settled by a person"))).to_be_visible()
        # 2. Answers, first planted error, within two clicks of Home
        page.get_by_role("link", name="Inspect the answers: claims, evidence, worst first").click()
        expect(page.get_by_role("heading", name="Answers")).to_be_visible()
        table = page.locator("table", has_text="settled by")
        row = table.locator("tr", has_text="The Trailhead 2 weighs 2.4 kg when packed")
        expect(row.get_by_text("CONTRADICTED", exact=True)).to_be_visible()
        expect(row).to_contain_text("3 people")
        expect(row.get_by_text("offline rule: UNVERIFIED")).to_be_hidden()  # one click away
        row.get_by_text("other sources").click()
        expect(row.get_by_text("offline rule: UNVERIFIED")).to_be_visible()
        expect(row.get_by_text("Packed weight: 2.1 kg", exact=False)).to_be_visible()
        agreement = re.compile(r"offline rule: agrees with people on 100% of \d+ labelled claims")
        expect(page.get_by_text(agreement)).to_be_visible()
        expect(page.get_by_text(re.compile(r"No judge has checked these claims"))).to_be_visible()
        # 3. two more planted errors: a swapped name (red) and an unsupported addition (orange)
        for number, claim, verdict in (("12. Who founded Northwind Outfitters?", "founded by Ingrid Solberg",
                                        "CONTRADICTED"),
                                       ("11. How tall is the Grey Maiden lighthouse?",
                                        "designed by the engineer Robert Stevenson", "NOT_MENTIONED")):
            _choose(page, "Question", number.split("?")[0])
            row = page.locator("table", has_text="settled by").locator("tr", has_text=claim)
            expect(row.get_by_text(verdict, exact=True)).to_be_visible()
            expect(row).to_contain_text("3 people")
        expect(page.get_by_text("Faithfulness", exact=False).first).to_be_visible()
        # 4. what nobody has decided: one sentence, once
        _choose(page, "Question", "17. What is the retail price")
        row = page.locator("table", has_text="settled by").locator("tr", has_text="The Trailhead 2 retails for 349 EUR")
        expect(row.get_by_text("UNVERIFIED", exact=True)).to_be_visible()
        expect(page.get_by_text(re.compile(r"No claim could be decided without a judge or a person"))).to_have_count(1)
        assert built["import_run_id"] in page.url  # the address names the run the script speaks of
    finally:
        ctx.close()
