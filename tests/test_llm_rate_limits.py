"""Rate limits against the LLM test server: a 429 backs off only its own call (honouring
Retry-After), sporadic 429s leave the concurrency alone, and RPM caps hold per role."""
import functools
import threading
import time

from rageval.llm.client import make_llm_client


def _client(server, *, concurrency=8, env=None, **options):
    env = {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-test-not-a-real-key", **(env or {})}
    return make_llm_client({"judge": "openai:test-model"}, None, "r", concurrency, False, env=env,
                           **{"backoff_base": 0.01, "timeout": 5.0, "max_retries": 4, **options})


def _chat_all(client, n):
    return client.map(lambda i: client.chat("judge", [{"role": "user", "content": f"question {i}"}]), range(n))


def test_a_429_delays_only_its_own_call_for_its_retry_after(fake_llm, monkeypatch):
    import types

    from rageval.llm import client as client_module

    waits = []  # the retry's sleep, recorded instead of slept: no wall clock in the test
    monkeypatch.setattr(
        client_module, "time", types.SimpleNamespace(sleep=waits.append, perf_counter=time.perf_counter)
    )
    fake_llm.script(plan={1: "429"}, retry_after="1", latency=0.05)
    with _client(fake_llm) as client:
        replies = _chat_all(client, 16)
        stats = client.stats()
    assert all(r.status == "ok" for r in replies)
    retried = [r for r in replies if r.attempts == 2]
    assert len(retried) == 1 and len(waits) == 1 and 1.0 <= waits[0] <= 1.1  # it waited Retry-After = 1 s
    assert sum(r.attempts == 1 for r in replies) == 15  # nobody else was retried
    assert stats.decreases == 0 and stats.limit == 8  # one 429 is not an overload
    assert fake_llm.count("/v1/chat/completions") == 17


def test_calls_waiting_out_their_retry_after_leave_their_slots_to_the_others(fake_llm):
    # 2 slots, and both first calls get a 429 with Retry-After 1 s: the other 40 calls (0.05 s each)
    # keep both slots busy meanwhile, so others reach the server before the two retries; were the
    # waiting calls holding the only two workers, the retries would come third and fourth
    fake_llm.script(plan={1: "429", 2: "429"}, retry_after="1", latency=0.05)
    with _client(fake_llm, concurrency=2) as client:
        replies = _chat_all(client, 42)
    assert all(r.status == "ok" for r in replies)
    assert fake_llm.peak_in_flight == 2  # the spare workers never exceed the concurrency
    order = [b["messages"][-1]["content"] for b in fake_llm.bodies()]
    first_two = order[:2]
    retries = [i for i, text in enumerate(order) if text in first_two and i >= 2]
    assert len(order) == 44 and len(retries) == 2
    assert min(retries) >= 6  # other calls used both slots while the two waited (held slots: 2 and 3)


def test_sporadic_429s_keep_the_concurrency_and_lose_nothing(fake_llm):
    fake_llm.script(rates={"429": 0.05, "500": 0.05}, seed=3, retry_after="0.05", latency=0.01)
    with _client(fake_llm, concurrency=8) as client:
        replies = _chat_all(client, 200)
        stats = client.stats()
    assert all(r.status == "ok" for r in replies)
    assert stats.throttled >= 5 and stats.decreases == 0 and stats.limit == 8
    assert fake_llm.peak_in_flight == 8


def test_an_overloaded_server_lowers_the_concurrency(fake_llm):
    fake_llm.script(rates={"429": 0.6}, seed=1, retry_after="0.01", latency=0.01)
    with _client(fake_llm, concurrency=8, max_retries=20) as client:
        replies = _chat_all(client, 40)
        stats = client.stats()
    assert all(r.status == "ok" for r in replies)
    assert stats.decreases >= 1 and stats.min_limit <= 4


def test_requests_per_minute_cap_of_a_role(fake_llm, monkeypatch):
    """RAGEVAL_JUDGE_RPM reaches the client's cap, timed on the cap's own clock (it moves only
    when the cap sleeps), so the test neither waits nor depends on the machine's speed."""
    from rageval.llm import client as client_module
    from rageval.llm.pool import RateCap

    now, slept, lock = [0.0], [], threading.Lock()

    def sleep(seconds):
        with lock:
            slept.append(seconds)
            now[0] += seconds

    monkeypatch.setattr(client_module, "RateCap", functools.partial(RateCap, clock=lambda: now[0], sleep=sleep))
    fake_llm.script(latency=0.0)
    with _client(fake_llm, env={"RAGEVAL_JUDGE_RPM": "60"}) as client:
        replies = _chat_all(client, 62)
    # a bucket of 60 refilled at 1 a second lets at most 60 + T requests through in T seconds
    assert all(r.status == "ok" for r in replies)
    assert fake_llm.count("/v1/chat/completions") == 62 and now[0] >= 2.0 - 1e-9 and len(slept) >= 2


def test_a_malformed_cap_is_a_config_error_naming_the_variable():
    import pytest

    from rageval.errors import ConfigError
    from rageval.llm.roles import role_config

    assert role_config("judge", "m", env={"RAGEVAL_JUDGE_TPM": "90_000"}).tpm == 90000
    with pytest.raises(ConfigError, match="RAGEVAL_JUDGE_RPM='fast' must be a whole number"):
        role_config("judge", "m", env={"RAGEVAL_JUDGE_RPM": "fast"})


def test_a_reachability_check_takes_a_slot_like_any_call(fake_llm):
    # two judge calls fill both slots; the embedder role's first call checks its server (GET
    # /v1/models) meanwhile: the check waits for a free slot, so the server never sees three

    fake_llm.script(latency=0.3, models={"test-model", "test-embedder"})
    env = {"OPENAI_BASE_URL": fake_llm.url, "OPENAI_API_KEY": "sk-test-not-a-real-key"}
    with make_llm_client({"judge": "openai:test-model", "embedder": "openai:test-embedder"}, None, "r", 2, False,
                         env=env, preflight=True, timeout=5.0) as client:
        client.chat("judge", [{"role": "user", "content": "warm"}])  # the judge role's check, alone
        chats = [threading.Thread(target=client.chat, args=("judge", [{"role": "user", "content": f"q{i}"}]))
                 for i in range(2)]
        for t in chats:
            t.start()
        time.sleep(0.1)  # both chats are now in flight at the server
        client.embed(["a text"], model="test-embedder")
        for t in chats:
            t.join()
    assert client.preflight_error is None
    assert fake_llm.peak_in_flight == 2
