"""Runs executing in background threads of one process (the app's server), watched from any tab.

A run started here keeps going when the browser tab that started it closes; every tab reads
its progress from :meth:`RunWorkers.progress` (in memory, per process) and its results from
the database. Progress has phases: ``starting`` (loading models, checking servers), ``index``
(embedding chunks the index lacks), ``items`` (answers stored),
``answering`` and ``scoring`` (per answer, per metric of a batch) and ``done``; see :class:`Progress`.
The ETA is measured: work left x seconds per unit of work done so far.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace
from typing import Callable

from rageval.errors import RagevalError
from rageval.project import Project

PHASE_TEXT = {"starting": "loading models", "model": "loading the embedding model", "documents": "reading documents",
              "chunks": "chunking documents", "index": "embedding chunks", "items": "answering and scoring",
              "answering": "answering", "scoring": "scoring", "done": "finished"}
ITEM_PHASES = ("items", "answering", "scoring")


@dataclass(frozen=True)
class Progress:
    """Where a run (or the demo build) stands, from the callbacks ``(phase, done, total)`` it hears.

    Item phases count work on the run's questions: ``items`` (``done`` answers stored of ``total``),
    ``answering`` (answers generated so far, stored ones included) and ``scoring`` (``scored`` of
    ``metrics`` units of the batch being scored: metrics done, or rows back from worker processes).
    The bar's work units are
    ``stored + (answered - stored) * (1 + scored / metrics) / 2``: an answered question is half done,
    a scored one fully. Other phases (``model``, ``documents``, ``chunks``, ``index``) show their own
    counts. ETA = (total - units) x (seconds per unit measured since the item phases began).
    """
    phase: str = "starting"
    done: int = 0        # answers stored
    total: int = 0       # questions of the run
    answered: int = 0    # answers generated, stored ones included
    scored: int = 0      # units of the batch being scored done (metrics, or rows from worker processes)
    metrics: int = 0
    step_done: int = 0   # counts of the other phases
    step_total: int = 0
    started: float = field(default_factory=time.monotonic)
    items_started: float | None = None  # when the item phases began
    items_at_start: float = 0.0         # work units already done then (a resumed run)

    def update(self, phase: str, done: int, total: int, now: float | None = None) -> "Progress":
        """The state after hearing ``(phase, done, total)``."""
        if phase == "items":
            new = replace(self, phase=phase, done=done, total=total, answered=max(self.answered, done), scored=0)
        elif phase == "answering":
            new = replace(self, phase=phase, answered=done, total=total, scored=0)
        elif phase == "scoring":
            new = replace(self, phase=phase, scored=done, metrics=total)
        else:
            return replace(self, phase=phase, step_done=done, step_total=total)
        if self.items_started is None:
            new = replace(new, items_started=time.monotonic() if now is None else now, items_at_start=new.units())
        return new

    def units(self) -> float:
        share = self.scored / self.metrics if self.metrics and self.phase == "scoring" else 0.0
        return self.done + max(self.answered - self.done, 0) * (1.0 + share) / 2.0

    def eta_seconds(self, now: float | None = None) -> float | None:
        if self.phase not in ITEM_PHASES or self.items_started is None:
            return None
        measured = self.units() - self.items_at_start
        if measured <= 0:
            return None
        now = time.monotonic() if now is None else now
        return max(self.total - self.units(), 0.0) * (now - self.items_started) / measured

    def short(self) -> str:
        """What the runs table shows for a run executing here: ``answering 3/10``, ``embedding chunks 64/300``."""
        what = PHASE_TEXT.get(self.phase, self.phase)
        if self.phase == "answering":
            return f"answering {self.answered}/{self.total}"
        if self.phase == "scoring":
            return f"scoring {self.answered}/{self.total}" + (
                f", batch {100 * self.scored // self.metrics}% scored" if self.metrics else "")
        if self.phase == "items":
            return f"{self.done}/{self.total} answered and scored"
        return f"{what} {self.step_done}/{self.step_total}" if self.step_total else what

    def text(self, now: float | None = None) -> str:
        """``answering 7/10 · 3/10 stored · 21 s elapsed · about 30 s left`` (the left part measured)."""
        now = time.monotonic() if now is None else now
        parts = [self.short()]
        if self.phase in ("answering", "scoring"):
            parts.append(f"{self.done}/{self.total} stored")
        parts.append(f"{now - self.started:.0f} s elapsed")
        eta = self.eta_seconds(now)
        if eta is not None:
            parts.append(f"about {eta:.0f} s left")
        return " · ".join(parts)

    def fraction(self) -> float:
        if self.phase in ITEM_PHASES:
            return min(self.units() / self.total, 1.0) if self.total else 0.0
        if self.phase == "done":
            return 1.0
        return min(self.step_done / self.step_total, 1.0) if self.step_total else 0.0


class RunWorkers:
    """Runs executing in threads of this process, so closing a tab never stops them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._threads: dict[tuple[str, str], threading.Thread] = {}
        self._errors: dict[tuple[str, str], str] = {}
        self._stop: set[tuple[str, str]] = set()
        self._progress: dict[tuple[str, str], Progress] = {}

    def start(self, p: Project, run_id: str, *, execute: Callable | None = None) -> bool:
        """Start (or resume) ``run_id`` unless it is already executing here; True when started."""
        if execute is None:
            from rageval.runs.pipeline import execute

        key = (str(p.root), run_id)

        def report(phase: str, done: int, total: int) -> None:
            self._progress[key] = self._progress.get(key, Progress()).update(phase, done, total)

        def work() -> None:
            try:
                execute(p, run_id, progress=report, should_stop=lambda: key in self._stop)
                old = self._progress.get(key, Progress())
                self._progress[key] = replace(old, phase="done")
            except BaseException as exc:  # noqa: BLE001 - kept for the page; the run is marked failed
                self._errors[key] = str(exc) if isinstance(exc, RagevalError) else f"{type(exc).__name__}: {exc}"
            finally:
                self._stop.discard(key)

        with self._lock:
            if key in self._threads and self._threads[key].is_alive():
                return False
            self._errors.pop(key, None)
            self._progress[key] = Progress()
            thread = threading.Thread(target=work, name=f"rageval-run-{run_id}", daemon=True)
            self._threads[key] = thread
            thread.start()
        return True

    def stop(self, p: Project, run_id: str) -> None:
        """Ask the run to stop after its current batch (it is then ``interrupted`` and resumable)."""
        self._stop.add((str(p.root), run_id))

    def stopping(self, p: Project, run_id: str) -> bool:
        return (str(p.root), run_id) in self._stop

    def active(self, p: Project) -> list[str]:
        with self._lock:
            return [rid for (root, rid), t in self._threads.items() if root == str(p.root) and t.is_alive()]

    def live(self, p: Project) -> dict[str, Progress]:
        """``{run id: progress}`` of the runs of ``p`` executing here now (what the runs table shows)."""
        return {rid: self._progress.get((str(p.root), rid)) or Progress() for rid in self.active(p)}

    def progress(self, p: Project, run_id: str) -> Progress | None:
        return self._progress.get((str(p.root), run_id))

    def error(self, p: Project, run_id: str) -> str | None:
        return self._errors.get((str(p.root), run_id))

    def join(self, timeout: float | None = None) -> None:
        for t in list(self._threads.values()):
            t.join(timeout)
