"""Retries with exponential backoff and jitter, for calls that ended UNAVAILABLE or
RESOURCE_EXHAUSTED (a server at its stream limit says "later", grpc_server/concurrency_limits.py).

Only idempotent calls are retried: a repeat must not do the work twice. Reads are idempotent;
CreateBuild is when it carries a request_id (the SDK sets one unless told not to); a streamed
download resumes from the first file it had not finished.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

import grpc

from scicustom.core.errors import InvalidInput

T = TypeVar("T")
RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED})


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry an idempotent call that ended UNAVAILABLE or
    RESOURCE_EXHAUSTED.

    Attempt n (n >= 2) waits min(max_backoff_s, initial_backoff_s * multiplier**(n-2)), each wait
    scaled by a random factor in [1 - jitter, 1 + jitter] so many clients do not retry in step.
    `max_attempts` = 1 turns retries off.
    """

    max_attempts: int = 4
    initial_backoff_s: float = 0.2
    max_backoff_s: float = 5.0
    multiplier: float = 2.0
    jitter: float = 0.2
    random_source: random.Random = field(default_factory=random.Random, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise InvalidInput("max_attempts", "must be >= 1")
        if self.initial_backoff_s < 0 or self.max_backoff_s < self.initial_backoff_s:
            raise InvalidInput("max_backoff_s", "must be >= initial_backoff_s >= 0")
        if self.multiplier < 1:
            raise InvalidInput("multiplier", "must be >= 1")
        if not 0 <= self.jitter <= 1:
            raise InvalidInput("jitter", "must be in [0, 1]")

    def backoffs(self) -> Iterator[float]:
        """The waits before attempts 2..max_attempts."""
        base = self.initial_backoff_s
        for _ in range(self.max_attempts - 1):
            spread = 1.0 + self.jitter * (2.0 * self.random_source.random() - 1.0)
            yield min(self.max_backoff_s, base) * spread
            base *= self.multiplier


NO_RETRIES = RetryPolicy(max_attempts=1)


def retryable(exc: grpc.RpcError) -> bool:
    code: grpc.StatusCode | None = exc.code() if isinstance(exc, grpc.Call) else None
    return code in RETRYABLE


def with_retries(call: Callable[[], T], policy: RetryPolicy, *, idempotent: bool,
                 sleep: Callable[[float], None] = time.sleep) -> T:
    """`call()` again after each retryable failure while the policy allows; the last error propagates."""
    waits = policy.backoffs() if idempotent else iter(())
    while True:
        try:
            return call()
        except grpc.RpcError as exc:
            wait = next(waits, None) if retryable(exc) else None
            if wait is None:
                raise
            sleep(wait)
