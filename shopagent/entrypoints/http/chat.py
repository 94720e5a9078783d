"""The chat API: POST /api/assistant-agent/chat (JSON or server-sent events) and conversations.

Every request carries `Authorization: Bearer <token>` (see domain/tokens.py); the user id
comes from the token, so a user only ever sees their own conversations (another user's is
404). Turns run in a task group owned by the app, not by the request: a client that drops
an event stream does not lose its turn, which completes and is stored.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from shopagent.application.conversations import MAX_QUERY_CHARS, ChatService
from shopagent.application.limits import RateLimit
from shopagent.domain.conversation import Conversation
from shopagent.domain.errors import ShopagentError, ShuttingDown, Unauthorized
from shopagent.domain.inputs import ascii_int
from shopagent.domain.prices import FALLBACK_LOCALE
from shopagent.domain.tokens import verify_token
from shopagent.entrypoints.http.bodies import read_json
from shopagent.entrypoints.http.cards import presented_cards
from shopagent.entrypoints.http.chat_stream import SSE_PING_SECONDS, STREAM_DESCRIPTION, stream_turn
from shopagent.entrypoints.http.chat_views import (
    AUDIT_RESULT_CHARS,
    ChatRequest,
    ChatResponse,
    ConversationDetail,
    ConversationPage,
    detail_view,
    summary_view,
)
from shopagent.entrypoints.http.errors import ApiError, log_failed_turn
from shopagent.entrypoints.http.openapi import ApiRoute, Operation, Query
from shopagent.entrypoints.http.turn_guard import TurnGuard
from shopagent.entrypoints.http.visitors import VisitorBudgets, client_address, is_visitor

__all__ = ["TurnGuard", "chat_routes"]

_encoder = msgspec.json.Encoder()
# The largest valid chat request, written compactly with every character escaped at its longest
# (a character outside the BMP as two \uXXXX escapes: 12 bytes), the keys and an id: less than this.
MAX_CHAT_BODY = MAX_QUERY_CHARS * 12 + 1024


def chat_routes(
    chat: Callable[[], ChatService],
    auth_secret: str,
    limiter: RateLimit,
    spawn: Callable[..., None],
    *,
    guard: TurnGuard | None = None,
    audit_result_chars: int = AUDIT_RESULT_CHARS,
    token_max_ttl_seconds: int | None = None,
    sse_ping_seconds: float = SSE_PING_SECONDS,
    read_limiter: RateLimit | None = None,
    visitors: VisitorBudgets | None = None,
    price_locale: str = FALLBACK_LOCALE,
) -> list[Route]:
    """`chat()` gives the running ChatService; `spawn(fn, *args)` runs a task the app owns;
    `guard` holds the turns in flight. Stored tool results longer than `audit_result_chars`
    (as JSON) are shown cut, with a marker. Messages spend `limiter` per user, or for anonymous
    visitors per client address plus the visitors' shared budget (`visitors`); listing,
    reading and deleting conversations spend `read_limiter` per user. Product cards write their
    prices in `price_locale`."""
    turns = guard or TurnGuard()

    async def take_message_budget(request: Request, user: str) -> None:
        if is_visitor(user):
            await limiter.take(f"chat:address:{client_address(request)}")
            if visitors is not None:
                await visitors.messages.take("chat:anonymous")
        else:
            await limiter.take(f"chat:{user}")

    async def reader(request: Request) -> str:
        user = user_of(request)
        if read_limiter is not None:
            await read_limiter.take(f"read:{user}")
        return user

    def user_of(request: Request) -> str:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("send your chat token as 'Authorization: Bearer <token>'")
        return verify_token(auth_secret, token.strip(), max_ttl_seconds=token_max_ttl_seconds)

    async def post_chat(request: Request) -> Response:
        user = user_of(request)
        body = await read_json(request, ChatRequest, limit=MAX_CHAT_BODY)
        await take_message_budget(request, user)
        if turns.closing:
            raise ShuttingDown("the assistant is restarting; send your message again in a moment")
        if "text/event-stream" in request.headers.get("accept", ""):
            return stream_turn(chat(), user, body, spawn, sse_ping_seconds, turns, audit_result_chars, price_locale)
        with turns.turn():
            try:
                result = await chat().run_turn(user, body.query, body.conversation_id)
            except ShopagentError as exc:
                log_failed_turn(exc)
                raise
        products = presented_cards(result.response, result.tool_results, price_locale)
        return _json(ChatResponse(conversation_id=result.conversation_id, response=result.response, products=products))

    async def list_conversations(request: Request) -> Response:
        user = await reader(request)
        limit = _limit(request)
        before = _cursor(request.query_params.get("before"))
        found = await chat().list(user, limit=limit, before=before)
        following = _make_cursor(found[-1]) if len(found) == limit else None
        return _json(ConversationPage(conversations=[summary_view(c) for c in found], next=following))

    async def get_conversation(request: Request) -> Response:
        conversation = await chat().get(await reader(request), _conversation_id(request))
        return _json(detail_view(conversation, audit_result_chars, price_locale))

    async def delete_conversation(request: Request) -> Response:
        await chat().delete(await reader(request), _conversation_id(request))
        return Response(status_code=204)

    return [
        ApiRoute("/api/assistant-agent/chat", post_chat, method="POST", operation=Operation(
            "Send a message; answers JSON, or server-sent events with Accept: text/event-stream",
            response=ChatResponse, body=ChatRequest, event_stream=True,
            errors=(400, 401, 404, 409, 413, 429, 502, 503, 504, 500), description=STREAM_DESCRIPTION)),
        ApiRoute("/api/conversations", list_conversations, method="GET", operation=Operation(
            "Your conversations, most recently active first", response=ConversationPage, errors=(400, 401, 429),
            query=(
                Query("limit", {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}),
                Query("before", {"type": "string", "pattern": CURSOR_PATTERN},
                      "`next` of the previous page; absent or empty: the first page"),
            ))),
        ApiRoute("/api/conversations/{conversation_id}", get_conversation, method="GET", operation=Operation(
            "One conversation with its messages, tool calls and tool results", response=ConversationDetail,
            errors=(401, 404, 429))),
        ApiRoute("/api/conversations/{conversation_id}", delete_conversation, method="DELETE", operation=Operation(
            "Delete a conversation (refused while it answers a message)", ok=204, errors=(401, 404, 409, 429))),
    ]  # fmt: skip


def _json(data: Any, status: int = 200) -> Response:
    return Response(_encoder.encode(data), status_code=status, media_type="application/json")


def _conversation_id(request: Request) -> uuid.UUID:
    raw = request.path_params["conversation_id"]
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise ApiError(404, "not_found", f"conversation {raw} does not exist") from None


def _limit(request: Request) -> int:
    raw = request.query_params.get("limit", "20")
    return ascii_int(raw, "limit", 1, 100)


# A cursor is the last conversation's activity time (microseconds since 1970, UTC) and its id:
# every text of this shape is a cursor (the pattern in the document is exact), so any string
# the document allows is answered with a page, never a 400.
CURSOR_PATTERN = "^([0-9]{1,16}\\.[0-9a-f]{32})?$"
_CURSOR = re.compile(CURSOR_PATTERN)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _make_cursor(c: Conversation) -> str:
    micros = (c.updated_at - _EPOCH) // timedelta(microseconds=1)
    return f"{micros}.{c.id.hex}"


def _cursor(raw: str | None) -> tuple[datetime, uuid.UUID] | None:
    if not raw:  # absent or empty: the first page
        return None
    if not _CURSOR.fullmatch(raw):
        raise ApiError(400, "validation_error", "before is not a cursor this API returned")
    micros, _, ident = raw.partition(".")
    return _EPOCH + timedelta(microseconds=int(micros)), uuid.UUID(hex=ident)
