"""MemoryConversations: the `Conversations` port (and the reaper's `StuckClaims`) in memory,
for tests of the chat turn that are not about SQL. It keeps the PostgreSQL adapter's rules —
one claim at a time with a fresh fencing token, writes only with the current token, the
context flag closing the conversation, a processing conversation not deleted — and runs
the same contract suite (tests/test_conversations_contract.py), so it cannot drift."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import msgspec

from shopagent.domain.chat import ChatMessage, Usage
from shopagent.domain.conversation import Conversation


@dataclass
class _Stored:
    conversation: Conversation
    token: uuid.UUID | None = None
    messages: list[ChatMessage] = field(default_factory=list)


class MemoryConversations:
    def __init__(self, clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._clock = clock
        self._stored: dict[uuid.UUID, _Stored] = {}

    async def find(self, conversation_id: uuid.UUID, *, with_messages: bool = True) -> Conversation | None:
        stored = self._stored.get(conversation_id)
        if stored is None:
            return None
        return msgspec.structs.replace(stored.conversation, messages=list(stored.messages) if with_messages else [])

    async def list_for(
        self, user_id: str, *, limit: int, before: tuple[datetime, uuid.UUID] | None = None
    ) -> list[Conversation]:
        """The user's conversations, most recently active first (keyset pagination)."""
        mine = [s.conversation for s in self._stored.values() if s.conversation.user_id == user_id]
        mine.sort(key=lambda c: (c.updated_at, c.id), reverse=True)
        if before is not None:
            mine = [c for c in mine if (c.updated_at, c.id) < before]
        return mine[:limit]

    async def create(self, user_id: str, title: str, model_id: str, messages: Sequence[ChatMessage]) -> uuid.UUID:
        now = self._clock()
        conversation = Conversation(
            id=uuid.uuid4(), user_id=user_id, title=title, model_id=model_id, is_processing=False,
            processing_started_at=None, max_context_window_reached=False, usage=Usage(), created_at=now,
            updated_at=now,
        )  # fmt: skip
        self._stored[conversation.id] = stored = _Stored(conversation)
        self._add(stored, messages)
        return conversation.id

    async def claim(self, conversation_id: uuid.UUID) -> uuid.UUID | None:
        stored = self._stored.get(conversation_id)
        if stored is None or stored.conversation.is_processing or stored.conversation.max_context_window_reached:
            return None
        stored.token = uuid.uuid4()
        self._set(stored, is_processing=True, processing_started_at=self._clock())
        return stored.token

    async def append(self, conversation_id: uuid.UUID, token: uuid.UUID, messages: Sequence[ChatMessage]) -> bool:
        stored = self._held(conversation_id, token)
        if stored is None:
            return False
        self._add(stored, messages)
        return True

    async def release(self, conversation_id: uuid.UUID, token: uuid.UUID) -> bool:
        stored = self._held(conversation_id, token)
        if stored is None:
            return False
        self._unclaim(stored)
        return True

    async def mark_context_limit(self, conversation_id: uuid.UUID, token: uuid.UUID) -> bool:
        stored = self._held(conversation_id, token)
        if stored is None:
            return False
        self._set(stored, max_context_window_reached=True, updated_at=self._clock())
        return True

    async def release_stuck(self, older_than_seconds: float, batch: int = 100) -> list[uuid.UUID]:
        now = self._clock()
        cutoff = now - timedelta(seconds=older_than_seconds)

        def started(stored: _Stored) -> datetime:
            return stored.conversation.processing_started_at or now

        stuck = sorted(
            (s for s in self._stored.values() if s.conversation.is_processing and started(s) < cutoff), key=started
        )[:batch]
        for stored in stuck:
            self._unclaim(stored)
        return [s.conversation.id for s in stuck]

    async def delete(self, conversation_id: uuid.UUID) -> bool | None:
        stored = self._stored.get(conversation_id)
        if stored is None:
            return None
        if stored.conversation.is_processing:
            return False
        del self._stored[conversation_id]
        return True

    def _held(self, conversation_id: uuid.UUID, token: uuid.UUID) -> _Stored | None:
        stored = self._stored.get(conversation_id)
        return stored if stored is not None and stored.token == token else None

    def _unclaim(self, stored: _Stored) -> None:
        stored.token = None
        self._set(stored, is_processing=False, processing_started_at=None)

    def _add(self, stored: _Stored, messages: Sequence[ChatMessage]) -> None:
        if not messages:
            return
        usage = stored.conversation.usage
        for message in messages:
            usage = usage + (message.usage or Usage())
        stored.messages.extend(messages)
        self._set(stored, usage=usage, updated_at=self._clock())

    @staticmethod
    def _set(stored: _Stored, **changes: object) -> None:
        stored.conversation = msgspec.structs.replace(stored.conversation, **changes)
