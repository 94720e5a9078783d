"""Retry timing for the whole service: one backoff policy, and one place that waits.

`Backoff` holds the numbers (first delay, cap, jitter, attempts) and turns a retry number
into a delay: exponential, `base * 2**(retry - 1)` capped at `cap`, with the last `jitter`
fraction of it random so that clients failing together do not come back together. A
server's own hint (an HTTP Retry-After in seconds, Gemini's RetryInfo delay) replaces the
backoff but is capped too: a proxy answering "Retry-After: 86400" must not park a turn for
a day. The model adapters, the supervisor's restarts and the outbox's retry schedule all
take their delays from here, so they cannot drift apart again, and every remote call (the
chat and embedding models, the MCP gateway) makes its attempts in `retrying`, the one
attempt loop: an attempt that fails in a way another may not raises `Retryable`, anything
else it raises ends the loop at once. It is the one runtime module
the adapters and the application may import (the rings test names it): it imports nothing
of ours.

Every wait goes through `wait`. Tests switch all of them off at once with `waits_off()`
(tests/conftest.py does so for every test): a wait then returns at once, after a
checkpoint so cancellation still gets in, and the delay it was asked for is recorded, so a
test can check the timing without spending it. The switch is process-wide on purpose: the
waits happen deep inside adapters and actors, in tasks the test does not own. A process
started as a subprocess is not affected; such tests set the backoff through the ordinary
settings (`runtime.restart_backoff_seconds`, ...).

Why not stamina (26.1, docs and source read for this): it would work under anyio (it
sleeps with asyncio.sleep when sniffio says asyncio) and its `set_testing()` is the kind of
switch wanted here, but it covers only part of the job. Its backoff hook may return a
server's delay, which it then uses as is ("none of the other backoff parameters apply to
it"), so the cap would be ours to add anyway. It retries a call, while the supervisor's
restart delay and the outbox's durable "retry at" time are delays to compute, not calls to
repeat, and the function that computes its delays is private, so those two would keep a
formula of their own. Its jitter is a number of seconds added on top of the delay, not a
share of it. Its testing mode sets every retry loop to one attempt unless told `cap=True`.
And the adapters' own rules (a stream that already sent text is not retried, the last
failure becomes RateLimited or ModelUnavailable) would sit in hooks and wrappers around it.
What is left to share is a formula and one sleep, so they live here, without a dependency.
"""

from __future__ import annotations

import contextlib
import math
import random
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import anyio
import anyio.lowlevel

# 2**64 times any sensible base is past any cap; a larger exponent would only overflow.
_MAX_EXPONENT = 64


@dataclass(frozen=True, slots=True)
class Backoff:
    """How long to wait before each retry, and how many attempts to make in all.

    `base` is the longest first delay, `cap` the longest delay ever (a server's hint
    included), `jitter` the fraction of each delay that is random (0: none, 1: anywhere
    from zero up to the delay), `attempts` the number of tries including the first.
    """

    base: float = 1.0
    cap: float = 20.0
    jitter: float = 0.5
    attempts: int = 4

    def __post_init__(self) -> None:
        if not (math.isfinite(self.base) and self.base >= 0):
            raise ValueError(f"base must be a finite number of seconds >= 0, not {self.base!r}")
        if not (math.isfinite(self.cap) and self.cap >= 0):
            raise ValueError(f"cap must be a finite number of seconds >= 0, not {self.cap!r}")
        if not 0 <= self.jitter <= 1:
            raise ValueError(f"jitter must be between 0 and 1, not {self.jitter!r}")
        if self.attempts < 1:
            raise ValueError(f"attempts must be at least 1, not {self.attempts!r}")

    def delay(self, retry: int, hint: float | None = None, *, rng: random.Random | None = None) -> float:
        """The delay before retry number `retry` (1 for the first retry, after the first failure).

        A usable `hint` (finite, not negative) is the server's wish and wins over the
        backoff, but never beyond `cap`.
        """
        if hint is not None and math.isfinite(hint) and hint >= 0:
            return min(hint, self.cap)
        exponent = min(max(retry - 1, 0), _MAX_EXPONENT)
        ceiling = min(self.cap, self.base * 2**exponent)
        return (rng or random).uniform(ceiling * (1 - self.jitter), ceiling)

    def is_last(self, attempt: int) -> bool:
        """Whether attempt number `attempt` (1-based) is the last one allowed."""
        return attempt >= self.attempts

    async def wait(self, retry: int, hint: float | None = None) -> float:
        """Wait before retry number `retry` (see `delay`); return the delay chosen."""
        seconds = self.delay(retry, hint)
        await wait(seconds)
        return seconds


class Retryable(Exception):
    """One attempt failed in a way another attempt may not (a 429, a 5xx, a transport failure).

    `problem` says what happened, for logs and for the error the caller raises once the
    attempts are spent; `hint` is the server's wish for the wait (Retry-After, RetryInfo).
    """

    def __init__(self, problem: str, *, hint: float | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.hint = hint


T = TypeVar("T")


async def retrying(
    backoff: Backoff,
    attempt: Callable[[], Awaitable[T]],
    *,
    on_retry: Callable[[Retryable, float], None] | None = None,
) -> T:
    """Await `attempt()` until it returns, raises anything but `Retryable`, or has been made
    `backoff.attempts` times; the last `Retryable` is then raised for the caller to translate.

    Between attempts it waits `backoff.delay` (the failure's hint honoured up to the cap),
    after telling `on_retry` the failure and the delay chosen.
    """
    number = 1
    while True:
        try:
            return await attempt()
        except Retryable as failure:
            if backoff.is_last(number):
                raise
            seconds = backoff.delay(number, failure.hint)
            if on_retry is not None:
                on_retry(failure, seconds)
        await wait(seconds)
        number += 1


class _Switch:
    """Whether waits are off, and the delays asked for while the switch is set."""

    off = False
    asked: list[float] | None = None


async def wait(seconds: float) -> None:
    """Sleep for a retry or restart delay, unless tests switched waiting off."""
    if _Switch.asked is not None:
        _Switch.asked.append(seconds)
    if _Switch.off:
        await anyio.lowlevel.checkpoint()
    else:
        await anyio.sleep(seconds)


@contextlib.contextmanager
def waits_off() -> Iterator[list[float]]:
    """For tests: every retry wait returns at once; yields the list of delays asked for."""
    with _switched(off=True) as asked:
        yield asked


@contextlib.contextmanager
def waits_on() -> Iterator[list[float]]:
    """For tests inside `waits_off`: waits really wait again; yields the delays asked for."""
    with _switched(off=False) as asked:
        yield asked


@contextlib.contextmanager
def _switched(*, off: bool) -> Iterator[list[float]]:
    before = (_Switch.off, _Switch.asked)
    asked: list[float] = []
    _Switch.off, _Switch.asked = off, asked
    try:
        yield asked
    finally:
        _Switch.off, _Switch.asked = before
