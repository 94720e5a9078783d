"""The chat API's JSON: request and response bodies, and the views of stored conversations.

A stored tool result is shown whole, or as its JSON text cut to a limit with a marker, so a
conversation with a long catalog answer stays readable.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any

import msgspec

from shopagent.application.conversations import MAX_QUERY_CHARS
from shopagent.domain.chat import ChatMessage, FunctionCall, FunctionResponse
from shopagent.domain.conversation import Conversation
from shopagent.domain.prices import FALLBACK_LOCALE
from shopagent.entrypoints.http.cards import ProductCard, presented_cards

_encoder = msgspec.json.Encoder()

AUDIT_RESULT_CHARS = 16_000  # default: a tool result longer than this (as JSON) is shown cut, with a marker


# What the chat service takes as a query, for the document (it checks with messages of its own):
# no control characters but tab and line breaks, and something besides white space.
_TEXT = "[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]"
_VISIBLE = "[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
QUERY_PATTERN = f"^{_TEXT}*{_VISIBLE}{_TEXT}*$"


class ChatRequest(msgspec.Struct, forbid_unknown_fields=True, rename="camel", kw_only=True):
    query: Annotated[
        str, msgspec.Meta(min_length=1, max_length=MAX_QUERY_CHARS, extra_json_schema={"pattern": QUERY_PATTERN})
    ]
    conversation_id: uuid.UUID | None = None


class ChatResponse(msgspec.Struct, rename="camel", kw_only=True):
    conversation_id: uuid.UUID
    response: str
    # The products the answer presents, in its order: a client draws these as cards.
    products: list[ProductCard] = msgspec.field(default_factory=list)


class UsageView(msgspec.Struct, rename="camel", kw_only=True):
    input_tokens: int
    output_tokens: int


class ToolCallView(msgspec.Struct, rename="camel", kw_only=True):
    id: str | None
    name: str
    arguments: dict[str, Any]


class ToolResultView(msgspec.Struct, rename="camel", kw_only=True):
    id: str | None
    name: str
    is_error: bool
    result: Any  # the tool's result as the model saw it; a text excerpt when truncated
    truncated: bool


class MessageView(msgspec.Struct, rename="camel", kw_only=True):
    sequence: int
    role: str
    text: str
    tool_calls: list[ToolCallView]
    tool_results: list[ToolResultView]
    usage: UsageView | None
    # An answer's: the products it presents, in its order (the cards a client draws under it).
    products: list[ProductCard] = msgspec.field(default_factory=list)


class ConversationSummary(msgspec.Struct, rename="camel", kw_only=True):
    id: uuid.UUID
    title: str
    model_id: str
    is_processing: bool
    max_context_window_reached: bool
    usage: UsageView
    created_at: datetime
    updated_at: datetime


class ConversationDetail(ConversationSummary, kw_only=True):
    messages: list[MessageView]


class ConversationPage(msgspec.Struct, rename="camel", kw_only=True):
    conversations: list[ConversationSummary]
    next: str | None


def summary_view(c: Conversation) -> ConversationSummary:
    return ConversationSummary(
        id=c.id, title=c.title, model_id=c.model_id, is_processing=c.is_processing,
        max_context_window_reached=c.max_context_window_reached,
        usage=UsageView(input_tokens=c.usage.input_tokens, output_tokens=c.usage.output_tokens),
        created_at=c.created_at, updated_at=c.updated_at,
    )  # fmt: skip


def detail_view(c: Conversation, result_chars: int, locale: str = FALLBACK_LOCALE) -> ConversationDetail:
    messages, results = [], list[FunctionResponse]()
    for sequence, message in enumerate(c.messages, 1):
        responses = [p for p in message.parts if isinstance(p, FunctionResponse)]
        calls = any(isinstance(p, FunctionCall) for p in message.parts)
        if message.role == "user" and not responses:
            results = []  # a new turn: the next answer presents what its own tools found
        results += responses
        answer = message.role == "model" and bool(message.text) and not calls
        products = presented_cards(message.text, results, locale) if answer else []
        messages.append(message_view(sequence, message, result_chars, products))
    summary = summary_view(c)
    return ConversationDetail(
        **{f: getattr(summary, f) for f in ConversationSummary.__struct_fields__}, messages=messages
    )


def message_view(
    sequence: int, message: ChatMessage, result_chars: int, products: list[ProductCard] | None = None
) -> MessageView:
    calls = [ToolCallView(id=p.id, name=p.name, arguments=p.args) for p in message.parts
             if isinstance(p, FunctionCall)]  # fmt: skip
    results = [_result_view(p, result_chars) for p in message.parts if isinstance(p, FunctionResponse)]
    usage = (
        UsageView(input_tokens=message.usage.input_tokens, output_tokens=message.usage.output_tokens)
        if message.usage
        else None
    )
    return MessageView(sequence=sequence, role=message.role, text=message.text, tool_calls=calls,
                       tool_results=results, usage=usage, products=products or [])  # fmt: skip


def _result_view(response: FunctionResponse, limit: int) -> ToolResultView:
    """A stored tool result for auditing: whole, or its JSON text cut to `limit` with a marker."""
    text = _encoder.encode(response.result).decode()
    result: Any = response.result
    truncated = len(text) > limit
    if truncated:
        result = f"{text[:limit]}… [truncated: {len(text)} characters in all]"
    return ToolResultView(id=response.id, name=response.name, is_error=bool(response.result.get("isError")),
                          result=result, truncated=truncated)  # fmt: skip
