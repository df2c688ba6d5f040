"""Concurrency for the LLM layer: the limiter, per-role rate caps, backoff delays and the pool.

- :class:`AIMDLimiter` bounds the model calls in flight. A 429 backs off only the call that got
  it (the caller waits its ``Retry-After``; nothing else pauses). The limit starts at the
  configured maximum and is halved (``limit = max(1, limit // 2)``) only when 429s are FREQUENT:
  of the calls that ended in the last ``window`` seconds (10 s), at least ``min_calls`` (20)
  in all, at least ``min_throttled`` (4) and at least ``throttle_share`` (25%) were 429s - a
  server that is really overloaded, not a sporadic 429 (with 5% random 429s, 5 of 20 happens
  about 3 times in 1,000 windows). A decrease starts a new epoch and clears the window,
  so one burst halves once and a second halving needs fresh evidence. Once no 429 has come for
  ``window`` seconds, ``limit`` successes in a row raise the limit by one, up to the maximum
  (additive increase, multiplicative decrease, as in TCP congestion control).
- :class:`RateCap` holds one role to ``rpm`` requests and ``tpm`` tokens per minute with two
  token buckets (capacity = the cap, refilled at ``cap / 60`` per second, starting full): a
  request takes 1 from the first and its estimated tokens from the second, waiting until both
  have enough; the estimate is settled against the tokens the server reports.
- :func:`backoff_delay` is exponential with jitter: ``min(cap, base * 2**attempt) * U(0.5, 1)``.
- :class:`BoundedPool` runs ``map`` over one shared ``ThreadPoolExecutor``; a ``map`` called
  from inside a pool task runs in the calling thread, so nested fan-outs never deadlock.
"""
from __future__ import annotations

import random
import threading
import time
from collections import deque
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Callable, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def backoff_delay(attempt: int, *, base: float, cap: float, rng: random.Random) -> float:
    """Seconds to wait before retry number ``attempt + 1``: ``min(cap, base*2**attempt) * U(0.5, 1)``."""
    return min(cap, base * (2.0**attempt)) * (0.5 + 0.5 * rng.random())


def parse_retry_after(headers: object) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (a number of seconds), else None.

    HTTP dates in Retry-After are not honoured (the plain backoff applies instead).
    """
    get = getattr(headers, "get", None)
    if get is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = get(name)
        if raw is None:
            continue
        try:
            seconds = float(raw) * scale
        except (TypeError, ValueError):
            continue
        if seconds >= 0:
            return seconds
    return None


@dataclass(frozen=True)
class LimiterStats:
    limit: int          # calls allowed in flight now
    maximum: int        # the configured concurrency
    min_limit: int      # the lowest limit reached so far
    decreases: int      # halvings after frequent 429s
    increases: int      # +1 steps after runs of successes
    peak_in_flight: int
    throttled: int = 0  # 429s seen in all


class AIMDLimiter:
    """Additive-increase / multiplicative-decrease bound on calls in flight (see module doc)."""

    def __init__(self, maximum: int, *, window: float = 10.0, min_throttled: int = 4, min_calls: int = 20,
                 throttle_share: float = 0.25, clock: Callable[[], float] = time.monotonic):
        self._max = max(1, int(maximum))
        self._limit = self._max
        self._in_flight = 0
        self._epoch = 0
        self._successes = 0
        self._window, self._min_throttled, self._share = float(window), int(min_throttled), float(throttle_share)
        self._min_calls = int(min_calls)
        self._clock = clock
        self._recent: deque[tuple[float, bool]] = deque()  # (time, throttled) of calls that ended
        self._recent_throttled = 0
        self._last_throttled = float("-inf")
        self._cond = threading.Condition()
        self._min = self._max
        self._decreases = 0
        self._increases = 0
        self._peak = 0
        self._throttled = 0

    def acquire(self) -> int:
        """Wait for a slot; return the epoch token to hand back to :meth:`release`."""
        with self._cond:
            while self._in_flight >= self._limit:
                self._cond.wait()
            self._in_flight += 1
            self._peak = max(self._peak, self._in_flight)
            return self._epoch

    def _note(self, now: float, throttled: bool) -> None:
        self._recent.append((now, throttled))
        self._recent_throttled += throttled
        while self._recent and self._recent[0][0] < now - self._window:
            self._recent_throttled -= self._recent.popleft()[1]

    def release(self, token: int, outcome: str) -> None:
        """Free a slot. ``outcome``: "ok", "throttled" (429), or anything else (an error, a
        reachability check), which only frees the slot."""
        with self._cond:
            self._in_flight -= 1
            now = self._clock()
            if outcome == "ok":
                self._note(now, False)
                self._successes += 1
                if (
                    self._successes >= self._limit
                    and self._limit < self._max
                    and now - self._last_throttled >= self._window
                ):
                    self._limit += 1
                    self._increases += 1
                    self._successes = 0
            elif outcome == "throttled":
                self._throttled += 1
                self._successes = 0
                self._last_throttled = now
                if token == self._epoch:  # a call started before the last decrease is old news
                    self._note(now, True)
                frequent = (len(self._recent) >= self._min_calls and self._recent_throttled >= self._min_throttled
                            and self._recent_throttled >= self._share * len(self._recent))
                if frequent and token == self._epoch:
                    self._limit = max(1, self._limit // 2)
                    self._min = min(self._min, self._limit)
                    self._decreases += 1
                    self._epoch += 1
                    self._recent.clear()
                    self._recent_throttled = 0
            self._cond.notify_all()

    def stats(self) -> LimiterStats:
        with self._cond:
            return LimiterStats(self._limit, self._max, self._min, self._decreases, self._increases, self._peak,
                                self._throttled)


class RateCap:
    """Requests-per-minute and tokens-per-minute caps of one role (see module doc); None = no cap."""

    def __init__(self, rpm: int | None = None, tpm: int | None = None, *,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep):
        self.rpm, self.tpm = rpm, tpm
        self._clock, self._sleep = clock, sleep
        self._requests = float(rpm or 0)
        self._tokens = float(tpm or 0)
        self._at = clock()
        self._lock = threading.Lock()
        self.waited = 0.0  # seconds spent waiting for the caps, in all threads

    def _refill(self, now: float) -> None:
        elapsed, self._at = max(0.0, now - self._at), now
        if self.rpm:
            self._requests = min(float(self.rpm), self._requests + elapsed * self.rpm / 60.0)
        if self.tpm:
            self._tokens = min(float(self.tpm), self._tokens + elapsed * self.tpm / 60.0)

    def acquire(self, tokens: int) -> None:
        """Wait until one more request of about ``tokens`` tokens fits the caps, then take it.

        A request larger than the whole token cap waits for a full bucket, then goes.
        """
        need = float(min(max(tokens, 0), self.tpm)) if self.tpm else 0.0
        while True:
            with self._lock:
                self._refill(self._clock())
                short_r = 1.0 - self._requests if self.rpm else 0.0
                short_t = need - self._tokens if self.tpm else 0.0
                if short_r <= 0 and short_t <= 0:
                    if self.rpm:
                        self._requests -= 1.0
                    if self.tpm:
                        self._tokens -= need
                    return
                wait = max(short_r * 60.0 / self.rpm if self.rpm else 0.0,
                           short_t * 60.0 / self.tpm if self.tpm else 0.0)
                self.waited += wait
            self._sleep(wait)

    def settle(self, estimated: int, actual: int) -> None:
        """Charge (or refund) the difference between a request's estimated and reported tokens."""
        if self.tpm:
            with self._lock:
                self._tokens -= float(actual - estimated)


_WORKER = threading.local()


class BoundedPool:
    """One lazily started ``ThreadPoolExecutor`` with ``size`` workers, shared by every ``map``."""

    def __init__(self, size: int, *, name: str = "rageval-llm"):
        self._size = max(1, int(size))
        self._name = name
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._closed = False

    def _get(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._closed:
                raise RuntimeError("the LLM client is closed")
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=self._size, thread_name_prefix=self._name)
            return self._executor

    @staticmethod
    def _run(fn: Callable[[T], R], item: T) -> R:
        _WORKER.active = True
        try:
            return fn(item)
        finally:
            _WORKER.active = False

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """``[fn(x) for x in items]`` on the pool, in input order.

        When one call raises, the items not yet started are cancelled, the running ones are
        waited for, and the first exception in input order is raised.
        """
        items = list(items)
        if len(items) <= 1 or getattr(_WORKER, "active", False):
            return [fn(x) for x in items]
        executor = self._get()
        futures = [executor.submit(self._run, fn, x) for x in items]
        done, pending = wait(futures, return_when=FIRST_EXCEPTION)
        if pending:
            for future in pending:
                future.cancel()
            wait(pending)
        for future in futures:
            if not future.cancelled() and future.exception() is not None:
                raise future.exception()  # type: ignore[misc]
        return [f.result() for f in futures]

    def close(self) -> None:
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
