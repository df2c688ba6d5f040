"""Judged runs against the LLM test server: zero calls for cached work, the estimate is a
true upper bound, and the calls of all metrics go through the one pool together."""
import pytest

from rageval.config import RunConfig
from rageval.demo import DEMO_CORPUS, DEMO_QA
from rageval.runs.pipeline import estimate, execute, start_run
from rageval.store import runs as store
from devtools.judge_responder import respond
from devtools.projects import demo_project

FOUR = ("faithfulness", "ragas_answer_correctness", "ragas_answer_relevance", "context_relevance")


@pytest.fixture(scope="module")
def judged_project(tmp_path_factory):
    """One demo project for the module (devtools.projects.demo_project); each test uses its own
    model names, so no test replays another's cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGEVAL_HOME", str(tmp_path_factory.mktemp("judged") / "home"))
        yield demo_project("judged")


def _config(metrics=FOUR, model="test-model", **kw):
    return RunConfig(corpus=DEMO_CORPUS, qa_set=DEMO_QA, generator=f"openai:{model}", judge=f"openai:{model}",
                     metrics=metrics, top_k=4, **kw)


def test_unchanged_rerun_makes_zero_calls_not_even_the_reachability_check(judged_project, llm_env):
    llm_env.script(responder=respond)
    first = start_run(judged_project, _config())
    assert execute(judged_project, first).done == 43
    assert llm_env.count("/v1/models") == 1  # the reachability check ran once, before the first call
    llm_env.reset().script(responder=respond)
    rerun = start_run(judged_project, _config())
    assert execute(judged_project, rerun).done == 43
    assert llm_env.count() == 0  # every request path: chat, embeddings and /v1/models
    def values(run):
        return {(s["item_id"], s["metric"]): s["value"] for s in store.scores(judged_project.db_path, run)}

    assert values(rerun) == values(first)


ALL_JUDGED = FOUR + ("contradicted_share", "not_mentioned_share", "groundedness", "answer_relevance", "hedging",
                     "answer_equivalence")


def test_a_judged_run_never_makes_more_calls_than_its_estimate(judged_project, llm_env):
    llm_env.script(responder=respond)
    config = _config(ALL_JUDGED, model="estimate-model")
    est = estimate(judged_project, config)
    by_role = {e.role: e.calls for e in est.roles}
    # per item: generator 1; context_relevance 4 (top_k); the faithfulness family 1 + 40/8;
    # ragas_answer_correctness 1 per reference; groundedness 40/8; the other four metrics 1 each
    refs = [sum(1 for r in it["references"] if r.strip()) for it in store.qa_items(judged_project.db_path, DEMO_QA)]
    assert by_role == {"generator": 43, "judge": sum(4 + 6 + r + 5 + 4 for r in refs)}
    assert "before retries and re-asks" in est.note
    summary = execute(judged_project, start_run(judged_project, config))
    assert summary.done == 43
    made = llm_env.count("/v1/chat/completions")
    assert 43 < made <= est.calls  # no faults, so no retries; replies parse, so no re-asks
    scores = store.scores(judged_project.db_path, summary.run_id)
    assert {s["metric"] for s in scores if s["status"] == "ok"} == set(ALL_JUDGED)


def test_all_metrics_calls_share_the_pool_at_once_not_in_waves(fake_llm):
    """Four one-call-per-item metrics on 4 items: metric after metric the server would never see
    more than 4 calls at once; scheduled together it sees all 16."""
    from rageval.llm.client import make_llm_client
    from rageval.metrics.base import evaluate, parse_metric_list
    from rageval.types import Resources, Sample

    fake_llm.script(responder=respond, latency=0.4)
    samples = [Sample(id=str(i), question=f"When did the wall fall? ({i})", answer="It fell in 1989.",
                      references=("1989",), contexts=("The wall fell in 1989.",)) for i in range(4)]
    metrics = parse_metric_list(["answer_relevance", "ragas_answer_relevance", "hedging", "answer_equivalence"],
                                judge="openai:together-model")
    env = {"OPENAI_BASE_URL": fake_llm.url, "OPENAI_API_KEY": "sk-test-not-a-real-key"}
    with make_llm_client({"judge": "openai:together-model"}, None, "r", 16, False, env=env) as llm:
        got = evaluate(samples, metrics, Resources(llm=llm))
    assert all(s.status == "ok" for scores in got.values() for s in scores)
    assert fake_llm.count("/v1/chat/completions") == 16 and fake_llm.peak_in_flight >= 12
