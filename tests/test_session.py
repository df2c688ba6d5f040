"""The model session (rageval.llm.session): it opens only what the roles need, resolves the judge once,
closes its client on an error, and every part of rageval that calls a model gets the same preflight
through it (the reachability check before a role's first network call)."""
from __future__ import annotations

import json

import pytest

from rageval.config import RayOptions, RunConfig, TestsetConfig
from rageval.errors import ConfigError, RagevalError
from rageval.ingest.corpus import ingest
from rageval.llm.session import ModelSession, model_session
from rageval.runs.pipeline import execute, start_run
from rageval.runs.scoring import score_file
from rageval.scale.ray_engine import ScoreActor, llm_settings
from rageval.scoring.unit import Plan
from rageval.testsets.generate import generate_set
from rageval.types import Judge, Resources, Spec
from rageval.views import qa_sets
from devtools.projects import small_project

ROWS = [{"id": "a1", "question": "How high is Mount Etna?", "answer": "About 3,357 metres.",
         "contexts": ["Mount Etna stands about 3,357 metres high."], "reference": "3,357 metres"}]


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    return small_project(tmp_path)


def test_offline_roles_open_no_client():
    with model_session({"generator": "extractive", "judge": "heuristic", "embedder": "MiniLM"}) as session:
        assert session.llm is None
        assert session.judge == Judge() and not session.judge.online
        assert session.spec("embedder") == Spec("embedder", offline="local")
        resources = session.resources("it")
        assert (resources.judge, resources.llm, resources.language) == (session.judge, None, "it")


def test_only_the_online_roles_get_a_client(llm_env):
    roles = {"generator": "extractive", "judge": " OpenAI : test-model ", "embedder": "local"}
    with model_session(roles, concurrency=3) as session:
        assert [r for r in ("generator", "judge", "embedder") if session.llm.has_role(r)] == ["judge"]
        assert session.llm.concurrency == 3
        assert (session.judge.spec, session.judge.llm) == (Spec("judge", model="test-model"), session.llm)
        assert session.resources().judge is session.judge
    assert llm_env.count() == 0  # opening a session sends nothing: the check waits for the first call


def test_a_role_the_session_was_not_opened_for_is_offline(llm_env):
    with model_session({"judge": "openai:test-model"}) as session:
        assert not session.llm.has_role("embedder")
        assert session.spec("embedder") == Spec("embedder", offline="local")
        assert session.spec("generator") == Spec("generator", offline="extractive")


def test_the_client_is_closed_when_the_block_raises(llm_env):
    with pytest.raises(RuntimeError, match="boom"):
        with model_session({"judge": "openai:test-model"}) as session:
            assert session.llm.model("judge") == "test-model"
            raise RuntimeError("boom")
    with pytest.raises(RagevalError, match="closed"):
        session.llm.model("judge")


def test_an_unusable_spec_is_refused_before_anything_opens():
    with pytest.raises(ConfigError, match="names no model"):
        ModelSession.open({"judge": "openai:"})


def test_the_resolved_judge_hands_out_its_client_only_to_its_own_model(llm_env):
    with model_session({"judge": "openai:test-model"}) as session:
        assert session.judge.client("faithfulness", Spec("judge", model="test-model")) is session.llm
        with pytest.raises(
            ConfigError, match="configured with judge='openai:other' but the judge role runs 'test-model'"
        ):
            session.judge.client("faithfulness", Spec("judge", model="other"))
    with pytest.raises(ConfigError, match="needs an LLM judge"):
        Judge().client("hedging", Spec("judge", model="test-model"))


def test_resources_made_by_hand_get_the_judge_their_client_runs(llm_env):
    with model_session({"judge": "openai:test-model"}) as session:
        assert Resources(llm=session.llm).judge_role() == session.judge
    assert Resources().judge_role() == Judge()


# --- the same preflight everywhere: each caller's first request is the reachability check -------------

def _score(project, llm_env):
    data = "".join(json.dumps(r) + "\n" for r in ROWS).encode()
    result = score_file(project, "a.jsonl", data, ["hedging"], judge="openai:test-model")
    assert len(result.rows) == 1
    return "/v1/chat/completions"


def _upload(project, llm_env):
    data = "".join(json.dumps(r) + "\n" for r in ROWS).encode()
    result, errors = qa_sets.score_answers(project, "a.jsonl", data, metrics=["hedging"], judge="openai:test-model")
    assert result is not None and errors == []
    return "/v1/chat/completions"


def _ingest(project, llm_env):
    report = ingest(project, "remote", files=[("a.txt", b"Mount Etna stands about 3,357 metres high.")],
                    embedder="openai:test-model")
    assert report.chunks_indexed > 0
    return "/v1/embeddings"


def _run(project, llm_env):
    config = RunConfig(corpus="c", qa_set="qa", judge="openai:test-model", metrics=("hedging",), top_k=2)
    assert execute(project, start_run(project, config)).done == 5
    return "/v1/chat/completions"


def _ray_actor(project, llm_env):
    plan = Plan.make(["hedging"], judge="openai:test-model")
    actor = ScoreActor(plan.to_dict(), str(project.root / "parts"), batch_size=4, retries=0,
                       llm=llm_settings(plan, RayOptions(workers=2, concurrency=8, llm_cache=str(project.db_path))))
    assert actor.session.llm.concurrency == 4  # its share of the calls in flight
    reply = actor.resources.llm.chat("judge", [{"role": "user", "content": "ping"}])
    assert reply.status == "ok"
    actor.session.close()
    return "/v1/chat/completions"


def _testset(project, llm_env):
    config = TestsetConfig(corpus="c", name="gen", n=1, seed=1, generator="openai:test-model", kinds=("single_fact",))
    generate_set(project, config, store=False)
    return "/v1/chat/completions"


@pytest.mark.parametrize("caller", [_score, _upload, _ingest, _run, _ray_actor, _testset],
                         ids=["score", "app upload", "ingest", "pipeline run", "ray actor", "test set"])
def test_every_caller_checks_the_server_once_before_its_first_call(caller, project, llm_env):
    path = caller(project, llm_env)
    assert llm_env.count("/v1/models") == 1
    assert llm_env.count(path) >= 1


@pytest.mark.parametrize("caller", [_score, _ingest], ids=["score", "ingest"])
def test_a_server_that_refuses_the_key_fails_every_call_without_retrying(caller, project, llm_env):
    llm_env.script(require_key="another-key")
    try:
        caller(project, llm_env)
    except RagevalError as exc:  # ingest: the embedder's failure is the command's error
        assert "401" in str(exc) or "key" in str(exc).lower()
    assert llm_env.count("/v1/models") == 1
    assert llm_env.count("/v1/chat/completions") + llm_env.count("/v1/embeddings") == 0
