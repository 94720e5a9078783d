"""The chat API: POST /api/assistant-agent/chat (JSON or server-sent events) and conversations.

Every request carries `Authorization: Bearer <token>` (see domain/tokens.py); the user id
comes from the token, so a user only ever sees their own conversations (another user's is
404). Turns run in a task group owned by the app, not by the request: a client that drops
an event stream does not lose its turn, which completes and is stored.
"""

from __future__ import annotations

import base64
import contextlib
import logging
import math
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import datetime
from typing import Annotated, Any

import anyio
import msgspec
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from shopagent.application.agent import AgentEvent
from shopagent.application.conversations import MAX_QUERY_CHARS, ChatService
from shopagent.application.limits import RateLimit
from shopagent.domain.chat import ChatMessage, FunctionCall, FunctionResponse
from shopagent.domain.conversation import Conversation
from shopagent.domain.errors import ShopagentError, ShuttingDown, Unauthorized
from shopagent.domain.inputs import ascii_int
from shopagent.domain.tokens import verify_token
from shopagent.entrypoints.http.bodies import read_json
from shopagent.entrypoints.http.cards import product_cards
from shopagent.entrypoints.http.errors import ApiError, domain_error_body
from shopagent.entrypoints.http.openapi import ApiRoute, Operation, Query

log = logging.getLogger("shopagent.chat")
_encoder = msgspec.json.Encoder()


class ChatRequest(msgspec.Struct, forbid_unknown_fields=True, rename="camel", kw_only=True):
    query: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_QUERY_CHARS)]
    conversation_id: uuid.UUID | None = None


class ChatResponse(msgspec.Struct, rename="camel", kw_only=True):
    conversation_id: uuid.UUID
    response: str


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


SSE_PING_SECONDS = 15.0
STREAM_DESCRIPTION = (
    "With Accept: text/event-stream the answer is a stream of server-sent events, in order: delta (text: the "
    "next piece of the model's text, as it is written), step (step, calls: after each model reply), tool (name, "
    "arguments, ms, isError, products: cards of the products a product-semantic-search or "
    "get-product-full-details call found, each with id, slug, name, price, discountPrice, currency, mainImage, "
    "availableColors, availableSizes, inStock), answer (text, message: the stored answer with its sequence), "
    "done (conversationId), and on failure error (status, code, message). A step that ends in tool calls may "
    'stream some text first ("Let me look…"); the answer\'s text is authoritative and equals the deltas since '
    "the last tool event. If the model fails after deltas were sent there is no retry: the turn ends with an "
    "error event, nothing is stored, and the text shown so far should be dropped. The HTTP status is 200 once "
    "the stream has begun, so an error's status is in the event. Checks made before the turn starts (token, "
    "body, rate limit) still answer with their HTTP status. While a turn runs the stream sends a `: ping` "
    "comment every chat.sse_ping_seconds (15 s)."
)
AUDIT_RESULT_CHARS = 16_000  # default: a tool result longer than this (as JSON) is shown cut, with a marker


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


class TurnGuard:
    """The chat turns in flight, so that a stop ends them with an answer, not a cut connection.

    Once `close()` is called new turns are refused; `end_all()` (at the end of the grace
    period) cancels the turns still running. Either way the client gets 503 `shutting_down`
    (JSON, or an `error` event), the conversation's claim is released and nothing of the
    turn is stored.
    """

    def __init__(self) -> None:
        self._scopes: set[anyio.CancelScope] = set()
        self.closing = False

    @property
    def running(self) -> int:
        return len(self._scopes)

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        if self.closing:
            raise ShuttingDown("the assistant is restarting; send your message again in a moment")
        scope = anyio.CancelScope()
        self._scopes.add(scope)
        try:
            with scope:
                yield
        finally:
            self._scopes.discard(scope)
        if scope.cancelled_caught:
            raise ShuttingDown(
                "the assistant is restarting and this message could not be finished in time; "
                "nothing of it was saved, send it again in a moment"
            )

    def close(self) -> None:
        self.closing = True

    def end_all(self) -> None:
        for scope in self._scopes:
            scope.cancel()


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
) -> list[Route]:
    """`chat()` gives the running ChatService; `spawn(fn, *args)` runs a task the app owns;
    `guard` holds the turns in flight. Stored tool results longer than `audit_result_chars`
    (as JSON) are shown cut, with a marker."""
    turns = guard or TurnGuard()

    def user_of(request: Request) -> str:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("send your chat token as 'Authorization: Bearer <token>'")
        return verify_token(auth_secret, token.strip(), max_ttl_seconds=token_max_ttl_seconds)

    async def post_chat(request: Request) -> Response:
        user = user_of(request)
        body = await read_json(request, ChatRequest, limit=MAX_QUERY_CHARS * 4 + 1024)
        await limiter.take(f"chat:{user}")
        if turns.closing:
            raise ShuttingDown("the assistant is restarting; send your message again in a moment")
        if "text/event-stream" in request.headers.get("accept", ""):
            return _stream(chat(), user, body, spawn, sse_ping_seconds, turns, audit_result_chars)
        with turns.turn():
            result = await chat().run_turn(user, body.query, body.conversation_id)
        return _json(ChatResponse(conversation_id=result.conversation_id, response=result.response))

    async def list_conversations(request: Request) -> Response:
        user = user_of(request)
        limit = _limit(request)
        before = _cursor(request.query_params.get("before"))
        found = await chat().list(user, limit=limit, before=before)
        following = _make_cursor(found[-1]) if len(found) == limit else None
        return _json(ConversationPage(conversations=[_summary(c) for c in found], next=following))

    async def get_conversation(request: Request) -> Response:
        conversation = await chat().get(user_of(request), _conversation_id(request))
        return _json(_detail(conversation, audit_result_chars))

    async def delete_conversation(request: Request) -> Response:
        await chat().delete(user_of(request), _conversation_id(request))
        return Response(status_code=204)

    return [
        ApiRoute("/api/assistant-agent/chat", post_chat, method="POST", operation=Operation(
            "Send a message; answers JSON, or server-sent events with Accept: text/event-stream",
            response=ChatResponse, body=ChatRequest, event_stream=True,
            errors=(400, 401, 404, 409, 413, 429, 502, 503, 504, 500), description=STREAM_DESCRIPTION)),
        ApiRoute("/api/conversations", list_conversations, method="GET", operation=Operation(
            "Your conversations, most recently active first", response=ConversationPage, query=(
                Query("limit", {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}),
                Query("before", {"type": "string"}, "`next` of the previous page; absent or empty: the first page"),
            ))),
        ApiRoute("/api/conversations/{conversation_id}", get_conversation, method="GET", operation=Operation(
            "One conversation with its messages, tool calls and tool results", response=ConversationDetail,
            errors=(401, 404, 429))),
        ApiRoute("/api/conversations/{conversation_id}", delete_conversation, method="DELETE", operation=Operation(
            "Delete a conversation (refused while it answers a message)", ok=204, errors=(401, 404, 409, 429))),
    ]  # fmt: skip


def _stream(
    chat: ChatService,
    user: str,
    body: ChatRequest,
    spawn: Callable[..., None],
    ping_seconds: float,
    turns: TurnGuard,
    audit_result_chars: int,
) -> StreamingResponse:
    # Unbounded: the turn must never wait for a slow client, and a dropped delta would garble the
    # text. What it holds is bounded anyway by what one turn writes.
    send, receive = anyio.create_memory_object_stream[tuple[str, Any]](math.inf)

    def emit(kind: str, data: Any) -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            send.send_nowait((kind, data))

    def on_event(event: AgentEvent) -> None:
        if event.kind == "delta":
            emit("delta", {"text": event.text})
        elif event.kind == "tool":
            emit("tool", {"name": event.name, "arguments": event.args, "ms": round(event.seconds * 1000),
                          "isError": event.is_error, "products": product_cards(event.name, event.result)})  # fmt: skip
        elif event.kind == "model":
            emit("step", {"step": event.step, "calls": [c for c in event.text.split(", ") if c]})

    async def turn() -> None:
        # Owned by the app: it finishes (and is stored) even if the client goes away.
        async with send:
            try:
                with turns.turn():
                    result = await chat.run_turn(user, body.query, body.conversation_id, on_event)
            except ShopagentError as exc:
                status, error = domain_error_body(exc)
                emit("error", {"status": status, **error})
            except Exception:
                log.exception("chat turn failed")
                emit("error", {"status": 500, "code": "internal", "message": "internal error"})
            else:
                answer: dict[str, Any] = {"text": result.response}
                if result.answer is not None:
                    answer["message"] = _message_view(result.sequence, result.answer, audit_result_chars)
                emit("answer", answer)
                emit("done", {"conversationId": str(result.conversation_id)})

    spawn(turn)

    async def events() -> AsyncIterator[bytes]:
        async with receive:
            while True:
                item = None
                with anyio.move_on_after(ping_seconds):
                    try:
                        item = await receive.receive()
                    except anyio.EndOfStream:
                        return
                if item is None:  # a comment while the turn runs, so proxies do not cut an idle stream
                    yield b": ping\n\n"
                    continue
                kind, data = item
                yield f"event: {kind}\ndata: {_encoder.encode(data).decode()}\n\n".encode()

    return StreamingResponse(events(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})


def _summary(c: Conversation) -> ConversationSummary:
    return ConversationSummary(
        id=c.id, title=c.title, model_id=c.model_id, is_processing=c.is_processing,
        max_context_window_reached=c.max_context_window_reached,
        usage=UsageView(input_tokens=c.usage.input_tokens, output_tokens=c.usage.output_tokens),
        created_at=c.created_at, updated_at=c.updated_at,
    )  # fmt: skip


def _detail(c: Conversation, result_chars: int) -> ConversationDetail:
    messages = [_message_view(sequence, message, result_chars) for sequence, message in enumerate(c.messages, 1)]
    summary = _summary(c)
    return ConversationDetail(
        **{f: getattr(summary, f) for f in ConversationSummary.__struct_fields__}, messages=messages
    )


def _message_view(sequence: int, message: ChatMessage, result_chars: int) -> MessageView:
    calls = [ToolCallView(id=p.id, name=p.name, arguments=p.args) for p in message.parts
             if isinstance(p, FunctionCall)]  # fmt: skip
    results = [_result_view(p, result_chars) for p in message.parts if isinstance(p, FunctionResponse)]
    usage = (
        UsageView(input_tokens=message.usage.input_tokens, output_tokens=message.usage.output_tokens)
        if message.usage
        else None
    )
    return MessageView(sequence=sequence, role=message.role, text=message.text, tool_calls=calls,
                       tool_results=results, usage=usage)  # fmt: skip


def _result_view(response: FunctionResponse, limit: int) -> ToolResultView:
    """A stored tool result for auditing: whole, or its JSON text cut to `limit` with a marker."""
    text = _encoder.encode(response.result).decode()
    result: Any = response.result
    truncated = len(text) > limit
    if truncated:
        result = f"{text[:limit]}… [truncated: {len(text)} characters in all]"
    return ToolResultView(id=response.id, name=response.name, is_error=bool(response.result.get("isError")),
                          result=result, truncated=truncated)  # fmt: skip


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


def _make_cursor(c: Conversation) -> str:
    return base64.urlsafe_b64encode(f"{c.updated_at.isoformat()}|{c.id}".encode()).decode()


def _cursor(raw: str | None) -> tuple[datetime, uuid.UUID] | None:
    if not raw:  # absent or empty: the first page
        return None
    try:
        stamp, _, ident = base64.urlsafe_b64decode(raw.encode()).decode().partition("|")
        return datetime.fromisoformat(stamp), uuid.UUID(ident)
    except ValueError:
        raise ApiError(400, "validation_error", "before is not a cursor this API returned") from None
