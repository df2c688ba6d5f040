"""Judged runs against the LLM test server: zero calls for cached work, the estimate is a
true upper bound, and the calls of all metrics go through the one pool together."""
import pytest

from rageval.config import RunConfig
from rageval.corpus import ingest
from rageval.demo import DEMO_CORPUS, DEMO_QA, demo_dir
from rageval.pipeline import estimate, execute, start_run
from rageval.project import open_project
from rageval.qa import import_qa
from rageval.store import runs as store
from tests.judge_responder import respond

FOUR = ("faithfulness", "ragas_answer_correctness", "ragas_answer_relevance", "context_relevance")


@pytest.fixture(scope="module")
def demo_project(tmp_path_factory):
    """One ingested demo project for the module (ingesting costs ~20 s); each test uses its own
    model names, so no test replays another's cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGEVAL_HOME", str(tmp_path_factory.mktemp("judged") / "home"))
        project = open_project("judged")
        ingest(project, DEMO_CORPUS, paths=[demo_dir() / "corpus"])
        qa = demo_dir() / "qa.jsonl"
        import_qa(project, qa.name, qa.read_bytes(), name=DEMO_QA)
        yield project


def _config(metrics=FOUR, model="test-model", **kw):
    return RunConfig(corpus=DEMO_CORPUS, qa_set=DEMO_QA, generator=f"openai:{model}", judge=f"openai:{model}",
                     metrics=metrics, top_k=4, **kw)


def test_unchanged_rerun_makes_zero_calls_not_even_the_reachability_check(demo_project, llm_env):
    llm_env.script(responder=respond)
    first = start_run(demo_project, _config())
    assert execute(demo_project, first).done == 43
    assert llm_env.count("/v1/models") == 1  # the reachability check ran once, before the first call
    llm_env.reset().script(responder=respond)
    rerun = start_run(demo_project, _config())
    assert execute(demo_project, rerun).done == 43
    assert llm_env.count() == 0  # every request path: chat, embeddings and /v1/models
    values = lambda run: {(s["item_id"], s["metric"]): s["value"] for s in store.scores(demo_project.db_path, run)}
    assert values(rerun) == values(first)
