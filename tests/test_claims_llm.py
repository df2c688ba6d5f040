"""The judged claim metrics through the real LLM client (openai SDK) against the scripted HTTP
server of devtools/llm_server.py, with injected faults."""
from __future__ import annotations

import pytest

from rageval.llm.client import make_llm_client
from rageval.metrics.base import evaluate, get_metric
from rageval.types import Resources, Sample
from tests.test_claims import CTX, FAIL, WALL, BowEmbedder, scripted


def responder(request):
    first_user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    got = scripted(first_user)
    return "sorry, I cannot produce JSON today" if got is FAIL else got


@pytest.fixture
def client(llm_env):
    llm = make_llm_client({"judge": "openai:fake-judge"}, concurrency=1, use_cache=False, max_retries=3, timeout=5.0,
                          backoff_base=0.01, backoff_cap=0.05)
    yield llm
    llm.close()


def test_faithfulness_survives_server_faults_and_marks_only_the_broken_item(llm_env, client):
    boom = Sample(id="b", answer="EXPLODE. The wall fell in 1989.", contexts=CTX)
    # one call in flight, so each fault hits a known call: 1-4 extract WALL (500, 429, prose + re-ask),
    # 5-6 extract "EXPLODE" (truncated, then a prose re-ask: judge_parse_error), 7 verifies WALL
    llm_env.script(responder=responder, plan={1: "500", 2: "429", 3: "prose", 5: "truncated"}, retry_after="0")
    metrics = [get_metric(n, judge="openai:fake-judge") for n in ("faithfulness", "contradicted_share")]
    res = evaluate([WALL, boom], metrics, Resources(embedder_factory=BowEmbedder, llm=client))
    ok, bad = res["faithfulness"]
    assert (ok.status, ok.value) == ("ok", 0.5)
    assert [c["verdict"] for c in ok.details["claims"]] == ["SUPPORTED", "CONTRADICTED"]
    assert (bad.status, bad.reason) == ("unscored", "judge_parse_error")
    assert res["contradicted_share"][0].value == 0.5
    assert {f for _, f in llm_env.faults_seen()} >= {"500", "429", "prose"}
