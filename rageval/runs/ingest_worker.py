"""Ingests running in background threads of one process (the app's server), watched from any page.

An ingest started on the Documents page goes on when the user leaves the page or closes the tab,
as a run does (:mod:`rageval.runs.worker`): every page reads its progress from
:meth:`IngestJobs.active` and the Documents page shows its report when it ends. Its progress is a
:class:`rageval.runs.worker.Progress` fed by the ingest's own callbacks, so each phase counts its
own unit: ``documents`` (files read), ``chunks`` (documents chunked), ``index`` (chunks embedded
and added).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from rageval.config import ChunkingConfig
from rageval.errors import RagevalError
from rageval.project import Project
from rageval.runs.worker import Progress


@dataclass
class IngestJob:
    """One ingest: its corpus and files, its progress, and when it has ended its report or error."""

    id: str
    corpus: str
    names: tuple[str, ...]
    progress: Progress = field(default_factory=Progress)
    report: Any = None  # the IngestReport, once finished
    error: str | None = None
    thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def text(self) -> str:
        """``Ingesting 3 file(s) into "handbook": embedding chunks 64/300 · 12 s elapsed``."""
        return f'Ingesting {len(self.names)} file(s) into "{self.corpus}": {self.progress.text()}'


class IngestJobs:
    """The ingests of this process, per project; finished ones are kept until their report is taken."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[tuple[str, str], IngestJob] = {}
        self._count = 0

    def start(self, p: Project, corpus: str, files: Sequence[tuple[str, bytes]], *, chunking: ChunkingConfig,
              ingest: Callable[..., Any] | None = None) -> IngestJob:
        """Start ingesting ``files`` (name, bytes) into ``corpus`` in a background thread."""
        if ingest is None:
            from rageval.ingest.corpus import ingest

        with self._lock:
            self._count += 1
            job = IngestJob(f"ingest-{self._count}", corpus, tuple(name for name, _ in files))
            self._jobs[(str(p.root), job.id)] = job

        def report(phase: str, done: int, total: int) -> None:
            job.progress = job.progress.update(phase, done, total)

        def work() -> None:
            try:
                job.report = ingest(p, corpus, files=list(files), chunking=chunking, progress=report)
                job.progress = job.progress.update("done", 0, 0)
            except BaseException as exc:  # noqa: BLE001 - kept for the page, which says it
                job.error = str(exc) if isinstance(exc, RagevalError) else f"{type(exc).__name__}: {exc}"

        job.thread = threading.Thread(target=work, name=f"rageval-{job.id}", daemon=True)
        job.thread.start()
        return job

    def jobs(self, p: Project) -> list[IngestJob]:
        with self._lock:
            return [j for (root, _), j in self._jobs.items() if root == str(p.root)]

    def active(self, p: Project) -> list[IngestJob]:
        """The ingests of ``p`` running now."""
        return [j for j in self.jobs(p) if j.running]

    def take_finished(self, p: Project) -> list[IngestJob]:
        """The ingests of ``p`` that ended since last asked (each returned once, then forgotten)."""
        with self._lock:
            done = [(k, j) for k, j in self._jobs.items() if k[0] == str(p.root) and not j.running]
            for k, _ in done:
                del self._jobs[k]
        return [j for _, j in done]

    def join(self, timeout: float | None = None) -> None:
        for j in list(self._jobs.values()):
            if j.thread is not None:
                j.thread.join(timeout)
