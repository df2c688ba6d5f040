"""Shared pytest fixtures. Keep this file small and generic; put helpers in their own modules."""
from __future__ import annotations

import os

from rageval.embed.processes import one_blas_thread

# Before NumPy loads: one BLAS thread in the test process and every process it starts, as the
# CLI does (rageval.embed.processes: two BLAS threads were slower than one on this workload,
# and on a loaded machine idle BLAS threads spin and burn CPU), and one scoring process for
# fixtures built before any test's own fixtures run (the autouse fixture below is per test).
one_blas_thread()
os.environ["RAGEVAL_WORKERS"] = "1"

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


@pytest.fixture(scope="session")
def xenc_verifier():
    """The opt-in NLI cross-encoder verifier (RAGEVAL_CLAIM_VERIFIER=xenc) over the local MiniLM
    embedder (one per session)."""
    from rageval.claims.verifier import shipped_verifier
    from rageval.embed.cache import make_embedder

    return shipped_verifier(make_embedder("local"))


#: test modules that hold the suite's longest tests (browser, Ray, killed runs, demo builds), longest
#: first, measured with ``--durations``. They run first: under ``--dist worksteal`` a long test started
#: last keeps one test process busy after the other has run out of tests.
LONG_FIRST = ("test_browser.py", "test_kill_resume.py", "test_scale_ray.py", "test_app_demo_claims.py",
              "test_pipeline.py", "test_ray_cleanup.py", "test_browser_testsets.py", "test_app_claims.py",
              "test_embed_fused.py", "test_cli_human.py", "test_limits.py", "test_score_resume.py")


def pytest_collection_modifyitems(items):
    """Run the modules of :data:`LONG_FIRST` first, in its order; every module's tests stay together
    and in their order (so module fixtures are set up once)."""
    rank = {name: i for i, name in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
