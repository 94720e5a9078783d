"""The service's one retry policy: delays, caps, server hints, attempts, and the testing switch."""

from __future__ import annotations

import math
import random

import anyio
import pytest

from shopagent.runtime.retry import Backoff, Retryable, retrying, wait, waits_off, waits_on

pytestmark = pytest.mark.anyio


def test_delays_double_from_the_base_up_to_the_cap():
    backoff = Backoff(base=1, cap=10, jitter=0)
    assert [backoff.delay(retry) for retry in range(1, 7)] == [1, 2, 4, 8, 10, 10]


def test_a_very_late_retry_is_still_the_cap_not_an_overflow():
    assert Backoff(base=0.5, cap=300, jitter=0).delay(5000) == 300


@pytest.mark.parametrize("jitter", [0.0, 0.2, 0.5, 1.0])
def test_jitter_takes_the_delay_down_by_at_most_its_fraction_and_never_above_the_ceiling(jitter: float):
    backoff = Backoff(base=1, cap=6, jitter=jitter)
    rng = random.Random(7)  # noqa: S311 - seeded, so the test repeats; not for secrets
    for retry, ceiling in [(1, 1), (2, 2), (3, 4), (4, 6), (9, 6)]:
        delays = [backoff.delay(retry, rng=rng) for _ in range(500)]
        assert min(delays) >= ceiling * (1 - jitter)
        assert max(delays) <= ceiling
        if jitter:
            assert max(delays) - min(delays) > ceiling * jitter * 0.8  # the range is used, not one point


def test_a_server_hint_replaces_the_backoff():
    backoff = Backoff(base=30, cap=60)
    assert backoff.delay(1, hint=0) == 0
    assert backoff.delay(3, hint=2.5) == 2.5


def test_a_server_hint_above_the_cap_is_capped():
    assert Backoff(base=1, cap=20).delay(1, hint=3600) == 20


@pytest.mark.parametrize("hint", [-1.0, math.inf, math.nan])
def test_an_unusable_hint_falls_back_to_the_backoff(hint: float):
    assert Backoff(base=2, cap=20, jitter=0).delay(2, hint=hint) == 4


def test_the_attempt_count_includes_the_first_try():
    backoff = Backoff(attempts=3)
    assert [backoff.is_last(attempt) for attempt in (1, 2, 3)] == [False, False, True]
    assert Backoff(attempts=1).is_last(1)


@pytest.mark.parametrize(
    "options",
    [{"attempts": 0}, {"base": -1}, {"cap": math.inf}, {"jitter": 1.5}, {"jitter": -0.1}],
    ids=["no-attempts", "negative-base", "endless-cap", "jitter-above-one", "negative-jitter"],
)
def test_a_nonsensical_policy_is_refused(options: dict[str, float]):
    with pytest.raises(ValueError, match=next(iter(options))):
        Backoff(**options)


async def test_with_waits_off_a_wait_returns_at_once_and_records_the_delay(retry_waits: list[float]):
    with anyio.fail_after(1):
        await wait(3600)
        assert await Backoff(base=1, cap=600).wait(1, hint=7200) == 600
    assert retry_waits == [3600, 600]


async def test_with_waits_off_a_wait_still_lets_cancellation_in():
    with anyio.move_on_after(0.1) as scope:
        while True:  # a retry loop that never succeeds must not hang its caller
            await wait(60)
    assert scope.cancelled_caught


async def test_waits_on_inside_waits_off_really_waits_and_the_switch_is_restored_after(retry_waits: list[float]):
    with waits_on() as asked:
        started = anyio.current_time()
        await wait(0.05)
        assert anyio.current_time() - started >= 0.05
    assert asked == [0.05]
    with anyio.fail_after(1):
        await wait(3600)  # off again, as the fixture left it
    assert retry_waits == [3600]


async def test_switches_nest_each_with_its_own_record(retry_waits: list[float]):
    with waits_off() as inner:
        await wait(1)
    await wait(2)
    assert (inner, retry_waits) == ([1], [2])


class Flaky:
    """An attempt that fails `failures` times with `Retryable` (hint `hint`), then answers."""

    def __init__(self, failures: int, hint: float | None = None) -> None:
        self.failures, self.hint, self.made = failures, hint, 0

    async def __call__(self) -> str:
        self.made += 1
        if self.made <= self.failures:
            raise Retryable(f"failure {self.made}", hint=self.hint)
        return "answer"


async def test_the_attempt_loop_retries_until_an_answer_waiting_the_backoff_between(retry_waits: list[float]):
    told: list[tuple[str, float]] = []
    flaky = Flaky(2)
    answer = await retrying(
        Backoff(base=1, jitter=0, attempts=3), flaky, on_retry=lambda f, d: told.append((f.problem, d))
    )
    assert (answer, flaky.made, retry_waits) == ("answer", 3, [1, 2])
    assert told == [("failure 1", 1), ("failure 2", 2)]


async def test_the_attempt_loop_stops_at_the_budget_and_raises_the_last_failure(retry_waits: list[float]):
    flaky = Flaky(10)
    with pytest.raises(Retryable, match="failure 4"):
        await retrying(Backoff(base=1, jitter=0, attempts=4), flaky)
    assert (flaky.made, retry_waits) == (4, [1, 2, 4])


async def test_the_attempt_loop_waits_as_the_server_hints_up_to_the_cap(retry_waits: list[float]):
    await retrying(Backoff(base=1, cap=5, attempts=3), Flaky(1, hint=3))
    await retrying(Backoff(base=1, cap=5, attempts=3), Flaky(1, hint=3600))
    assert retry_waits == [3, 5]


async def test_any_other_failure_ends_the_attempt_loop_at_once(retry_waits: list[float]):
    async def refused() -> str:
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        await retrying(Backoff(attempts=5), refused)
    assert retry_waits == []
