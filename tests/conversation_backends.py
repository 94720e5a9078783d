"""Implementations of the `Conversations` port for its contract suite
(tests/test_conversations_contract.py): each factory takes the pytest request (for the
fixtures it needs) and returns the async context that opens a fresh, empty store."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest

from shopagent.adapters.memory.conversations import MemoryConversations


def postgres_backend(request: pytest.FixtureRequest) -> AbstractAsyncContextManager[Any]:
    return _postgres(request.getfixturevalue("database"))


@contextlib.asynccontextmanager
async def _postgres(dsn: str) -> AsyncIterator[Any]:
    from shopagent.adapters.postgres.conversations import PostgresConversations
    from shopagent.adapters.postgres.database import GuardedPool, open_pool

    async with open_pool(dsn, min_size=1, max_size=4, connect_timeout=10, command_timeout=60) as raw:
        yield PostgresConversations(GuardedPool(raw, dsn))


def memory_backend(request: pytest.FixtureRequest) -> AbstractAsyncContextManager[Any]:
    return _memory()


@contextlib.asynccontextmanager
async def _memory() -> AsyncIterator[Any]:
    yield MemoryConversations()


BACKENDS: dict[str, Callable[[pytest.FixtureRequest], AbstractAsyncContextManager[Any]]] = {
    "postgres": postgres_backend,
    "memory": memory_backend,
}
