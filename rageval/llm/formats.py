"""Which structured-output mode each (server, model) speaks, remembered in the project's cache.

Modes, best first (:data:`rageval.llm.replies.MODES`): ``json_schema`` (the reply model's JSON
schema as ``response_format``), ``json_object`` (JSON mode), ``prompt`` (the prompt alone). A
server starts in the best mode; each 400 that rejects a mode's ``response_format`` moves it down
one, for every thread at once. A rejection is stored as a write-once cache fact under sha256 of
``{"kind": "format_rejected", "server", "model", "mode"}``, so the next run (and its
signatures, which carry ``out:MODE``) starts in the mode the last one ended in, with no call
to find out.
"""
from __future__ import annotations

import logging
import threading
from typing import Any

from rageval.llm.replies import MODES, request_key

log = logging.getLogger("rageval.llm")


def rejected_key(where: tuple[str, str], mode: str) -> str:
    return request_key({"kind": "format_rejected", "server": where[0], "model": where[1], "mode": mode})


class OutputModes:
    """The mode of each ``(server, model)`` (see the module doc); ``store`` is the LLM cache."""

    def __init__(self, store: Any):
        self._store = store
        self._modes: dict[tuple[str, str], str] = {}
        self._lock = threading.Lock()

    def get(self, where: tuple[str, str]) -> str:
        with self._lock:
            if where in self._modes:
                return self._modes[where]
        mode = next((m for m in MODES[:-1] if self._store.get(rejected_key(where, m)) is None), MODES[-1])
        with self._lock:
            return self._modes.setdefault(where, mode)

    def downgrade(self, where: tuple[str, str], rejected: str, detail: str) -> None:
        """The server rejected ``rejected``: use the next mode from now on (once, for all threads)."""
        new = MODES[min(MODES.index(rejected) + 1, len(MODES) - 1)]
        self.get(where)  # load what the cache knows first
        with self._lock:
            if MODES.index(self._modes[where]) >= MODES.index(new):
                return
            self._modes[where] = new
        for mode in MODES[:MODES.index(new)]:
            self._store.put(rejected_key(where, mode), where[1], {"rejected": True})
        log.info("the server at %s rejected response_format %s for %s (%s); asking with %s from now on",
                 where[0], rejected, where[1], detail[:120], new)
