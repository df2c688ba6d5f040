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
