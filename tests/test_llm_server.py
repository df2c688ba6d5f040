"""The fake OpenAI-compatible server itself, spoken to by the unpatched openai client."""
from __future__ import annotations

import json
import urllib.request

import openai
import pytest

from devtools.llm_server import FakeLLMServer, vector_for


def test_openai_client_round_trips_and_counts(fake_llm):
    client = openai.OpenAI(api_key="k", base_url=fake_llm.url, max_retries=0)
    reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content == "echo: hi" and reply.usage.total_tokens > 0
    as_base64 = client.embeddings.create(model="e", input=["a", "b"])  # the client asks for base64
    as_float = client.embeddings.create(model="e", input="a", encoding_format="float")
    assert as_base64.data[0].embedding == pytest.approx(vector_for("a", 8), abs=1e-6)
    assert as_float.data[0].embedding == pytest.approx(vector_for("a", 8))
    assert [m.id for m in client.models.list().data] == ["test-model"]
    assert (fake_llm.count(), fake_llm.count("/v1/embeddings")) == (4, 2)
    with urllib.request.urlopen(fake_llm.url.removesuffix("/v1") + "/_stats") as resp:
        assert json.load(resp)["counts"]["/v1/chat/completions"] == 1
    client.close()


def test_fault_plan_and_rates_are_applied_in_order(fake_llm):
    fake_llm.script(plan={2: "500"}, rates={"429": 0.5}, seed=3)
    client = openai.OpenAI(api_key="k", base_url=fake_llm.url, max_retries=0)
    statuses = []
    for _ in range(12):
        try:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
            statuses.append(200)
        except openai.APIStatusError as exc:
            statuses.append(exc.status_code)
    assert statuses[1] == 500 and 429 in statuses and 200 in statuses
    assert [n for n, _ in fake_llm.faults_seen()] == [i + 1 for i, s in enumerate(statuses) if s != 200]
    client.close()


def test_script_rejects_unknown_faults_and_settings():
    server = FakeLLMServer()
    with pytest.raises(ValueError, match="unknown fault"):
        server.script(plan={1: "explode"})
    with pytest.raises(ValueError, match="unknown setting"):
        server.script(latncy=1)
    server.stop()
