"""The background run worker: phases, ETA, cancel, errors kept for the page (with a scripted execute)."""
from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from rageval.errors import ConfigError
from rageval.project import Project
from rageval.runs.worker import Progress, RunWorkers

P = Project(slug="w", root=Path("/nonexistent/w"))


def test_progress_eta_counts_only_items_done_in_this_phase():
    now = 1000.0
    p = Progress(phase="items", done=10, total=30, started=now - 50, items_started=now - 20, items_at_start=5)
    # 5 items in 20 s -> 4 s per item; 20 left -> 80 s
    assert p.eta_seconds(now) == pytest.approx(80.0)
    assert Progress(phase="starting").eta_seconds(now) is None
    assert replace(p, done=5).eta_seconds(now) is None, "no estimate before an item is done"
    assert Progress(phase="starting", total=30).fraction() == 0.0 and p.fraction() == pytest.approx(1 / 3)
    assert "loading models" in Progress().text()


def test_progress_moves_per_answer_and_per_scored_metric_and_says_so():
    p = Progress(started=0.0).update("items", 0, 10, now=0.0)
    assert (p.fraction(), p.short()) == (0.0, "0/10 answered and scored")
    p = p.update("answering", 3, 10, now=6.0)  # 3 questions answered in the first batch
    assert p.short() == "answering 3/10" and p.fraction() == pytest.approx(0.15)
    assert p.eta_seconds(6.0) == pytest.approx((10 - 1.5) * 6.0 / 1.5), "measured: 1.5 units in 6 s"
    p = p.update("answering", 4, 10, now=7.0).update("scoring", 1, 2, now=8.0)
    assert p.short() == "scoring 4/10, batch 50% scored" and p.fraction() == pytest.approx((4 * 0.75) / 10)
    p = p.update("items", 4, 10, now=9.0)  # the batch is stored
    assert p.fraction() == pytest.approx(0.4) and p.done == 4 and "4/10 answered and scored" in p.text(9.0)
    assert "answering 5/10" in p.update("answering", 5, 10).text()
    # phases before the questions show their own counts, never a stale item count
    demo = Progress().update("chunks", 6, 6).update("model", 0, 0)
    assert demo.short() == "loading the embedding model" and demo.fraction() == 0.0
    assert demo.update("index", 64, 300).short() == "embedding chunks 64/300"


def test_a_pipeline_run_reports_each_answer_and_each_metric(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    from rageval.config import RunConfig
    from rageval.runs.pipeline import execute, start_run
    from devtools.projects import small_project

    project = small_project(tmp_path, name="prog")
    run_id = start_run(project, RunConfig(corpus="c", qa_set="qa", top_k=3, metrics=("token_f1", "exact_match")))
    heard = []
    execute(project, run_id, progress=lambda *a: heard.append(a), batch_size=2)
    phases = [h[0] for h in heard]
    assert "answering" in phases and "scoring" in phases
    assert heard[-1][0] == "items" and heard[-1][1] == heard[-1][2]
    scoring = [h for h in heard if h[0] == "scoring"]
    assert scoring and all(0 < done <= of for _, done, of in scoring), "the batch's share scored"
    answering = [h[1] for h in heard if h[0] == "answering"]
    assert answering == sorted(answering) and answering[-1] == heard[-1][2]


def _wait(cond, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not cond():
        time.sleep(0.01)
    assert cond()


def test_phases_cancel_and_errors():
    gate = threading.Event()
    seen_stop = []

    def execute(project, run_id, *, progress, should_stop):
        progress("index", 0, 4)
        progress("items", 0, 3)
        gate.wait(5)
        progress("items", 1, 3)
        seen_stop.append(should_stop())
        if run_id == "bad":
            raise ConfigError("corpus 'x' does not exist")

    workers = RunWorkers()
    assert workers.start(P, "r1", execute=execute)
    assert workers.progress(P, "r1").phase in ("starting", "index", "items")
    assert not workers.start(P, "r1", execute=execute), "a run executes once at a time"
    _wait(lambda: workers.progress(P, "r1").phase == "items")
    workers.stop(P, "r1")
    assert workers.stopping(P, "r1") and workers.active(P) == ["r1"]
    gate.set()
    _wait(lambda: not workers.active(P))
    assert seen_stop == [True] and workers.progress(P, "r1").phase == "done"
    assert workers.start(P, "bad", execute=execute)
    _wait(lambda: not workers.active(P))
    assert workers.error(P, "bad") == "corpus 'x' does not exist"
