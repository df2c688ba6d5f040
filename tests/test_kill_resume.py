"""A run killed with SIGKILL mid-way (a real subprocess, the fake LLM server injecting faults)
is shown `interrupted` with the resume hint, and resumes to exactly the uninterrupted results:
no item duplicated or lost, no call whose reply was already cached made again."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from rageval.cli import main
from rageval.config import RunConfig
from rageval.demo import DEMO_CORPUS, DEMO_QA
from rageval.runs.pipeline import execute, start_run
from rageval.project import open_project
from rageval.store import llm_cache, owners
from rageval.store import runs as store
from devtools.judge_responder import respond
from devtools.projects import demo_project

ROOT = Path(__file__).resolve().parents[1]
ITEMS = 16
FAULTS = {"500": 0.05, "429": 0.03, "503": 0.02}  # transient: retried, so results do not depend on them
CONFIG = dict(corpus=DEMO_CORPUS, qa_set=DEMO_QA, generator="openai:test-model", judge="openai:test-model",
              metrics=("faithfulness", "token_f1"), top_k=4, concurrency=2)  # batches of 8 items


def _project(home: Path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(home))
    return demo_project("kill", qa_items=ITEMS)


def _results(project, run_id):
    answers = [(a["item_id"], a["question"], a["answer"], a["status"], a["reason"], tuple(a["contexts"]),
                tuple(cid for cid, _ in a["retrieved"])) for a in store.answers(project.db_path, run_id)]
    scores = sorted((s["item_id"], s["metric"], s["signature"], s["value"], s["status"], s["reason"])
                    for s in store.scores(project.db_path, run_id))
    claims = sorted(
        (c["item_id"], c["ordinal"], c["text"], c["verdict"]) for c in store.claims(project.db_path, run_id)
    )
    return answers, scores, claims


def _fetched(project, run_id) -> Counter:
    """How many times each request key went to the server (not answered from the cache)."""
    return Counter(c["key"] for c in llm_cache.call_rows(project.db_path, run_id) if not c["cached"])


def _mentions(texts: list[str]):
    """The fake server's hold: a chat call whose messages contain one of ``texts``."""
    def hold(body: dict) -> bool:
        said = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
        return any(t in said for t in texts)
    return hold


def _cli(home: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "RAGEVAL_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "rageval", *args] + ["--project", "kill"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_sigkill_then_resume_equals_an_uninterrupted_run(tmp_path, monkeypatch, llm_env, capsys):
    # the reference: the same run, uninterrupted, in another home
    llm_env.script(responder=respond, seed=3, rates=FAULTS)
    ref = _project(tmp_path / "ref", monkeypatch)
    ref_run = start_run(ref, RunConfig(**CONFIG))
    assert execute(ref, ref_run).status == "finished"
    expected = _results(ref, ref_run)
    total_posts = llm_env.count("/v1/chat/completions")

    home = tmp_path / "killed"
    project = _project(home, monkeypatch)
    run_id = start_run(project, RunConfig(**CONFIG))
    llm_env.reset()
    # every call about an item after the first batch of 8 is held: the child stores that batch and can
    # go no further, so it is killed there however fast or slow the machine is
    later = [item["question"] for item in store.qa_items(project.db_path, DEMO_QA)[8:]]
    llm_env.script(responder=respond, seed=11, rates=FAULTS, latency=0.02, hold=_mentions(later))
    child = _cli(home, "run", "--resume", run_id)
    deadline = time.monotonic() + 240
    while len(store.run_state(project.db_path, run_id)[2]) < 8:  # the first batch is stored
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "the child stored no batch"
        time.sleep(0.05)
    assert llm_env.count("/v1/chat/completions") < total_posts  # it stopped short of the whole run
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    llm_env.end_latency()  # the held calls answer the dead child

    done_before = store.run_state(project.db_path, run_id)[2]  # the ids of its stored items
    assert len(done_before) == 8 < len(expected[0])
    cached_at_kill = set(llm_cache.load_index(project.db_path, ["test-model"], 10**9)[1])
    fetched_at_kill = _fetched(project, run_id)
    assert store.get_run(project.db_path, run_id).status == "running"  # as the dead process left it

    # `runs` tells it from a live run and says how to resume
    assert main(["runs", "--project", "kill"]) == 0
    out = capsys.readouterr().out
    assert f"{run_id}  interrupted" in out and f"resume with: python -m rageval run --resume {run_id}" in out
    assert "is gone" in store.get_run(project.db_path, run_id).error

    posts_before = llm_env.count("/v1/chat/completions")
    child = _cli(home, "run", "--resume", run_id, "--json")
    stdout, stderr = child.communicate(timeout=300)
    assert child.returncode == 0, stderr
    assert json.loads(stdout)["status"] == "finished"
    assert _results(project, run_id) == expected  # nothing lost, nothing duplicated, same values
    fetched = _fetched(project, run_id)
    made_again = [k for k in cached_at_kill if fetched[k] != fetched_at_kill[k]]
    assert made_again == []  # no call whose reply was stored was made again: the cache answered it
    assert set(fetched) - set(fetched_at_kill)  # the resumed process did make the missing calls
    assert llm_env.count("/v1/chat/completions") - posts_before < total_posts

    # resuming a finished run says so and runs nothing
    posts = llm_env.count()
    assert main(["run", "--resume", run_id, "--project", "kill"]) == 0
    assert "is already finished" in capsys.readouterr().out and llm_env.count() == posts


def test_a_live_owner_is_not_reaped_and_a_dead_one_is(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path))
    project = open_project("o")
    for run_id in ("live", "dead", "stale"):
        store.create_run(project.db_path, run_id, kind="pipeline", corpus="c", qa_set="q", config={},
                         config_hash="h", n_items=1)
        store.set_run_status(project.db_path, run_id, "running")
        owners.claim(project.db_path, run_id)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    from rageval.store.db import connect

    with connect(project.db_path) as con:  # fake owners: a finished process, and a silent one
        con.execute("UPDATE runs SET owner_pid = ? WHERE id = 'dead'", [int(gone.stdout)])
        con.execute("UPDATE runs SET heartbeat = heartbeat - INTERVAL 1 HOUR WHERE id = 'stale'")
    assert sorted(owners.reap(project.db_path)) == ["dead", "stale"]
    status = {r.id: r.status for r in store.runs(project.db_path)}
    assert status == {"live": "running", "dead": "interrupted", "stale": "interrupted"}


def test_the_run_pages_run_list_reaps_and_offers_resume(tmp_path, monkeypatch):
    from rageval.views.run import resumable, run_rows
    from rageval.store.db import connect

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path))
    project = open_project("o")
    store.create_run(project.db_path, "r1", kind="pipeline", corpus="c", qa_set="q", config={},
                     config_hash="h", n_items=3)
    store.set_run_status(project.db_path, "r1", "running")
    owners.claim(project.db_path, "r1")
    with connect(project.db_path) as con:
        con.execute("UPDATE runs SET heartbeat = heartbeat - INTERVAL 1 HOUR WHERE id = 'r1'")
    rows = run_rows(project)
    assert rows[0]["status"] == "interrupted" and rows[0]["resume"] == "python -m rageval run --resume r1"
    assert "no heartbeat" in rows[0]["error"]
    assert resumable(store.get_run(project.db_path, "r1"), active=False)


def test_a_lock_timeout_mid_run_marks_the_run_interrupted(tmp_path, monkeypatch, capsys):
    from rageval.runs import pipeline
    from rageval.errors import ProjectBusyError
    from devtools.projects import small_project

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    project = small_project(tmp_path)
    run_id = start_run(project, RunConfig(corpus="c", qa_set="qa", metrics=("token_f1",), top_k=2, concurrency=2))
    real, calls = pipeline._run_batch, []

    def busy_on_second(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise ProjectBusyError("the project database is in use by another process; waited 30 s")
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "_run_batch", busy_on_second)
    assert main(["run", "--resume", run_id, "--project", "t"]) == 1
    assert "in use by another process" in capsys.readouterr().err
    run = store.get_run(project.db_path, run_id)
    assert run.status == "interrupted" and f"run --resume {run_id}" in run.error and run.done == 2
    monkeypatch.setattr(pipeline, "_run_batch", real)
    assert main(["run", "--resume", run_id, "--project", "t"]) == 0
    assert store.get_run(project.db_path, run_id).status == "finished"
    assert len(store.answers(project.db_path, run_id)) == 5


def test_a_run_owned_by_another_live_process_is_refused(tmp_path, monkeypatch):
    from rageval.errors import ConfigError
    from rageval.store.db import connect

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path))
    project = open_project("o")
    store.create_run(project.db_path, "busy", kind="pipeline", corpus="c", qa_set="q",
                     config=RunConfig(corpus="c", qa_set="q").to_dict(), config_hash="h", n_items=1)
    store.set_run_status(project.db_path, "busy", "running")
    owners.claim(project.db_path, "busy")
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        start = owners.this_process()["start"] and owners._start_ticks(other.pid)
        with connect(project.db_path) as con:
            con.execute("UPDATE runs SET owner_pid = ?, owner_start = ? WHERE id = 'busy'", [other.pid, start or ""])
        try:
            execute(project, "busy")
        except ConfigError as exc:
            assert f"is being executed by process {other.pid}" in str(exc)
        else:
            raise AssertionError("a run owned by a live process was executed again")
        assert store.get_run(project.db_path, "busy").status == "running"
    finally:
        other.kill()
        other.wait()
    assert owners.reap(project.db_path) == ["busy"]  # once that process is gone, it is interrupted
