"""Who executes a run: its owner process (pid, host, start time) and heartbeat (migration 004).

A run that dies (SIGKILL, out of memory, a lost lock) cannot say so itself. So the process
executing a run records itself when it starts (:func:`claim`) and beats every
``RAGEVAL_HEARTBEAT`` seconds (default 10; :class:`Heartbeat`). A ``running`` run is *dead*
when

* its owner ran on this host and that process is gone (no such pid, or a pid reused by a
  process that started at another time: Linux ``/proc/<pid>/stat`` start ticks), or
* its heartbeat is older than ``RAGEVAL_RUN_STALE`` seconds (default 120; the only test
  possible for an owner on another host, and the one that catches a live process whose run
  thread stopped).

:func:`reap` marks dead runs ``interrupted`` (with the reason in ``error``) so that every
listing shows them as such, with the command that resumes them (:func:`resume_hint`: ``run
--resume ID`` for a pipeline run, ``score INPUT --resume ID`` for a stored ``score``).
"""
from __future__ import annotations

import json
import os
import shlex
import socket
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rageval.config import ImportConfig, RunConfig, stored_config
from rageval.settings import value as setting
from rageval.store.db import connect


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def _start_ticks(pid: int) -> str | None:
    """The start time of process ``pid`` in clock ticks since boot (Linux), else None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = data.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else None  # field 22 of stat; 3rd after the name is index 0


def this_process() -> dict[str, Any]:
    """``{"pid", "host", "start"}`` of the calling process."""
    pid = os.getpid()
    return {"pid": pid, "host": socket.gethostname(), "start": _start_ticks(pid) or ""}


def process_alive(owner: dict[str, Any]) -> bool | None:
    """True/False for an owner on this host; None when it ran elsewhere (cannot be checked)."""
    if not owner.get("pid") or owner.get("host") != socket.gethostname():
        return None
    pid = int(owner["pid"])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by someone else
    start = _start_ticks(pid)
    if owner.get("start") and start is not None and start != owner["start"]:
        return False  # the pid was reused by a newer process
    if start is None and os.path.isdir("/proc"):
        return False
    return True


def stale_after() -> float:
    return setting("RAGEVAL_RUN_STALE")


def heartbeat_interval() -> float:
    return setting("RAGEVAL_HEARTBEAT")


def claim(db: Path, run_id: str) -> None:
    """Record the calling process as the owner of ``run_id``, with a fresh heartbeat."""
    me = this_process()
    with connect(db) as con:
        con.execute(
            "UPDATE runs SET owner_pid = ?, owner_host = ?, owner_start = ?, heartbeat = ? WHERE id = ?",
            [me["pid"], me["host"], me["start"], _now(), run_id],
        )


def beat(db: Path, run_id: str) -> None:
    with connect(db) as con:
        con.execute("UPDATE runs SET heartbeat = ? WHERE id = ? AND owner_pid = ?", [_now(), run_id, os.getpid()])


def owner(db: Path, run_id: str) -> dict[str, Any] | None:
    """The recorded owner of ``run_id`` (pid, host, start, heartbeat, status), or None."""
    with connect(db) as con:
        row = con.execute(
            "SELECT owner_pid, owner_host, owner_start, heartbeat, status FROM runs WHERE id = ?", [run_id]
        ).fetchone()
    if row is None:
        return None
    return dict(zip(("pid", "host", "start", "heartbeat", "status"), row))


def dead_reason(info: dict[str, Any], *, now: datetime | None = None) -> str | None:
    """Why the owner of a ``running`` run is gone, or None while it looks alive."""
    if not info.get("pid"):
        return None  # a run from before owners were recorded: nothing to tell
    alive = process_alive(info)
    if alive is False:
        return f"its process {info['pid']} on {info['host']} is gone"
    beat_at = info.get("heartbeat")
    if beat_at is not None:
        age = ((now or _now()) - beat_at).total_seconds()
        if age > stale_after():
            return f"no heartbeat from process {info['pid']} on {info['host']} for {age:.0f} s"
    return None


def resume_hint(run_id: str, config: RunConfig | ImportConfig) -> str:
    """The command that resumes run ``run_id`` of typed ``config``.

    A pipeline run: ``python -m rageval run --resume ID``. A stored ``score`` (an ImportConfig):
    ``python -m rageval score INPUT --resume ID``, INPUT being the file it read (its path when
    the CLI stored it, else its name, as the app's uploads have no path).
    """
    if isinstance(config, ImportConfig):
        return f"python -m rageval score {shlex.quote(config.input or config.source)} --resume {run_id}"
    return f"python -m rageval run --resume {run_id}"


def other_live_owner(db: Path, run_id: str) -> dict[str, Any] | None:
    """The owner of ``run_id`` when another process, still alive, is executing it; else None."""
    info = owner(db, run_id)
    if not info or info["status"] != "running" or not info["pid"]:
        return None
    me = this_process()
    if (info["pid"], info["host"]) == (me["pid"], me["host"]) or dead_reason(info):
        return None
    return info


def reap(db: Path) -> list[str]:
    """Mark every ``running`` run whose owner is gone as ``interrupted``; returns their ids."""
    with connect(db) as con:
        rows = con.execute(
            "SELECT id, owner_pid, owner_host, owner_start, heartbeat, kind, config FROM runs WHERE status = 'running'"
        ).fetchall()
    dead = []
    for run_id, pid, host, start, beat_at, kind, config in rows:
        reason = dead_reason({"pid": pid, "host": host, "start": start, "heartbeat": beat_at})
        if reason:
            hint = resume_hint(run_id, stored_config(kind, json.loads(config or "{}")))
            dead.append((run_id, f"interrupted: {reason}; resume with: {hint}"))
    if dead:
        with connect(db) as con:
            for run_id, reason in dead:
                con.execute("UPDATE runs SET status = 'interrupted', error = ?, finished = ? "
                            "WHERE id = ? AND status = 'running'", [reason, _now(), run_id])
    return [run_id for run_id, _ in dead]


class Heartbeat:
    """A daemon thread that calls :func:`beat` every :func:`heartbeat_interval` seconds."""

    def __init__(self, db: Path, run_id: str):
        self._db, self._run_id = db, run_id
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"rageval-heartbeat-{run_id}", daemon=True)

    def start(self) -> "Heartbeat":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def __enter__(self) -> "Heartbeat":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _loop(self) -> None:
        while not self._stop.wait(heartbeat_interval()):
            try:
                beat(self._db, self._run_id)
            except Exception:  # a busy database skips one beat; staleness needs many
                continue
