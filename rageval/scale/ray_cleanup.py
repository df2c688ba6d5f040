"""What a local Ray cluster leaves when its driver is killed with SIGKILL, and its removal.

``ray.shutdown()`` stops the processes of a local cluster and the driver removes its session
folder; a driver killed with SIGKILL does neither. Ray's raylet and GCS die with it, but the
agents they started (``ray::DashboardAgent``, ``ray::RuntimeEnvAgent``: about 230 MB together)
are adopted by init and live on, and the folder stays. So the driver that starts a local cluster
marks its session folder with itself (:func:`mark`, ``rageval-driver.json``: pid, host, process
start) and starts a small watcher process (:func:`watch`) that waits for the driver to end and
then removes what is left (:func:`clean`). Should the watcher be killed too, the next
``score --engine ray`` removes every marked folder whose driver is gone (:func:`clean_orphans`).

A process belongs to a folder when its command line names the folder or one of its open files
is inside it (the agents rename themselves, but keep their logs open there); only folders
with our mark are ever touched, so another user's cluster never is.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from rageval.settings import value
from rageval.store.owners import process_alive, this_process

MARKER = "rageval-driver.json"
# the local cluster's folder: rg-XXXXXX in the system temp folder (a short path: Unix sockets live in it)
PREFIX = "rg-"


def mark(folder: Path) -> None:
    """Record the calling process as the driver of the local cluster in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MARKER).write_text(json.dumps(this_process()), encoding="utf-8")


def driver(folder: Path) -> dict | None:
    """The driver recorded in ``folder``, or None when it holds no (readable) mark."""
    try:
        return json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def holders(folder: Path) -> list[int]:
    """Pids of the processes (not this one) whose command line names ``folder`` or that hold a file in it."""
    root = str(folder.resolve())
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        pid = int(entry.name)
        if pid == os.getpid():
            continue
        try:
            if root.encode() in (entry / "cmdline").read_bytes():
                found.append(pid)
                continue
            if any(os.readlink(fd).startswith(root + os.sep) for fd in (entry / "fd").iterdir()):
                found.append(pid)
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


def clean(folder: Path) -> list[int]:
    """Stop the processes of ``folder`` (SIGTERM, then SIGKILL after ``RAGEVAL_RAY_STOP_GRACE``
    seconds, 5 by default) and remove it; their pids. Ray's agents outlive SIGTERM by more than
    5 s, so the grace is most of a cleanup's time."""
    grace = value("RAGEVAL_RAY_STOP_GRACE")
    pids = holders(folder)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and any(_exists(pid) for pid in pids):
            time.sleep(0.1)
    shutil.rmtree(folder, ignore_errors=True)
    return pids


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie has exited; it waits only for its parent to read its status
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


def clean_orphans(base: Path = Path("/tmp")) -> list[Path]:
    """Remove every marked cluster folder under ``base`` whose driver is gone; the folders removed."""
    removed = []
    for folder in sorted(base.glob(f"{PREFIX}*")):
        owner = driver(folder)
        if owner is not None and process_alive(owner) is False:
            clean(folder)
            removed.append(folder)
    return removed


def watch(folder: Path) -> subprocess.Popen:
    """Start the watcher of ``folder`` for the calling process (its own session: a signal sent to the
    driver's process group does not reach it)."""
    here = str(Path(__file__).resolve().parents[2])  # the folder rageval is imported from
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p)}
    return subprocess.Popen([sys.executable, "-m", "rageval.scale.ray_cleanup", str(folder)], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def _watch(folder: Path, poll: float = 0.5) -> None:
    """Wait while the folder's driver lives; then remove what it left (nothing, after a clean end)."""
    owner = driver(folder)
    while owner is not None and folder.exists() and process_alive(owner) is not False:
        time.sleep(poll)
    if folder.exists() and owner is not None:
        clean(folder)


if __name__ == "__main__":
    _watch(Path(sys.argv[1]))
