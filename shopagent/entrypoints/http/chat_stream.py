"""A chat turn as server-sent events: the model's text as it is written, each step and tool
call, then the stored answer (see STREAM_DESCRIPTION for the contract)."""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import msgspec
from starlette.responses import StreamingResponse

from shopagent.application.agent import AgentEvent
from shopagent.application.conversations import ChatService
from shopagent.domain.errors import ShopagentError
from shopagent.domain.prices import FALLBACK_LOCALE
from shopagent.domain.tools import DETAILS_TOOL, SEARCH_TOOL, STORE_INFO_TOOL
from shopagent.entrypoints.http.cards import presented_cards, product_cards
from shopagent.entrypoints.http.chat_views import ChatRequest, message_view
from shopagent.entrypoints.http.errors import domain_error_body, log_failed_turn
from shopagent.entrypoints.http.sources import page_sources
from shopagent.entrypoints.http.turn_guard import TurnGuard

log = logging.getLogger("shopagent.chat")
_encoder = msgspec.json.Encoder()

SSE_PING_SECONDS = 15.0
STREAM_DESCRIPTION = (
    "With Accept: text/event-stream the answer is a stream of server-sent events, in order: delta (text: the "
    "next piece of the model's text, as it is written), step (step, calls: after each model reply), tool (name, "
    f"arguments, ms, isError, products: cards of the products a {SEARCH_TOOL} or "
    f"{DETAILS_TOOL} call found, each with id, slug, name, price, discountPrice, currency, mainImage, "
    f"availableColors, availableSizes, inStock; sources: the store pages a {STORE_INFO_TOOL} call found a strong "
    "passage on, each with page (slug), title and url, to cite under the answer), "
    "answer (text; products: the products the answer presents, in its order, to draw as cards; message: the stored "
    "answer with its sequence), "
    "done (conversationId), and on failure error (status, code, message). A step that ends in tool calls may "
    'stream some text first ("Let me look…"); the answer\'s text is authoritative and equals the deltas since '
    "the last tool event. If the model fails after deltas were sent there is no retry: the turn ends with an "
    "error event, nothing is stored, and the text shown so far should be dropped. The HTTP status is 200 once "
    "the stream has begun, so an error's status is in the event. Checks made before the turn starts (token, "
    "body, rate limit) still answer with their HTTP status. While a turn runs the stream sends a `: ping` "
    "comment every chat.sse_ping_seconds (15 s)."
)


def stream_turn(
    chat: ChatService,
    user: str,
    body: ChatRequest,
    spawn: Callable[..., None],
    ping_seconds: float,
    turns: TurnGuard,
    audit_result_chars: int,
    price_locale: str = FALLBACK_LOCALE,
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
                          "isError": event.is_error, "products": product_cards(event.name, event.result, price_locale),
                          "sources": page_sources(event.name, event.result)})  # fmt: skip
        elif event.kind == "model":
            emit("step", {"step": event.step, "calls": list(event.calls)})

    async def turn() -> None:
        # Owned by the app: it finishes (and is stored) even if the client goes away.
        async with send:
            try:
                with turns.turn():
                    result = await chat.run_turn(user, body.query, body.conversation_id, on_event)
            except ShopagentError as exc:
                log_failed_turn(exc)
                status, error = domain_error_body(exc)
                emit("error", {"status": status, **error})
            except Exception:
                log.exception("chat turn failed")
                emit("error", {"status": 500, "code": "internal", "message": "internal error"})
            else:
                presented = presented_cards(result.response, result.tool_results, price_locale)
                answer: dict[str, Any] = {"text": result.response, "products": presented}
                if result.answer is not None:
                    answer["message"] = message_view(result.sequence, result.answer, audit_result_chars, presented)
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

    return StreamingResponse(events(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})
