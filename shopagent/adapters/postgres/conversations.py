"""PostgresConversations: conversations and their messages, with claims and fencing tokens.

A claim is one compare-and-set UPDATE that hands out a fresh token; everything a turn writes
afterwards (messages, the context flag, the release) is conditional on that token, so a turn
whose claim was reaped for taking too long can never write, nor free a newer claim.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

import asyncpg
import msgspec

from shopagent.adapters.postgres.pool import Connection, ConnectionPool
from shopagent.domain.chat import ChatMessage, Part, Usage
from shopagent.domain.conversation import Conversation

_parts_encoder = msgspec.json.Encoder()
_parts_decoder = msgspec.json.Decoder(list[Part])

_COLUMNS = """
    id, user_id, title, model_id, is_processing, processing_started_at, max_context_window_reached,
    input_tokens, output_tokens, created_at, updated_at
"""


class PostgresConversations:
    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool

    async def find(self, conversation_id: uuid.UUID, *, with_messages: bool = True) -> Conversation | None:
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(f"SELECT {_COLUMNS} FROM conversation WHERE id = $1", conversation_id)
            if row is None:
                return None
            messages = []
            if with_messages:
                rows = await conn.fetch(
                    """
                    SELECT role, parts::text AS parts, provider_state, input_tokens, output_tokens
                    FROM conversation_message WHERE conversation_id = $1 ORDER BY sequence
                    """,
                    conversation_id,
                )
                messages = [_message(r) for r in rows]
        return _conversation(row, messages)

    async def list_for(
        self, user_id: str, *, limit: int, before: tuple[datetime, uuid.UUID] | None = None
    ) -> list[Conversation]:
        """The user's conversations, most recently active first (keyset pagination)."""
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                f"""
                SELECT {_COLUMNS} FROM conversation
                WHERE user_id = $1 AND ($2::timestamptz IS NULL OR (updated_at, id) < ($2, $3))
                ORDER BY updated_at DESC, id DESC LIMIT $4
                """,
                user_id,
                before[0] if before else None,
                before[1] if before else None,
                limit,
            )
        return [_conversation(r, []) for r in rows]

    async def create(self, user_id: str, title: str, model_id: str, messages: Sequence[ChatMessage]) -> uuid.UUID:
        """A new conversation with its first messages, in one transaction."""
        conversation_id = uuid.uuid4()
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO conversation (id, user_id, title, model_id) VALUES ($1, $2, $3, $4)",
                conversation_id,
                user_id,
                title,
                model_id,
            )
            await _append(conn, conversation_id, messages)
        return conversation_id

    async def claim(self, conversation_id: uuid.UUID) -> uuid.UUID | None:
        """Mark the conversation as processing; the fencing token, or None if it is busy or closed."""
        async with self._pool.acquire() as conn:
            return await conn.fetchval(
                """
                UPDATE conversation
                SET is_processing = true, processing_started_at = now(), claim_token = gen_random_uuid()
                WHERE id = $1 AND NOT is_processing AND NOT max_context_window_reached
                RETURNING claim_token
                """,
                conversation_id,
            )

    async def append(self, conversation_id: uuid.UUID, token: uuid.UUID, messages: Sequence[ChatMessage]) -> bool:
        """Add messages (one INSERT) if we still hold the claim; False if it was lost."""
        async with self._pool.acquire() as conn, conn.transaction():
            held = await conn.fetchval(
                "SELECT 1 FROM conversation WHERE id = $1 AND claim_token = $2 FOR UPDATE", conversation_id, token
            )
            if not held:
                return False
            await _append(conn, conversation_id, messages)
        return True

    async def release(self, conversation_id: uuid.UUID, token: uuid.UUID) -> bool:
        """End our claim; False if it was no longer ours (reaped, maybe claimed again)."""
        async with self._pool.acquire() as conn:
            released = await conn.fetchval(
                """
                UPDATE conversation SET is_processing = false, processing_started_at = NULL, claim_token = NULL
                WHERE id = $1 AND claim_token = $2
                RETURNING id
                """,
                conversation_id,
                token,
            )
        return released is not None

    async def mark_context_limit(self, conversation_id: uuid.UUID, token: uuid.UUID) -> bool:
        async with self._pool.acquire() as conn:
            marked = await conn.fetchval(
                "UPDATE conversation SET max_context_window_reached = true, updated_at = now() "
                "WHERE id = $1 AND claim_token = $2 RETURNING id",
                conversation_id,
                token,
            )
        return marked is not None

    async def release_stuck(self, older_than_seconds: float, batch: int = 100) -> list[uuid.UUID]:
        """Release claims held longer than the threshold (turns that crashed or hang)."""
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                """
                WITH stuck AS (
                    SELECT id FROM conversation
                    WHERE is_processing AND processing_started_at < now() - make_interval(secs => $1)
                    ORDER BY processing_started_at
                    LIMIT $2
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE conversation c
                SET is_processing = false, processing_started_at = NULL, claim_token = NULL
                FROM stuck WHERE c.id = stuck.id
                RETURNING c.id
                """,
                older_than_seconds,
                batch,
            )
        return [r["id"] for r in rows]

    async def delete(self, conversation_id: uuid.UUID) -> bool | None:
        """Delete it: True; False if it is processing (refused); None if it does not exist."""
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(
                """
                WITH target AS (SELECT id, is_processing FROM conversation WHERE id = $1),
                     gone AS (DELETE FROM conversation c USING target
                              WHERE c.id = target.id AND NOT target.is_processing RETURNING c.id)
                SELECT (SELECT is_processing FROM target) AS processing, (SELECT count(*) FROM gone) AS deleted
                """,
                conversation_id,
            )
        assert row is not None  # a SELECT without FROM: always one row
        if row["processing"] is None:
            return None
        return bool(row["deleted"])


async def _append(conn: Connection, conversation_id: uuid.UUID, messages: Sequence[ChatMessage]) -> None:
    if not messages:
        return
    usage = Usage()
    for message in messages:
        usage = usage + (message.usage or Usage())
    await conn.execute(
        """
        WITH base AS (
            SELECT coalesce(max(sequence), 0) AS last FROM conversation_message WHERE conversation_id = $1
        )
        INSERT INTO conversation_message
            (conversation_id, sequence, role, parts, provider_state, input_tokens, output_tokens)
        SELECT $1, base.last + t.n, t.role, t.parts::jsonb, t.state::jsonb, t.input_tokens, t.output_tokens
        FROM base, unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::int[])
             WITH ORDINALITY AS t(role, parts, state, input_tokens, output_tokens, n)
        """,
        conversation_id,
        [m.role for m in messages],
        [_parts_encoder.encode(m.parts).decode() for m in messages],
        [_parts_encoder.encode(m.provider_state).decode() if m.provider_state is not None else None for m in messages],
        [m.usage.input_tokens if m.usage else None for m in messages],
        [m.usage.output_tokens if m.usage else None for m in messages],
    )
    await conn.execute(
        """
        UPDATE conversation SET input_tokens = input_tokens + $2, output_tokens = output_tokens + $3,
            updated_at = now()
        WHERE id = $1
        """,
        conversation_id,
        usage.input_tokens,
        usage.output_tokens,
    )


def _message(row: asyncpg.Record) -> ChatMessage:
    usage = None
    if row["input_tokens"] is not None or row["output_tokens"] is not None:
        usage = Usage(row["input_tokens"] or 0, row["output_tokens"] or 0)
    return ChatMessage(
        role=row["role"],
        parts=_parts_decoder.decode(row["parts"]),
        provider_state=row["provider_state"],
        usage=usage,
    )


def _conversation(row: asyncpg.Record, messages: list[ChatMessage]) -> Conversation:
    return Conversation(
        id=row["id"],
        user_id=row["user_id"],
        title=row["title"],
        model_id=row["model_id"],
        is_processing=row["is_processing"],
        processing_started_at=row["processing_started_at"],
        max_context_window_reached=row["max_context_window_reached"],
        usage=Usage(row["input_tokens"], row["output_tokens"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        messages=messages,
    )
