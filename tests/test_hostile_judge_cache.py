"""The judge cache across servers: a verdict cached from one server is never served for
another; the metric signature names a judge's server, so their values are never compared."""
from __future__ import annotations

import json

import pytest

from rageval.cli import main
from devtools.llm_server import FakeLLMServer

ROWS = [{"id": "a", "question": "Who wrote Dracula?", "answer": "Bram Stoker", "reference": "Bram Stoker"},
        {"id": "b", "question": "Capital of Italy?", "answer": "Rome", "reference": "Rome"}]


def _equivalent(request):
    return json.dumps({"equivalent": True, "reason": "same"})


@pytest.fixture()
def two_servers(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("RAGEVAL_PROJECT", raising=False)
    for role in ("GENERATOR", "JUDGE", "EMBEDDER"):
        monkeypatch.delenv(f"RAGEVAL_{role}_BASE_URL", raising=False)
        monkeypatch.delenv(f"RAGEVAL_{role}_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with FakeLLMServer() as good, FakeLLMServer() as locked:
        good.script(responder=_equivalent)
        locked.script(responder=_equivalent, require_key="another-key")  # 401 for our key
        yield good, locked


def _score(tmp_path, capsys, monkeypatch, server):
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    src = tmp_path / "answers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    main(["score", str(src), "--metrics", "answer_equivalence", "--judge", "openai:gpt-4o-mini",
          "--concurrency", "2"])
    return [json.loads(x) for x in capsys.readouterr().out.splitlines()]


def test_a_verdict_cached_from_one_server_is_not_served_for_another(tmp_path, capsys, monkeypatch, two_servers):
    good, locked = two_servers
    first = _score(tmp_path, capsys, monkeypatch, good)
    assert [r["answer_equivalence"] for r in first] == [1.0, 1.0]
    calls = good.count("/v1/chat/completions")
    assert _score(tmp_path, capsys, monkeypatch, good) == first  # the same server: from the cache
    assert good.count("/v1/chat/completions") == calls
    other = _score(tmp_path, capsys, monkeypatch, locked)  # same model name, another server
    assert locked.count() > 0
    assert [r["answer_equivalence"] for r in other] == [None, None]
    assert all("unauthorized" in r["answer_equivalence_status"] for r in other), other


def test_the_signature_names_a_judges_server(monkeypatch, two_servers):
    from rageval.metrics.base import get_metric

    good, locked = two_servers
    monkeypatch.setenv("OPENAI_BASE_URL", good.url)
    a = get_metric("answer_equivalence", judge="openai:gpt-4o-mini").signature()
    monkeypatch.setenv("RAGEVAL_JUDGE_BASE_URL", locked.url.replace("http://", "http://user:pw@") + "?token=x")
    b = get_metric("answer_equivalence", judge="openai:gpt-4o-mini").signature()
    monkeypatch.delenv("RAGEVAL_JUDGE_BASE_URL")
    monkeypatch.delenv("OPENAI_BASE_URL")
    c = get_metric("answer_equivalence", judge="openai:gpt-4o-mini").signature()  # OpenAI's API
    assert f"|server:{good.url}|" in a and f"|server:{locked.url}|" in b and "pw" not in b and "token" not in b
    assert "server:" not in c and len({a, b, c}) == 3
    assert "server:" not in get_metric("answer_equivalence").signature()  # the offline judge has none
