"""The operational ports: rate-limit buckets, stuck conversation claims, and what the
readiness report reads (the supervisor, the mailbox, the database, the MCP dependency)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Taken:
    """What a take got: `tokens` (0 to the number asked for); with none, the seconds until one is back."""

    tokens: int
    wait: float = 0.0


class RateLimits(Protocol):
    """Token buckets by key (PostgreSQL: shared by every replica)."""

    async def take(self, key: str, per_minute: float, burst: int, most: int = 1) -> Taken:
        """Up to `most` tokens of `key`'s bucket (as many as it holds, whole ones), in one step."""
        ...


class StuckClaims(Protocol):
    async def release_stuck(self, older_than_seconds: float) -> Sequence[uuid.UUID]:
        """Release the claims on conversations whose turn has run longer than this."""
        ...


class Supervised(Protocol):
    """The supervisor, as the readiness report reads it."""

    def statuses(self) -> Sequence[Any]:
        """Each child's status: `name`, `state.value`, `restarts`, `last_error`."""
        ...

    def all_ready(self) -> bool: ...


class Inbox(Protocol):
    """The indexer's mailbox, as the readiness report reads it."""

    def statistics(self) -> Any:
        """`capacity`, `depth`, `waiting_senders`, `waiting_receivers`."""
        ...


class Database(Protocol):
    """The database's reachability, as the readiness report reads it."""

    @property
    def reason(self) -> str | None:
        """Why the database is away, while it is."""
        ...

    async def check(self) -> bool: ...

    @property
    def storage_full(self) -> str | None:
        """Why writes are refused for lack of disk space, while they are."""
        ...


class Gateway(Protocol):
    """The MCP server a chat instance uses, as the readiness report reads it."""

    last_error: str | None

    async def check(self) -> bool: ...
