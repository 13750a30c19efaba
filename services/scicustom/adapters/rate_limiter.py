"""A thread-safe token bucket per key (provider), so concurrent callers share one request budget."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class RateLimiter:
    def __init__(self, requests_per_minute: int, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if requests_per_minute < 1:
            raise ValueError("requests_per_minute must be >= 1")
        self._rate = requests_per_minute / 60.0
        self._capacity = float(max(1, requests_per_minute // 10))
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}

    def acquire(self, key: str) -> None:
        while True:
            with self._lock:
                now = self._clock()
                tokens, stamp = self._buckets.get(key, (self._capacity, now))
                tokens = min(self._capacity, tokens + (now - stamp) * self._rate)
                if tokens >= 1.0:
                    self._buckets[key] = (tokens - 1.0, now)
                    return
                self._buckets[key] = (tokens, now)
                wait = (1.0 - tokens) / self._rate
            self._sleep(wait)
