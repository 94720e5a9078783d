"""The `RateLimits` port's contract, run against every implementation
(tests/storage_backends.py: PostgreSQL and the in-memory twin), and shown to catch a twin
that breaks it."""

from __future__ import annotations

import anyio
import pytest

from shopagent.adapters.memory.rate_limits import MemoryRateLimits
from shopagent.application.ports.operations import Taken
from tests.storage_backends import RATE_LIMITS, twin

pytestmark = pytest.mark.anyio


async def gives_the_burst_then_says_how_long_until_a_token_is_back(limits, advance) -> None:
    assert [(await limits.take("k", 60, 3)).tokens for _ in range(3)] == [1, 1, 1]
    refused = await limits.take("k", 60, 3)
    assert refused.tokens == 0 and 0 < refused.wait <= 1.0  # one token a second


async def gives_a_batch_what_the_bucket_holds_and_no_more(limits, advance) -> None:
    assert await limits.take("k", 6, 5, most=3) == Taken(3)
    assert await limits.take("k", 6, 5, most=3) == Taken(2)
    assert (await limits.take("k", 6, 5, most=3)).tokens == 0


async def keeps_each_key_in_a_bucket_of_its_own(limits, advance) -> None:
    assert (await limits.take("a", 1, 1)).tokens == 1
    assert (await limits.take("a", 1, 1)).tokens == 0
    assert (await limits.take("b", 1, 1)).tokens == 1


async def refills_with_time_up_to_the_burst(limits, advance) -> None:
    await limits.take("k", 6000, 2, most=2)  # 100 tokens a second, both taken
    refused = await limits.take("k", 6000, 2)
    # Time is what refills a bucket: the wait asked for, then enough for 5 more; the burst holds 2.
    await advance(refused.wait + 0.05)
    assert (await limits.take("k", 6000, 2, most=10)).tokens == 2


async def never_overspends_under_concurrent_takes(limits, advance) -> None:
    got: list[int] = []

    async def take() -> None:
        got.append((await limits.take("k", 1, 5, most=2)).tokens)

    async with anyio.create_task_group() as tg:
        for _ in range(10):
            tg.start_soon(take)
    assert sum(got) == 5


async def forgets_only_idle_buckets(limits, advance) -> None:
    await limits.take("k", 1, 1)
    assert await limits.forget_idle(3600) == 0
    assert (await limits.take("k", 1, 1)).tokens == 0  # still spent
    await advance(20)
    assert await limits.forget_idle(10) == 1
    assert (await limits.take("k", 1, 1)).tokens == 1  # a fresh, full bucket


CONTRACT = [
    gives_the_burst_then_says_how_long_until_a_token_is_back,
    gives_a_batch_what_the_bucket_holds_and_no_more,
    keeps_each_key_in_a_bucket_of_its_own,
    refills_with_time_up_to_the_burst,
    never_overspends_under_concurrent_takes,
    forgets_only_idle_buckets,
]


@pytest.fixture(params=sorted(RATE_LIMITS))
def limits_opener(request: pytest.FixtureRequest):
    return RATE_LIMITS[request.param](request)  # synchronously: it may ask for the database fixture


@pytest.fixture
async def limits(limits_opener):
    """Each implementation of the port (tests/storage_backends.py), over a fresh store, with
    the way to let time pass for it."""
    async with limits_opener as opened:
        yield opened


@pytest.mark.parametrize("rule", CONTRACT, ids=lambda rule: rule.__name__)
async def test_the_rate_limits_contract(limits, rule) -> None:
    await rule(limits.store, limits.advance)


class NeverEmpty(MemoryRateLimits):
    """A twin that drifted: a bucket it cannot take a whole token from is refilled to the burst."""

    async def take(self, key: str, per_minute: float, burst: int, most: int = 1) -> Taken:
        taken = await super().take(key, per_minute, burst, most)
        if taken.tokens == 0:
            self._buckets.pop(key)
            return await super().take(key, per_minute, burst, most)
        return taken


async def test_a_twin_that_breaks_a_rule_fails_the_contract() -> None:
    failed = []
    for rule in CONTRACT:
        try:
            await rule(*twin(lambda clock: NeverEmpty(clock.monotonic)))
        except AssertionError:
            failed.append(rule.__name__)
    assert "gives_the_burst_then_says_how_long_until_a_token_is_back" in failed
    assert "never_overspends_under_concurrent_takes" in failed
