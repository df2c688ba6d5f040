"""A Ray driver killed with SIGKILL leaves no Ray process and no session folder behind: its watcher
removes them at once (a real `score --engine ray` subprocess, when Ray is installed), and the next
start removes what a killed watcher left (any process holding a file in a marked folder)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from devtools.judge_responder import respond
from rageval.scale import ray_cleanup

ROOT = Path(__file__).resolve().parents[1]


def _holder(folder: Path) -> subprocess.Popen:
    """A process that keeps a log file open in ``folder``, under a name that does not say so (as Ray's agents do)."""
    (folder / "logs").mkdir(parents=True, exist_ok=True)
    code = (f"import sys, time; f = open({str(folder / 'logs' / 'agent.log')!r}, 'w'); "
            "print('ready', flush=True); time.sleep(600)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_the_next_start_removes_a_dead_drivers_folder_and_processes_only(tmp_path):
    orphan, live, foreign = tmp_path / "rg-dead01", tmp_path / "rg-live01", tmp_path / "rg-other1"
    holders = [_holder(f) for f in (orphan, live, foreign)]
    try:
        (orphan / ray_cleanup.MARKER).write_text(json.dumps({"pid": _dead_pid(), "host": os.uname().nodename,
                                                             "start": ""}))
        ray_cleanup.mark(live)  # this process: alive
        assert ray_cleanup.holders(orphan) == [holders[0].pid]
        assert ray_cleanup.clean_orphans(tmp_path) == [orphan]
        assert holders[0].wait(timeout=30) is not None and not orphan.exists()
        assert live.exists() and foreign.exists()  # a live driver's cluster, and a folder we did not mark
        assert holders[1].poll() is None and holders[2].poll() is None
    finally:
        for h in holders:
            h.kill()
            h.wait()


def test_a_ray_driver_killed_with_sigkill_leaves_no_process_or_folder(tmp_path, llm_env):
    pytest.importorskip("ray", reason='Ray is not installed; install the extra: pip install "rageval[ray]"')
    from tests.test_scale_ray import ROWS

    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({**r, "id": f"{r['id']}-{k}"}) + "\n" for k in range(6) for r in ROWS))
    # the watcher's SIGTERM grace (5 s by default) shortened: Ray's agents outlive SIGTERM, and the
    # test asserts that they are gone afterwards, not how long they were given
    env = {**os.environ, "RAGEVAL_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT),
           "RAGEVAL_RAY_STOP_GRACE": "0.5"}
    # the judge's calls are held: the actor's first call tells that it is scoring a part, and no part
    # can finish, so the driver is killed mid-way however fast or slow the machine is
    llm_env.script(responder=respond, models=["judge-model"], hold=lambda body: True)
    log = (tmp_path / "stderr.txt").open("w")
    child = subprocess.Popen([sys.executable, "-m", "rageval", "score", str(answers), "--engine", "ray", "--metrics",
                              "token_f1,faithfulness", "--judge", "openai:judge-model", "--out", str(tmp_path / "out"),
                              "--workers", "1", "--part-rows", "20", "--progress"], cwd=ROOT, env=env,
                             stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 300
    while llm_env.count("/v1/chat/completions") == 0:  # its actor is scoring a part
        assert child.poll() is None, (tmp_path / "stderr.txt").read_text()[-2000:]
        assert time.monotonic() < deadline, "the Ray driver never started scoring"
        time.sleep(0.2)
    ours = [
        f for f in Path("/tmp").glob(f"{ray_cleanup.PREFIX}*") if (ray_cleanup.driver(f) or {}).get("pid") == child.pid
    ]
    assert len(ours) == 1
    folder = ours[0]
    left = ray_cleanup.holders(folder)
    assert len(left) >= 3  # raylet, GCS, agents, the actor
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    deadline = time.monotonic() + 120
    while folder.exists() or [p for p in left if ray_cleanup._exists(p)]:
        assert time.monotonic() < deadline, (folder.exists(), [p for p in left if ray_cleanup._exists(p)])
        time.sleep(0.5)
