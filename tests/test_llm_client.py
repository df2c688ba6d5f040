"""LLMClient through the real openai client against the fake server: faults, retries, cache, limits."""
from __future__ import annotations

import json
import logging
import socket
import time
import types

import pytest

from rageval.errors import ConfigError, LLMError, RagevalError
from rageval.llm.client import LLMClient, make_llm_client
from rageval.llm.cost import summarize_calls
from rageval.llm.roles import role_config
from rageval.store.db import connect
from rageval.store.llm_cache import call_rows

KEY = "sk-test-SECRET-5f3a9c1e77"
USER = [{"role": "user", "content": "Is the claim supported? Answer in JSON."}]


def client_for(server, tmp_path=None, *, model="test-model", run_id="run-1", concurrency=8, use_cache=True,
               **options):
    env = {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": KEY}
    store = tmp_path / "project.duckdb" if tmp_path is not None else None
    return make_llm_client({"judge": f"openai:{model}", "embedder": "openai:emb-model"}, store, run_id,
                           concurrency, use_cache, env=env,
                           **{"backoff_base": 0.01, "timeout": 2.0, "max_retries": 4, **options})


def verdict(value):
    if not isinstance(value, dict) or "echo" not in value:
        raise ValueError('expected an object with an "echo" key')
    return value["echo"]


def ask(client, n, prefix="q"):
    msgs = [[{"role": "user", "content": f"{prefix} {i}: reply in JSON"}] for i in range(n)]
    return client.map(lambda m: client.chat_json("judge", m, validate=verdict), msgs)


def test_chat_ok_logged_and_rerun_makes_zero_calls(fake_llm, tmp_path):
    with client_for(fake_llm, tmp_path) as client:
        replies = ask(client, 20)
    assert all(r.status == "ok" for r in replies) and replies[3].value == "q 3: reply in JSON"
    assert fake_llm.count("/v1/chat/completions") == 20
    rows = call_rows(tmp_path / "project.duckdb", "run-1")
    assert len(rows) == 20 and all(r["status"] == "ok" and not r["cached"] for r in rows)
    assert all(r["tokens_in"] > 0 and r["tokens_out"] > 0 and r["latency_ms"] > 0 for r in rows)
    assert {r["role"] for r in rows} == {"judge"} and {r["kind"] for r in rows} == {"json"}

    fake_llm.reset()
    with client_for(fake_llm, tmp_path, run_id="run-2") as client:
        again = ask(client, 20)
    assert fake_llm.count() == 0, "an unchanged re-run must make no network calls"
    assert [r.value for r in again] == [r.value for r in replies] and all(r.cached for r in again)
    rows = call_rows(tmp_path / "project.duckdb", "run-2")
    assert len(rows) == 20 and all(r["cached"] and r["attempts"] == 0 for r in rows)
    summary = summarize_calls(rows)
    assert (summary.calls, summary.cached, summary.failed, summary.tokens_in) == (20, 20, 0, 0)


def test_no_cache_switch_disables_reads_and_writes(fake_llm, tmp_path):
    for _ in range(2):
        with client_for(fake_llm, tmp_path, use_cache=False) as client:
            assert client.chat("judge", USER).cached is False
    assert fake_llm.count() == 2
    path = tmp_path / "project.duckdb"
    with connect(path) as con:
        assert con.execute("SELECT count(*) FROM llm_cache").fetchone()[0] == 0
    assert len(call_rows(path)) == 2


def test_writes_are_flushed_while_idle_and_the_file_is_not_held(fake_llm, tmp_path):
    client = client_for(fake_llm, tmp_path)
    try:
        client.chat("judge", USER)
        time.sleep(1.6)  # the flusher writes at least every second
        assert len(call_rows(tmp_path / "project.duckdb")) == 1
        with connect(tmp_path / "project.duckdb") as con:  # the client holds no connection meanwhile
            assert con.execute("SELECT count(*) FROM llm_cache").fetchone()[0] == 1
    finally:
        client.close()


def test_429_storm_lowers_then_raises_concurrency_and_all_items_end_ok(fake_llm):
    fake_llm.script(plan={n: "429" for n in range(1, 25)}, retry_after="0.02", latency=0.02)
    with client_for(fake_llm, concurrency=8, max_retries=8, throttle_window=0.3) as client:
        replies = ask(client, 240)
        stats = client.stats()
    assert all(r.status == "ok" for r in replies)
    assert stats.decreases >= 1 and stats.min_limit < 8
    assert stats.increases >= 1 and stats.limit > stats.min_limit


def test_500s_are_retried_and_a_persistent_failure_marks_only_its_item(fake_llm, tmp_path):
    fake_llm.script(plan={1: "500", 2: "500"})
    with client_for(fake_llm, tmp_path, concurrency=1, max_retries=2) as client:
        first = client.chat("judge", USER)
        assert (first.status, first.attempts) == ("ok", 3)
        fake_llm.script(plan={4 + n: "500" for n in range(3)})
        items = client.map(lambda i: client.chat("judge", [{"role": "user", "content": str(i)}]), range(3))
    assert [r.status for r in items] == ["failed", "ok", "ok"]
    failed = items[0]
    assert failed.reason == "llm_error: http 500" and failed.text is None and "3 attempts" in failed.error
    rows = call_rows(tmp_path / "project.duckdb")
    assert sum(r["status"] == "failed" for r in rows) == 1


def test_hang_past_the_timeout_is_retried(fake_llm):
    fake_llm.script(plan={1: "hang"}, hang_seconds=3.0)
    with client_for(fake_llm, timeout=0.3) as client:
        reply = client.chat("judge", USER)
    assert reply.status == "ok" and reply.attempts == 2  # the hung attempt timed out, the retry answered


def test_timeouts_that_persist_fail_with_a_reason(fake_llm):
    fake_llm.script(rates={"hang": 1.0}, hang_seconds=3.0)
    with client_for(fake_llm, timeout=0.2, max_retries=1) as client:
        reply = client.chat("judge", USER)
    assert (reply.status, reply.reason) == ("failed", "llm_error: timeout")


@pytest.mark.parametrize("fault", ["drop", "broken_body", "503"])
def test_transport_faults_are_retried(fake_llm, fault):
    fake_llm.script(plan={1: fault})
    with client_for(fake_llm) as client:
        reply = client.chat("judge", USER)
    assert reply.status == "ok" and reply.attempts == 2


def test_retry_after_is_honoured(fake_llm, monkeypatch):
    from rageval.llm import client as client_module

    waits = []  # the retry's sleep, recorded instead of slept: no wall clock in the test
    monkeypatch.setattr(
        client_module, "time", types.SimpleNamespace(sleep=waits.append, perf_counter=time.perf_counter)
    )
    fake_llm.script(plan={1: "503"}, retry_after="0.4")
    with client_for(fake_llm) as client:
        assert client.chat("judge", USER).status == "ok"
    assert len(waits) == 1 and 0.4 <= waits[0] <= 0.44  # Retry-After plus at most 10% jitter


@pytest.mark.parametrize("fault", ["truncated", "prose", "empty", "fenced"])
def test_bad_json_once_is_repaired_by_the_reask(fake_llm, fault):
    fake_llm.script(plan={1: fault})
    with client_for(fake_llm) as client:
        reply = client.chat_json("judge", USER, validate=verdict)
    assert reply.status == "ok" and reply.value == USER[0]["content"]
    assert reply.reasked is (fault != "fenced")  # fences are parsed, not re-asked
    if reply.reasked:
        second = fake_llm.bodies()[1]["messages"]
        assert second[-1]["role"] == "user" and "could not be used" in second[-1]["content"]


@pytest.mark.parametrize("fault", ["truncated", "prose", "empty"])
def test_bad_json_twice_is_unscored_with_the_raw_reply(fake_llm, fault):
    fake_llm.script(plan={1: fault, 2: fault})
    with client_for(fake_llm) as client:
        reply = client.chat_json("judge", USER, validate=verdict)
    assert (reply.status, reply.reason, reply.value) == ("unscored", "judge_parse_error", None)
    assert reply.raw is not None and reply.error
    assert fake_llm.count() == 2


def test_validation_errors_are_sent_back_once(fake_llm):
    replies = iter(['{"wrong": 1}', '{"echo": "fixed"}'])
    fake_llm.script(responder=lambda request: next(replies))
    with client_for(fake_llm) as client:
        reply = client.chat_json("judge", USER, validate=verdict)
    assert (reply.status, reply.value, reply.reasked) == ("ok", "fixed", True)
    assert '"echo" key' in fake_llm.bodies()[1]["messages"][-1]["content"]


def test_empty_chat_reply_is_a_failure_not_an_empty_answer(fake_llm):
    fake_llm.script(plan={1: "empty"})
    with client_for(fake_llm) as client:
        reply = client.chat("judge", USER)
        assert (reply.status, reply.reason) == ("failed", "llm_error: empty reply")
        assert client.chat("judge", USER).status == "ok"  # not cached: asked again


def test_json_mode_rejected_by_the_server_is_dropped_and_remembered(fake_llm):
    fake_llm.script(reject_json_mode=True)
    with client_for(fake_llm) as client:
        assert client.chat_json("judge", USER, validate=verdict).status == "ok"
        assert client.chat_json("judge", [{"role": "user", "content": "json again"}], validate=verdict).status == "ok"
    formats = [b.get("response_format") for b in fake_llm.bodies()]
    assert formats == [{"type": "json_object"}, None, None]


def test_unknown_model_names_role_and_model_and_fails_fast(fake_llm):
    fake_llm.script(models={"test-model"})
    with client_for(fake_llm, model="gpt-nope") as client:
        first = client.chat("judge", USER)
        assert first.reason == "llm_error: model_not_found"
        assert "judge" in first.error and "gpt-nope" in first.error and "does not exist" in first.error
        assert client.chat("judge", [{"role": "user", "content": "other"}]).reason == "llm_error: model_not_found"
        assert fake_llm.count() == 1  # the second call did not go out
        with pytest.raises(LLMError, match="judge model 'gpt-nope' was not found"):
            client.preflight("judge")


def test_preflight_passes_for_a_listed_or_answering_model(fake_llm):
    fake_llm.script(models={"test-model", "emb-model"})
    with client_for(fake_llm) as client:
        for role in client.roles:
            client.preflight(role)
    assert fake_llm.count("/v1/models") == 2 and fake_llm.count("/v1/chat/completions") == 0


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_base_url_fails_with_a_clear_message():
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    client = make_llm_client({"judge": "openai:gpt-4o"}, env={"OPENAI_BASE_URL": url})
    with pytest.raises(LLMError) as caught:
        client.preflight("judge")
    message = str(caught.value)
    assert f"the judge at {url} is unreachable: connection refused" in message
    assert "OPENAI_BASE_URL" in message and "RAGEVAL_JUDGE_BASE_URL" in message
    client.close()


def _echo_key(request):
    raise RuntimeError(f"upstream rejected key {KEY}")  # the server answers 500 with this text


def test_api_key_never_leaks_into_errors_logs_or_rows(fake_llm, tmp_path, caplog):
    caplog.set_level(logging.DEBUG, logger="rageval")
    fake_llm.script(responder=_echo_key)
    client = client_for(fake_llm, tmp_path, max_retries=2)
    retried = client.chat("judge", USER)
    assert retried.reason == "llm_error: http 500" and "***" in retried.error and "upstream" in caplog.text
    fake_llm.script(require_key="the-right-key")  # the 401 echoes the presented key back
    reply = client.chat("judge", USER)
    with pytest.raises(LLMError) as caught:
        client.preflight("judge")
    failed_embed = pytest.raises(LLMError, client.embed, ["x"])
    client.close()
    texts = [retried.error, reply.error, reply.reason, str(caught.value), str(failed_embed.value),
             repr(client), repr(client.roles), caplog.text]
    assert reply.reason == "llm_error: unauthorized" and "OPENAI_API_KEY" in reply.error
    with connect(tmp_path / "project.duckdb") as con:
        for (table,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall():
            texts.append(json.dumps(con.execute(f'SELECT * FROM "{table}"').fetchall(), default=str))
    assert not any(KEY in t or KEY[3:] in t for t in texts)


def test_a_server_without_keys_needs_only_the_base_url(fake_llm):
    fake_llm.script(require_key="not-needed")
    client = make_llm_client({"judge": "openai:test-model"}, env={"OPENAI_BASE_URL": fake_llm.url})
    assert client.chat("judge", USER).status == "ok"
    client.close()
    with pytest.raises(ConfigError, match="needs an API key"):
        make_llm_client({"judge": "openai:gpt-4o"}, env={})


def test_make_llm_client_specs():
    assert make_llm_client({"generator": "extractive", "judge": "heuristic", "embedder": "local"}) is None
    with pytest.raises(ConfigError, match="names no model"):
        make_llm_client({"judge": "openai:"})
    with pytest.raises(ConfigError, match="not a known backend"):
        make_llm_client({"judge": "gpt4"})
    closed = make_llm_client({"judge": "openai:m"}, env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    closed.close()
    closed.close()  # idempotent
    with pytest.raises(RagevalError, match="closed"):
        closed.chat("judge", USER)
    with pytest.raises(ConfigError, match="no model is configured for the generator"):
        make_llm_client({"judge": "openai:m"}, env={"OPENAI_BASE_URL": "http://x/v1"}).chat("generator", USER)
    with pytest.raises(ConfigError, match="concurrency"):
        LLMClient({"judge": role_config("judge", "m", env={"OPENAI_BASE_URL": "http://x/v1"})}, concurrency=0)


def test_calls_run_concurrently(fake_llm):
    fake_llm.script(latency=0.05)
    with client_for(fake_llm, concurrency=8) as client:
        replies = client.map(lambda i: client.chat("judge", [{"role": "user", "content": str(i)}]), range(32))
    assert all(r.status == "ok" for r in replies)
    assert 6 <= fake_llm.peak_in_flight <= 8  # the server saw them in flight together, never more than 8


def test_embeddings_are_batched_cached_per_text_and_match_the_server(fake_llm, tmp_path):
    from devtools.llm_server import vector_for

    texts = [f"text {i}" for i in range(130)]
    with client_for(fake_llm, tmp_path, embed_batch=64) as client:
        vectors = client.embed(texts + ["text 0"])
        assert fake_llm.count("/v1/embeddings") == 3
        assert len(vectors) == 131 and vectors[5] == pytest.approx(vector_for("text 5", 8))
        assert vectors[-1] == vectors[0]
        assert all(b["encoding_format"] == "float" for b in fake_llm.bodies("/v1/embeddings"))
        client.embed(["text 1", "new text"])
        assert fake_llm.count("/v1/embeddings") == 4 and fake_llm.bodies("/v1/embeddings")[-1]["input"] == ["new text"]
    fake_llm.reset()
    with client_for(fake_llm, tmp_path) as client:
        assert client.embed(texts[:10]) == vectors[:10]
    assert fake_llm.count() == 0


def test_transient_faults_and_broken_json_still_end_every_item_and_rerun_is_free(fake_llm, tmp_path):
    fake_llm.script(rates={"500": 0.05, "429": 0.05, "truncated": 0.05}, seed=7, retry_after="0.01")
    with client_for(fake_llm, tmp_path, max_retries=6) as client:
        first = ask(client, 60)
    assert {r.status for r in first} <= {"ok", "unscored"}
    assert all(r.value is not None if r.status == "ok" else r.reason == "judge_parse_error" for r in first)
    fake_llm.reset()
    with client_for(fake_llm, tmp_path) as client:
        second = ask(client, 60)
    # ok replies are replayed from the cache; a reply that never parsed was not cached, so only
    # those items are asked again (once, plus a re-ask if needed)
    unparsed = sum(r.status == "unscored" for r in first)
    assert fake_llm.count() <= 2 * unparsed
    assert all(b.value == a.value for a, b in zip(first, second) if a.status == "ok")
