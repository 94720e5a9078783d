"""Implementations of the `Conversations` and `RateLimits` ports for their contract suites
(tests/test_conversations_contract.py, tests/test_rate_limits_contract.py): each factory takes
the pytest request (for the fixtures it needs) and returns the async context that opens a
fresh, empty store. Another implementation joins a suite by adding its factory here."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest

from shopagent.adapters.memory.conversations import MemoryConversations
from shopagent.adapters.memory.rate_limits import MemoryRateLimits

Opener = Callable[[pytest.FixtureRequest], AbstractAsyncContextManager[Any]]


def _on_postgres(adapter: str) -> Opener:
    def open_it(request: pytest.FixtureRequest) -> AbstractAsyncContextManager[Any]:
        return _postgres(request.getfixturevalue("database"), adapter)

    return open_it


@contextlib.asynccontextmanager
async def _postgres(dsn: str, adapter: str) -> AsyncIterator[Any]:
    from shopagent.adapters.postgres.conversations import PostgresConversations
    from shopagent.adapters.postgres.database import GuardedPool, open_pool
    from shopagent.adapters.postgres.rate_limits import PostgresRateLimits

    async with open_pool(dsn, min_size=1, max_size=4, connect_timeout=10, command_timeout=60) as raw:
        pool = GuardedPool(raw, dsn)
        yield {"conversations": PostgresConversations, "rate_limits": PostgresRateLimits}[adapter](pool)


def _in_memory(make: Callable[[], Any]) -> Opener:
    @contextlib.asynccontextmanager
    async def opened() -> AsyncIterator[Any]:
        yield make()

    return lambda request: opened()


CONVERSATIONS: dict[str, Opener] = {
    "postgres": _on_postgres("conversations"),
    "memory": _in_memory(MemoryConversations),
}
RATE_LIMITS: dict[str, Opener] = {"postgres": _on_postgres("rate_limits"), "memory": _in_memory(MemoryRateLimits)}
