"""What the PostgreSQL adapters are handed: a pool to take connections from, and what a
connection is to the functions that run statements on one."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Protocol, TypeAlias

import asyncpg
from asyncpg.pool import PoolConnectionProxy

# A dedicated connection (migrations, LISTEN, one-off commands) or one lent by a pool; asyncpg
# gives both the same statement methods.
Connection: TypeAlias = asyncpg.Connection | PoolConnectionProxy


class ConnectionPool(Protocol):
    """Where an adapter takes its connections from: the service's `GuardedPool` (which turns
    an outage into `DatabaseUnavailable`), or a plain asyncpg pool opened by a test or a tool."""

    def acquire(self) -> AbstractAsyncContextManager[PoolConnectionProxy]:
        """A connection for the length of the `async with`, given back to the pool after."""
        ...
