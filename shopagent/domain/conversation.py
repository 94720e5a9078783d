"""Conversations: who owns one, whether a turn is running, and its stored messages."""

from __future__ import annotations

import uuid
from datetime import datetime

import msgspec

from shopagent.domain.chat import ChatMessage, FunctionResponse, Usage

TITLE_CHARS = 80


class Conversation(msgspec.Struct, frozen=True, kw_only=True):
    id: uuid.UUID
    user_id: str
    title: str
    model_id: str
    is_processing: bool
    processing_started_at: datetime | None
    max_context_window_reached: bool
    usage: Usage
    created_at: datetime
    updated_at: datetime
    messages: list[ChatMessage] = msgspec.field(default_factory=list)


def title_for(first_message: str) -> str:
    """The first user message, on one line, shortened at a word boundary."""
    text = " ".join(first_message.split())
    if len(text) <= TITLE_CHARS:
        return text
    cut = text[: TITLE_CHARS - 1].rsplit(" ", 1)[0]
    return cut + "…"


def turns(messages: list[ChatMessage]) -> list[list[ChatMessage]]:
    """Split history into whole turns: a user's text message and everything that answered it.

    A function call and its response always stay in the same turn.
    """
    grouped: list[list[ChatMessage]] = []
    for message in messages:
        starts_turn = message.role == "user" and not any(isinstance(p, FunctionResponse) for p in message.parts)
        if starts_turn or not grouped:
            grouped.append([])
        grouped[-1].append(message)
    return grouped


def estimate_context_tokens(messages: list[ChatMessage]) -> int:
    """A rough size of what the chat model would read, its tool calls and results as JSON
    (about 4 bytes per token), for the `chat.context_token_budget` check."""
    return sum(len(msgspec.json.encode(m.parts)) for m in messages) // 4 + 1


def trim_history(messages: list[ChatMessage], budget: int) -> list[ChatMessage]:
    """Drop the oldest whole turns until the rest fits `budget` (at least the newest turn stays)."""
    kept = turns(messages)
    while len(kept) > 1 and estimate_context_tokens([m for t in kept for m in t]) > budget:
        kept.pop(0)
    return [m for t in kept for m in t]


def halve_history(messages: list[ChatMessage]) -> list[ChatMessage]:
    """The newer half of the turns: what to retry with when the provider reports an overflow."""
    grouped = turns(messages)
    return [m for t in grouped[len(grouped) // 2 :] for m in t]
