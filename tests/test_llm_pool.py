"""The AIMD limiter, rate caps, backoff delays, Retry-After parsing and the bounded pool."""
from __future__ import annotations

import random
import threading
import time

import pytest

from rageval.llm.pool import AIMDLimiter, BoundedPool, RateCap, backoff_delay, parse_retry_after


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_sporadic_429s_do_not_lower_the_limit():
    clock = Clock()
    lim = AIMDLimiter(8, clock=clock)
    for n in range(400):  # 5% of calls are 429s, spread out: never frequent in a 10 s window
        clock.now += 0.05
        lim.release(lim.acquire(), "throttled" if n % 20 == 0 else "ok")
    stats = lim.stats()
    assert stats.limit == 8 and stats.decreases == 0 and stats.throttled == 20


def test_frequent_429s_halve_once_per_burst_and_the_limit_recovers_when_they_stop():
    clock = Clock()
    lim = AIMDLimiter(8, clock=clock, min_calls=8)
    tokens = [lim.acquire() for _ in range(8)]
    for token in tokens:  # a burst of 8 rejections of calls started in the same epoch: one halving
        lim.release(token, "throttled")
    assert lim.stats().limit == 4 and lim.stats().decreases == 1
    for _ in range(4):  # successes while 429s are recent: no increase
        lim.release(lim.acquire(), "ok")
    assert lim.stats().limit == 4
    for _ in range(3):  # a second halving needs fresh evidence: 4 new 429s in the window
        lim.release(lim.acquire(), "throttled")
    assert lim.stats().limit == 4
    lim.release(lim.acquire(), "throttled")
    assert lim.stats().limit == 2 and lim.stats().min_limit == 2
    for _ in range(10):  # 429s still in the window: no increase yet
        lim.release(lim.acquire(), "ok")
    assert lim.stats().limit == 2
    clock.now += 11.0  # the 429s have left the window
    for _ in range(2):
        lim.release(lim.acquire(), "ok")
    assert lim.stats().limit == 3  # +1 after `limit` successes in a row
    for _ in range(3 + 4 + 5 + 6 + 7 + 20):
        lim.release(lim.acquire(), "ok")
    stats = lim.stats()
    assert stats.limit == 8 and stats.increases == 6  # never above the maximum


def test_limiter_never_goes_below_one_and_errors_do_not_count():
    lim = AIMDLimiter(2, min_throttled=1, min_calls=1)
    for _ in range(5):
        lim.release(lim.acquire(), "throttled")
    assert lim.stats().limit == 1
    lim.release(lim.acquire(), "error")
    assert lim.stats().limit == 1


def test_limiter_bounds_calls_in_flight():
    lim = AIMDLimiter(3)
    in_flight, peak, lock = [0], [0], threading.Lock()

    def work():
        token = lim.acquire()
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.01)
        with lock:
            in_flight[0] -= 1
        lim.release(token, "ok")

    threads = [threading.Thread(target=work) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak[0] == 3 == lim.stats().peak_in_flight


def test_a_429_pauses_no_other_call():
    lim = AIMDLimiter(4)
    lim.release(lim.acquire(), "throttled")
    assert lim.stats().limit == 4  # one 429 lowers nothing, so all four slots are free at once
    tokens = [lim.acquire() for _ in range(4)]
    assert lim.stats().peak_in_flight == 4
    for token in tokens:
        lim.release(token, "ok")


def test_rate_cap_holds_requests_and_tokens_per_minute():
    clock, slept = Clock(), []

    def sleep(seconds):
        slept.append(seconds)
        clock.now += seconds

    cap = RateCap(rpm=60, clock=clock, sleep=sleep)  # one request a second after a burst of 60
    for _ in range(60):
        cap.acquire(0)
    assert slept == []
    cap.acquire(0)
    assert clock.now == pytest.approx(1.0)
    tokens = RateCap(tpm=6000, clock=clock, sleep=sleep)  # 100 tokens a second
    tokens.acquire(6000)
    start = clock.now
    tokens.acquire(500)
    assert clock.now - start == pytest.approx(5.0)
    tokens.settle(500, 800)  # the reply used 300 tokens more than estimated: they are owed
    start = clock.now
    tokens.acquire(100)
    assert clock.now - start == pytest.approx(4.0)


def test_backoff_is_exponential_with_jitter_and_capped():
    rng = random.Random(1)
    for attempt in range(8):
        delay = backoff_delay(attempt, base=0.5, cap=4.0, rng=rng)
        ceiling = min(4.0, 0.5 * 2**attempt)
        assert ceiling / 2 <= delay <= ceiling


@pytest.mark.parametrize("headers,expected", [
    ({"retry-after": "2"}, 2.0), ({"retry-after": "0.25"}, 0.25), ({"retry-after-ms": "150"}, 0.15),
    ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, None), ({}, None), (None, None),
])
def test_parse_retry_after(headers, expected):
    got = parse_retry_after(headers)
    assert got == pytest.approx(expected) if expected is not None else got is None


def test_pool_keeps_order_runs_in_parallel_and_nests_without_deadlock():
    pool = BoundedPool(4)
    try:
        together = threading.Barrier(4, timeout=30)  # passes only when four tasks run at the same time
        assert pool.map(lambda x: (together.wait(), x * x)[1], range(8)) == [x * x for x in range(8)]
        nested = pool.map(lambda x: sum(pool.map(lambda y: y + x, range(3))), range(6))
        assert nested == [sum(y + x for y in range(3)) for x in range(6)]
    finally:
        pool.close()


def test_pool_raises_the_first_error_and_cancels_the_rest():
    pool = BoundedPool(2)
    started = []

    def fn(x):
        started.append(x)
        if x == 1:
            raise ValueError("item 1 broke")
        time.sleep(0.02)
        return x

    with pytest.raises(ValueError, match="item 1 broke"):
        pool.map(fn, range(50))
    assert len(started) < 50
    pool.close()
    with pytest.raises(RuntimeError, match="closed"):
        pool.map(fn, [5, 6])
