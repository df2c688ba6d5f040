"""An ingest started on the Documents page runs in the background: leaving the page does not stop
it, every page shows its progress (counted in the ingest's own units: files read, chunks embedded),
and the Documents page shows its report when it is done."""
from __future__ import annotations

import threading
import time

import pytest

from rageval.ingest import corpus as corpus_module
from rageval.project import open_project
from rageval.runs.ingest_worker import IngestJobs
from rageval.runs.worker import Progress
from rageval.store import corpus as corpus_store
from tests.test_app import app, unescape

DOC = b"The warehouse opens at 7 am on weekdays. Deliveries arrive at the north gate before noon."


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")


def _held_ingest(monkeypatch):
    """The real ingest, held at its index phase until ``release`` is set: the page is left meanwhile."""
    real, release, reached = corpus_module.ingest, threading.Event(), threading.Event()

    def held(project, corpus, *, progress=None, **kw):
        def report(phase, done, total):
            if progress is not None:
                progress(phase, done, total)
            if phase == "index" and not reached.is_set():
                reached.set()
                assert release.wait(60), "the test never released the ingest"
        return real(project, corpus, progress=report, **kw)

    monkeypatch.setattr(corpus_module, "ingest", held)
    return release, reached


def test_an_ingest_survives_leaving_the_page_and_every_page_shows_it(home, monkeypatch):
    release, reached = _held_ingest(monkeypatch)
    at = app("ing", "pages/documents.py")
    at.file_uploader(key="doc_upload").set_value([("notes.txt", DOC, "text/plain")])
    at.text_input(key="doc_corpus").set_value("manuals")
    at.run()
    at.button(key="doc_ingest").click().run()
    assert not at.exception
    assert reached.wait(60)
    at.switch_page("pages/home.py").run()  # the user leaves the page while it embeds
    assert not at.exception
    bars = [str(b.proto.text).replace("\\", "") for b in at.get("progress")]
    assert [b for b in bars if b.startswith('Ingesting 1 file(s) into "manuals": embedding chunks 0/1 ')]  # chunks
    release.set()
    for _ in range(300):  # the bar goes when the ingest ends, and the page reruns on the new data
        at.run()
        if not [b for b in at.get("progress") if "Ingesting" in str(b.proto.text)] and not at.exception:
            break
        time.sleep(0.1)
    assert {m.label: m.value for m in at.metric}["Documents"] == "1"  # stored although the page was left
    at.switch_page("pages/documents.py").run()
    assert any("notes.txt: 1 page(s)" in unescape(s.value) and "added" in s.value for s in at.success)
    frames = [d.value for d in at.dataframe]
    assert any("notes.txt" in set(f.get("name", [])) for f in frames)
    assert [c["name"] for c in corpus_store.corpora(open_project("ing").db_path)] == ["manuals"]


def test_ingest_jobs_report_progress_by_phase_and_keep_errors():
    jobs, gate = IngestJobs(), threading.Event()

    class P:
        root = "/nowhere"

    def fake(project, corpus, *, files, chunking, progress):
        progress("documents", 1, 2)
        progress("index", 3, 40)
        gate.wait(10)
        raise ValueError("disk on fire")

    job = jobs.start(P(), "c", [("a.txt", b"x"), ("b.txt", b"y")], chunking=None, ingest=fake)
    for _ in range(100):
        if job.progress.phase == "index":
            break
        time.sleep(0.01)
    assert [j.id for j in jobs.active(P())] == [job.id] and jobs.take_finished(P()) == []
    assert job.progress.short() == "embedding chunks 3/40" and 'into "c"' in job.text()
    gate.set()
    job.thread.join(10)
    (done,) = jobs.take_finished(P())
    assert done.error == "ValueError: disk on fire" and done.report is None and jobs.jobs(P()) == []
    assert Progress().update("documents", 2, 4).short() == "reading documents 2/4"
