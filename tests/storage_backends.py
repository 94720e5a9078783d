"""Implementations of the `Conversations` and `RateLimits` ports for their contract suites
(tests/test_conversations_contract.py, tests/test_rate_limits_contract.py): each factory takes
the pytest request (for the fixtures it needs) and returns the async context that opens a
fresh, empty store, with a way to let time pass for it. Another implementation joins a suite
by adding its factory here."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

import pytest

from shopagent.adapters.memory.conversations import MemoryConversations
from shopagent.adapters.memory.rate_limits import MemoryRateLimits
from tests.clocks import FakeClock


@dataclass
class Opened:
    """A fresh store, and `advance(seconds)`: the store's time moves on that much (no sleeping)."""

    store: Any
    advance: Callable[[float], Awaitable[None]]


Opener = Callable[[pytest.FixtureRequest], AbstractAsyncContextManager[Opened]]

# The database's clock cannot be moved; its stored times can be moved back instead, which is
# the same to every rule the store keeps (only differences from now count).
_AGE = {
    "conversations": """UPDATE conversation SET created_at = created_at - make_interval(secs => $1),
        updated_at = updated_at - make_interval(secs => $1),
        processing_started_at = processing_started_at - make_interval(secs => $1)""",
    "rate_limits": "UPDATE rate_bucket SET updated_at = updated_at - make_interval(secs => $1)",
}


def _on_postgres(adapter: str) -> Opener:
    def open_it(request: pytest.FixtureRequest) -> AbstractAsyncContextManager[Opened]:
        return _postgres(request.getfixturevalue("database"), adapter)

    return open_it


@contextlib.asynccontextmanager
async def _postgres(dsn: str, adapter: str) -> AsyncIterator[Opened]:
    from shopagent.adapters.postgres.conversations import PostgresConversations
    from shopagent.adapters.postgres.database import GuardedPool, open_pool
    from shopagent.adapters.postgres.rate_limits import PostgresRateLimits

    async with open_pool(dsn, min_size=1, max_size=4, connect_timeout=10, command_timeout=60) as raw:
        pool = GuardedPool(raw, dsn)

        async def advance(seconds: float) -> None:
            async with pool.acquire() as conn:
                await conn.execute(_AGE[adapter], seconds)

        store = {"conversations": PostgresConversations, "rate_limits": PostgresRateLimits}[adapter](pool)
        yield Opened(store, advance)


def _in_memory(make: Callable[[FakeClock], Any]) -> Opener:
    @contextlib.asynccontextmanager
    async def opened() -> AsyncIterator[Opened]:
        yield Opened(*twin(make))

    return lambda request: opened()


def twin(make: Callable[[FakeClock], Any]) -> tuple[Any, Callable[[float], Awaitable[None]]]:
    """A twin built by `make` on a clock of its own, and the way to move that clock. The clock
    moves a microsecond at each reading, as the database's does between statements."""
    clock = FakeClock(1e-6)

    async def advance(seconds: float) -> None:
        clock.advance(seconds)

    return make(clock), advance


def memory_conversations(clock: FakeClock) -> MemoryConversations:
    return MemoryConversations(clock.now)


def memory_rate_limits(clock: FakeClock) -> MemoryRateLimits:
    return MemoryRateLimits(clock.monotonic)


CONVERSATIONS: dict[str, Opener] = {
    "postgres": _on_postgres("conversations"),
    "memory": _in_memory(memory_conversations),
}
RATE_LIMITS: dict[str, Opener] = {"postgres": _on_postgres("rate_limits"), "memory": _in_memory(memory_rate_limits)}
