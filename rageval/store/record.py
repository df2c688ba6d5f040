"""A stored run as a typed record: :class:`Run`, whose ``config`` is a RunConfig (a pipeline run)
or an ImportConfig (answers scored from a file), read from its JSON once, here."""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence

from rageval.config import ImportConfig, RunConfig, stored_config

#: the columns :meth:`Run.from_row` reads, in order (``r`` is the runs table)
COLUMNS = (
    "r.id, r.kind, r.corpus, r.qa_set, r.config, r.config_hash, r.status, r.n_items, r.error,"
    " r.created, r.started, r.finished,"
    " (SELECT count(*) FROM answers a WHERE a.run_id = r.id),"
    " (SELECT count(*) FROM answers a WHERE a.run_id = r.id AND a.status = 'failed')"
)


@dataclass(frozen=True)
class Run:
    """One run as the store holds it: ``n_items`` questions planned, ``done`` answers stored, of
    which ``failed`` failed; ``status`` is pending, running, finished, failed or interrupted;
    ``started`` and ``finished`` are None until the run gets there."""

    id: str
    kind: str  # "pipeline" (retrieve, generate, score) or "import" (answers scored from a file)
    corpus: str | None
    qa_set: str | None
    config: RunConfig | ImportConfig
    config_hash: str
    status: str
    n_items: int
    error: str | None = None
    created: datetime | None = None
    started: datetime | None = None
    finished: datetime | None = None
    done: int = 0
    failed: int = 0

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> "Run":
        """The run of a row of :data:`COLUMNS`."""
        (run_id, kind, corpus, qa_set, config, config_hash, status, n_items, error, created, started,
         finished, done, failed) = row
        typed = stored_config(kind, json.loads(config) if config else {}, corpus=corpus, qa_set=qa_set)
        return cls(id=run_id, kind=kind, corpus=corpus, qa_set=qa_set, config=typed, config_hash=config_hash,
                   status=status, n_items=int(n_items), error=error, created=created, started=started,
                   finished=finished, done=int(done), failed=int(failed))
