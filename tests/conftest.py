"""Shared pytest fixtures. Keep this file small and generic; put helpers in their own modules."""
from __future__ import annotations

import functools
import gc
import os
import sys
import threading

from rageval.embed.processes import one_blas_thread

# Before NumPy loads: one BLAS thread in the test process and every process it starts, as the
# CLI does (rageval.embed.processes: two BLAS threads were slower than one on this workload,
# and on a loaded machine idle BLAS threads spin and burn CPU), and one scoring process for
# fixtures built before any test's own fixtures run (the autouse fixture below is per test).
one_blas_thread()
os.environ["RAGEVAL_WORKERS"] = "1"
# Compiled modules are cached as Python does by default, even where the environment asks not to
# (PYTHONDONTWRITEBYTECODE): the suite starts dozens of Python processes (test processes, the CLI
# in subprocesses, servers, scoring and Ray workers), and without the cache each one compiles the
# package from source, and each test process rewrites every test module's asserts again.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

from devtools.llm_server import FakeLLMServer  # noqa: E402

# The property tests draw the same examples on every run, so CI (and `main`) cannot turn red on
# a new random draw; explore fresh examples with `python -m pytest --hypothesis-profile=explore`.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False, max_examples=200)
settings.load_profile("repeatable")


@pytest.fixture(autouse=True)
def _one_scoring_process(monkeypatch):
    """Tests score in their own process (monkeypatched embedders stay visible); the worker
    processes are tested where asked for (``workers=2``, tests/test_parallel.py)."""
    monkeypatch.setenv("RAGEVAL_WORKERS", "1")


@pytest.fixture(scope="session", autouse=True)
def _one_component_scan():
    """One scan for Streamlit custom components per test process, its result reused by every AppTest.

    Each new ``AppTest`` scans the metadata of every installed package for components (about 0.4
    CPU-s over this project's ~180 packages; a server scans once, at its start), and the suite makes
    hundreds of them. The packages do not change while the tests run, so one scan answers them all;
    the app uses no custom component, and the scan itself still runs, once."""
    from streamlit.components.v2 import manifest_scanner

    scan = functools.cache(manifest_scanner.scan_component_manifests)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(manifest_scanner, "scan_component_manifests", lambda max_workers=None: list(scan()))
        yield


@pytest.fixture(scope="session", autouse=True)
def _app_test_waits_on_its_run():
    """AppTest waits for its script run by told, not by asking: the end of the run sets an event.

    Streamlit's ``require_widgets_deltas`` polls every millisecond, each poll scanning every event
    of the run so far, and each wake-up takes the GIL from the script thread it waits for. This
    wait returns at the same moment (the run's SHUTDOWN event) and times out the same way (the run
    stopped and joined, then the same RuntimeError)."""
    from streamlit.runtime.scriptrunner import ScriptRunnerEvent
    from streamlit.testing.v1 import local_script_runner

    def wait(runner, timeout: float = 3) -> None:
        over = threading.Event()

        def seen(sender, event, **kwargs) -> None:
            if event == ScriptRunnerEvent.SHUTDOWN:
                over.set()

        runner.on_event.connect(seen, weak=False)
        try:  # connected first, then asked: a SHUTDOWN before either is in the record
            if runner.script_stopped() or over.wait(timeout):
                return
        finally:
            runner.on_event.disconnect(seen)
        runner.request_stop()
        runner.join()
        raise RuntimeError(f"AppTest script run timed out after {timeout}(s)")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(local_script_runner, "require_widgets_deltas", wait)
        yield


@pytest.fixture(scope="session")
def llm_server():
    """One fake OpenAI-compatible server on 127.0.0.1 for the whole session (see devtools/llm_server.py)."""
    server = FakeLLMServer().start()
    yield server
    server.stop()


@pytest.fixture
def fake_llm(llm_server):
    """The session's fake LLM server, reset to defaults before and after the test; script it with
    ``fake_llm.script(responder=..., plan={n: "429"}, rates={...}, latency=...)``."""
    llm_server.reset()
    yield llm_server
    llm_server.reset()


@pytest.fixture
def llm_env(fake_llm, monkeypatch):
    """OPENAI_BASE_URL / OPENAI_API_KEY pointing every role at the fake server (per-role variables unset)."""
    for role in ("GENERATOR", "JUDGE", "EMBEDDER"):
        monkeypatch.delenv(f"RAGEVAL_{role}_BASE_URL", raising=False)
        monkeypatch.delenv(f"RAGEVAL_{role}_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    return fake_llm


#: test modules that hold the suite's longest tests (browser, Ray, killed runs, demo builds) and
#: the seconds each took in an idle run of the whole suite on 2 cores (setup + call + teardown of its
#: tests, ``python -m pytest --durations=0``, summed and rounded); only their order and rough size matter.
LONG_MODULES = {"test_browser.py": 100, "test_scale_ray.py": 55, "test_browser_access.py": 54,
                "test_demo_snapshot.py": 25, "test_app_claims.py": 17, "test_kill_resume.py": 15,
                "test_llm_connection.py": 14, "test_embed_fused.py": 13, "test_ray_cleanup.py": 13,
                "test_app.py": 11, "test_parallel.py": 11, "test_hostile_ingest_lock.py": 8, "test_settled.py": 8,
                "test_app_demo_claims.py": 8, "test_pipeline.py": 5, "test_score_resume.py": 5, "test_limits.py": 5,
                "test_cli_human.py": 4}


def long_first_blocks(items: list, workers: int) -> list:
    """``items`` ordered so that each test process starts on its share of the long modules.

    pytest-xdist's ``worksteal`` hands the collected list out in contiguous blocks, the ``i``-th of
    ``remaining // (workers - i)`` items, and a process that runs out takes tests from the end of
    another's queue. So the long modules are shared among the blocks (longest first, each to the block
    with the least long seconds so far), each block opens with its long modules, and the other tests
    fill the blocks in their collected order: no process runs every long test while the other
    waits for work, and no long test starts last. A long module's tests stay together and in their
    order (its fixtures are set up once); the other tests keep their collected order (a module cut by
    a block's end sets up its module fixtures in both processes, as stealing may also do). One
    process: the long modules first."""
    by_module: dict[str, list] = {}
    for item in items:
        by_module.setdefault(item.path.name, []).append(item)
    long = sorted((m for m in by_module if m in LONG_MODULES), key=lambda m: -LONG_MODULES[m])
    loads, shares = [0] * workers, [[] for _ in range(workers)]
    for module in long:
        i = loads.index(min(loads))
        loads[i] += LONG_MODULES[module]
        shares[i].extend(by_module[module])
    rest = [item for item in items if item.path.name not in LONG_MODULES]
    out, remaining = [], len(items)
    for i, share in enumerate(shares):
        size = remaining // (workers - i)
        fill = max(0, size - len(share))
        block = share + rest[:fill]
        rest = rest[fill:]
        out.extend(block)
        remaining -= len(block)
    return out + rest


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one test process more than the cores this process may use. A third of the suite's
    time in a test process is spent waiting (on a browser, a Streamlit or Ray process, a killed child,
    a fake server's latency), and the extra process runs tests on the cores left free meanwhile."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores + 1


def pytest_collection_modifyitems(config, items):
    """Order the tests by :func:`long_first_blocks` for this run's number of test processes."""
    workers = getattr(config, "workerinput", {}).get("workercount", 1)
    ordered = long_first_blocks(items, workers)
    # the order may change, never the tests: each collected test once, a long module's tests in their order
    assert sorted(map(id, ordered)) == sorted(map(id, items)), "the scheduler lost or repeated a test"
    assert all([i for i in ordered if i.path.name == m] == [i for i in items if i.path.name == m]
               for m in LONG_MODULES), "the scheduler reordered a long module's tests"
    items[:] = ordered


def pytest_collection_finish(session):
    """What collection imported (about a million objects: scipy, pandas, streamlit, Ray, the test
    modules) lives until the process ends, so it is moved out of the garbage collector's sight: each
    full collection then walks only what the tests made (``gc.freeze``; about 11 CPU-s were spent
    in the collector over a whole run before)."""
    gc.collect()
    gc.freeze()
