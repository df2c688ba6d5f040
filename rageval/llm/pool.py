"""Concurrency for the LLM layer: the AIMD limiter, backoff delays and the bounded pool.

- :class:`AIMDLimiter` bounds the model calls in flight. It starts at the configured maximum;
  a 429 halves the limit (``limit = max(1, limit // 2)``, at most once per "epoch": calls that
  started before the last decrease do not decrease it again, so one burst of 16 rejections
  halves once, not 16 times); after ``limit`` successes in a row the limit grows by one, up to
  the maximum (additive increase, multiplicative decrease, as in TCP congestion control). A
  ``Retry-After`` pauses every new call until it has passed.
- :func:`backoff_delay` is exponential with jitter: ``min(cap, base * 2**attempt) * U(0.5, 1)``.
- :class:`BoundedPool` runs ``map`` over one shared ``ThreadPoolExecutor``; a ``map`` called
  from inside a pool task runs in the calling thread, so nested fan-outs never deadlock.
"""
from __future__ import annotations

import random
import threading
import time
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
    decreases: int      # halvings after a 429
    increases: int      # +1 steps after runs of successes
    peak_in_flight: int


class AIMDLimiter:
    """Additive-increase / multiplicative-decrease bound on calls in flight (see module doc)."""

    def __init__(self, maximum: int):
        self._max = max(1, int(maximum))
        self._limit = self._max
        self._in_flight = 0
        self._epoch = 0
        self._successes = 0
        self._pause_until = 0.0
        self._cond = threading.Condition()
        self._min = self._max
        self._decreases = 0
        self._increases = 0
        self._peak = 0

    def acquire(self) -> int:
        """Wait for a slot; return the epoch token to hand back to :meth:`release`."""
        with self._cond:
            while True:
                pause = self._pause_until - time.monotonic()
                if pause <= 0 and self._in_flight < self._limit:
                    break
                self._cond.wait(timeout=pause if pause > 0 else None)
            self._in_flight += 1
            self._peak = max(self._peak, self._in_flight)
            return self._epoch

    def release(self, token: int, outcome: str, *, retry_after: float | None = None) -> None:
        """Free a slot. ``outcome``: "ok", "throttled" (429) or "error" (anything else)."""
        with self._cond:
            self._in_flight -= 1
            if outcome == "ok":
                self._successes += 1
                if self._successes >= self._limit and self._limit < self._max:
                    self._limit += 1
                    self._increases += 1
                    self._successes = 0
            elif outcome == "throttled":
                self._successes = 0
                if token == self._epoch:
                    self._limit = max(1, self._limit // 2)
                    self._min = min(self._min, self._limit)
                    self._decreases += 1
                    self._epoch += 1
            if retry_after is not None and retry_after > 0:
                self._pause_until = max(self._pause_until, time.monotonic() + retry_after)
            self._cond.notify_all()

    def stats(self) -> LimiterStats:
        with self._cond:
            return LimiterStats(self._limit, self._max, self._min, self._decreases, self._increases, self._peak)


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
