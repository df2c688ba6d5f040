"""The LLM cache and call log: SQL for ``llm_cache`` / ``llm_calls`` and the buffered :class:`LLMStore`.

DuckDB allows one writing process per file and nothing may hold the file while idle, so
:class:`LLMStore` never keeps a connection open. It has three layers:

- an in-memory LRU of replies (the first place a lookup goes);
- what is on disk for the client's models, read once at first use: all the replies when they
  fit in ``preload_bytes`` of JSON (default 64 MB), so a re-run reads the file once; else only
  the keys, so a lookup that will miss costs no database access, and point reads for the keys
  on disk, coalesced: threads that look up at the same time share one ``SELECT ... IN (...)``.

Writes (new cache entries and call rows) are buffered and flushed in one transaction by a
background thread at least every ``flush_interval`` seconds (default 1 s), as soon as
``flush_rows`` cache entries (default 50; or ten times as many call rows) are waiting, and on
:meth:`LLMStore.close`. Replies are JSON
values; keys are sha256 hex strings; no API key ever reaches these tables.
"""
from __future__ import annotations

import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterable, Sequence

from rageval.store.db import connect

CALL_COLUMNS = (
    "run_id", "key", "role", "model", "tokens_in", "tokens_out",
    "latency_ms", "cached", "status", "error", "kind", "attempts",
)


# ---------------------------------------------------------------- plain SQL functions

def load_index(path: str | Path, models: Sequence[str], max_bytes: int) -> tuple[dict[str, Any] | None, set[str]]:
    """What is cached for ``models``: ``(replies, keys)`` when the replies fit in ``max_bytes``
    of JSON text (all loaded at once), else ``(None, keys)``."""
    if not models:
        return {}, set()
    where = "WHERE model IN (SELECT unnest(?::VARCHAR[]))"
    with connect(path) as con:
        size = con.execute(f"SELECT coalesce(sum(strlen(reply::VARCHAR)), 0) FROM llm_cache {where}",
                           [list(models)]).fetchone()[0]
        if size <= max_bytes:
            rows = con.execute(f"SELECT key, reply FROM llm_cache {where}", [list(models)]).fetchall()
            replies = {k: json.loads(r) for k, r in rows}
            return replies, set(replies)
        rows = con.execute(f"SELECT key FROM llm_cache {where}", [list(models)]).fetchall()
    return None, {r[0] for r in rows}


def get_replies(path: str | Path, keys: Sequence[str]) -> dict[str, Any]:
    """``{key: reply}`` for the keys that are stored."""
    if not keys:
        return {}
    with connect(path) as con:
        rows = con.execute(
            "SELECT key, reply FROM llm_cache WHERE key IN (SELECT unnest(?::VARCHAR[]))", [list(keys)]
        ).fetchall()
    return {k: json.loads(r) for k, r in rows}


def write_batch(
    path: str | Path, entries: Sequence[tuple[str, str, Any]], calls: Sequence[dict[str, Any]]
) -> None:
    """Store cache ``entries`` ``(key, model, reply)`` (first writer wins) and ``calls`` rows."""
    if not entries and not calls:
        return
    with connect(path) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            if entries:
                con.execute(
                    "INSERT OR IGNORE INTO llm_cache (key, model, reply) "
                    "SELECT k, m, r::JSON FROM (SELECT unnest(?::VARCHAR[]) AS k, "
                    "unnest(?::VARCHAR[]) AS m, unnest(?::VARCHAR[]) AS r)",
                    [[e[0] for e in entries], [e[1] for e in entries], [json.dumps(e[2]) for e in entries]],
                )
            if calls:
                cols = ", ".join(CALL_COLUMNS)
                unnests = ", ".join(f"unnest(?) AS {c}" for c in CALL_COLUMNS)
                con.execute(
                    f"INSERT INTO llm_calls ({cols}) SELECT {cols} FROM (SELECT {unnests})",
                    [[row.get(c) for row in calls] for c in CALL_COLUMNS],
                )
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise


def call_rows(path: str | Path, run_id: str | None = None) -> list[dict[str, Any]]:
    """The logged calls (of one run, or all), oldest first."""
    where, params = ("WHERE run_id = ?", [run_id]) if run_id is not None else ("", [])
    with connect(path) as con:
        cur = con.execute(f"SELECT {', '.join(CALL_COLUMNS)} FROM llm_calls {where} ORDER BY created", params)
        return [dict(zip(CALL_COLUMNS, row)) for row in cur.fetchall()]


# ---------------------------------------------------------------- the buffered store

class LLMStore:
    """Memory + DuckDB cache of replies and a buffered call log (see the module docstring).

    With ``path=None`` everything stays in memory. ``read``/``write`` switch the cache layers
    (``use_cache=False`` turns both off); call rows are always logged.
    """

    def __init__(
        self, path: str | Path | None, models: Iterable[str], *, read: bool = True, write: bool = True,
        memory_entries: int = 20000, flush_interval: float = 1.0, flush_rows: int = 50,
        preload_bytes: int = 64_000_000,
    ):
        self.path = Path(path) if path is not None else None
        self._models = sorted(set(models))
        self._read, self._write = read, write
        self._mem: OrderedDict[str, Any] = OrderedDict()
        self._mem_max = memory_entries
        self._lock = threading.Lock()
        self._disk_keys: set[str] | None = None
        self._preloaded: dict[str, Any] | None = None
        self._preload_bytes = preload_bytes
        self._absent: set[str] = set()
        self._read_cond = threading.Condition()
        self._reading = False
        self._wanted: set[str] = set()
        self._entries: list[tuple[str, str, Any]] = []
        self._calls: list[dict[str, Any]] = []
        self.log: list[dict[str, Any]] = []  # every call row of this store's lifetime
        self._flush_interval, self._flush_rows = flush_interval, flush_rows
        self._wake = threading.Condition()
        self._closed = False
        self._flush_lock = threading.Lock()
        self.flush_error: Exception | None = None
        self._flusher: threading.Thread | None = None
        if self.path is not None:
            self._flusher = threading.Thread(target=self._flush_loop, name="rageval-llm-store", daemon=True)
            self._flusher.start()

    # -- reads
    def _remember(self, key: str, reply: Any) -> None:
        with self._lock:
            self._mem[key] = reply
            self._mem.move_to_end(key)
            while len(self._mem) > self._mem_max:
                self._mem.popitem(last=False)

    def _from_memory(self, key: str) -> Any | None:
        with self._lock:
            reply = self._mem.get(key)
            if reply is not None:
                self._mem.move_to_end(key)
            return reply

    def get(self, key: str) -> Any | None:
        """The cached reply for ``key``, or None."""
        if not self._read:
            return None
        reply = self._from_memory(key)
        if reply is not None or self.path is None:
            return reply
        with self._read_cond:
            if self._disk_keys is None:
                try:
                    self._preloaded, self._disk_keys = load_index(self.path, self._models, self._preload_bytes)
                except Exception:  # noqa: BLE001 - an unreadable cache is a miss, never a failed call
                    self._disk_keys = set()
            if self._preloaded is not None:
                return self._preloaded.get(key)
            if key not in self._disk_keys:
                return None
            self._wanted.add(key)
            while True:
                reply = self._from_memory(key)
                if reply is not None or key in self._absent:
                    return reply
                if not self._reading:
                    batch = sorted(self._wanted | {key})
                    self._wanted.clear()
                    self._reading = True
                    break
                self._read_cond.wait()
        found: dict[str, Any] | None = None
        try:
            found = get_replies(self.path, batch)
        except Exception:  # noqa: BLE001 - an unreadable cache is a miss, never a failed call
            found = None
        finally:
            for k, value in (found or {}).items():
                self._remember(k, value)
            with self._read_cond:
                if found is not None:
                    self._absent.update(k for k in batch if k not in found)
                self._reading = False
                self._read_cond.notify_all()
        return (found or {}).get(key)

    # -- writes
    def put(self, key: str, model: str, reply: Any) -> None:
        """Cache a successful reply (memory now, disk at the next flush)."""
        if not self._write:
            return
        self._remember(key, reply)
        with self._read_cond:
            self._absent.discard(key)
        if self.path is not None:
            with self._wake:
                self._entries.append((key, model, reply))
                if self._due():
                    self._wake.notify()

    def log_call(self, row: dict[str, Any]) -> None:
        """Record one call (cached or not, ok or failed)."""
        row = {c: row.get(c) for c in CALL_COLUMNS}
        with self._wake:
            self.log.append(row)
            if self.path is not None:
                self._calls.append(row)
                if self._due():
                    self._wake.notify()

    def _due(self) -> bool:
        # Call rows ride along with cache entries; each flush costs ~25 ms of opening the file.
        return len(self._entries) >= self._flush_rows or len(self._calls) >= 10 * self._flush_rows

    def flush(self) -> None:
        """Write everything buffered now (one connection, one transaction)."""
        if self.path is None:
            return
        with self._flush_lock:
            with self._wake:
                entries, self._entries = self._entries, []
                calls, self._calls = self._calls, []
            try:
                write_batch(self.path, entries, calls)
            except Exception:
                with self._wake:  # keep them for the next attempt
                    self._entries[:0] = entries
                    self._calls[:0] = calls
                raise
            if entries and self._disk_keys is not None:
                with self._read_cond:
                    self._disk_keys.update(e[0] for e in entries)

    def _flush_loop(self) -> None:
        while True:
            with self._wake:
                if not self._closed and not self._due():
                    self._wake.wait(timeout=self._flush_interval)
                closed = self._closed
            try:
                self.flush()
                self.flush_error = None
            except Exception as exc:  # noqa: BLE001 - retried at the next tick; close() re-raises
                self.flush_error = exc
            if closed:
                return

    def close(self) -> None:
        """Stop the flusher and write what is left; raises if the last write fails."""
        with self._wake:
            if self._closed:
                return
            self._closed = True
            self._wake.notify()
        if self._flusher is not None:
            self._flusher.join()
        self.flush()
