"""Runs executing in background threads of one process (the app's server), watched from any tab.

A run started here keeps going when the browser tab that started it closes; every tab reads
its progress from :meth:`RunWorkers.progress` (in memory, per process) and its results from
the database. Progress has phases: ``starting`` (loading models, checking servers), ``index``
(embedding chunks the index lacks), ``items`` (answering and scoring) and ``done``.
ETA = (items left) x (seconds per item so far in the ``items`` phase), shown once an item is done.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace
from typing import Callable

from rageval.errors import RagevalError
from rageval.project import Project

PHASE_TEXT = {"starting": "loading models", "index": "embedding the corpus", "items": "answering and scoring",
              "done": "finished"}


@dataclass(frozen=True)
class Progress:
    phase: str = "starting"
    done: int = 0
    total: int = 0
    started: float = field(default_factory=time.monotonic)
    items_started: float | None = None  # when the items phase began
    items_at_start: int = 0             # items already stored then (a resumed run)

    def eta_seconds(self, now: float | None = None) -> float | None:
        if self.phase != "items" or self.items_started is None or self.done <= self.items_at_start:
            return None
        now = time.monotonic() if now is None else now
        per_item = (now - self.items_started) / (self.done - self.items_at_start)
        return max(self.total - self.done, 0) * per_item

    def text(self) -> str:
        """``answering and scoring 12/43 · 21 s elapsed · about 50 s left``."""
        elapsed = time.monotonic() - self.started
        what = PHASE_TEXT.get(self.phase, self.phase)
        parts = [f"{what} {self.done}/{self.total}" if self.total else what, f"{elapsed:.0f} s elapsed"]
        eta = self.eta_seconds()
        if eta is not None:
            parts.append(f"about {eta:.0f} s left")
        return " · ".join(parts)

    def fraction(self) -> float:
        return min(self.done / self.total, 1.0) if self.total and self.phase != "starting" else 0.0


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
            old = self._progress.get(key, Progress())
            new = replace(old, phase=phase, done=done, total=total)
            if phase == "items" and old.phase != "items":
                new = replace(new, items_started=time.monotonic(), items_at_start=done)
            self._progress[key] = new

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

    def progress(self, p: Project, run_id: str) -> Progress | None:
        return self._progress.get((str(p.root), run_id))

    def error(self, p: Project, run_id: str) -> str | None:
        return self._errors.get((str(p.root), run_id))

    def join(self, timeout: float | None = None) -> None:
        for t in list(self._threads.values()):
            t.join(timeout)
