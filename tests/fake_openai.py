"""A local stand-in for an OpenAI-compatible Chat Completions server, for the HTTP adapter in tests.

An `Answer` is one JSON body; a `Streamed` answer is server-sent events, one
`data: {chat.completion.chunk}` each, then `data: [DONE]`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from shopagent.runtime.asgi import bind_tcp, serve_asgi
from tests.fake_streams import Streamed


@dataclass
class Answer:
    """One scripted answer: status, JSON payload (or raw text) and extra headers."""

    status: int
    payload: Any
    headers: dict[str, str] = field(default_factory=dict)
    raw: bool = False  # send `payload` as it is, not as JSON


@dataclass
class RecordedRequest:
    body: dict[str, Any]
    headers: dict[str, str]  # lower-case names


class FakeOpenAI:
    """Records each request to /v1/chat/completions and answers from `script`, in order.

    With the script used up it answers a 418, which the adapter reports without retrying,
    so a test that makes one request too many fails plainly.
    """

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.script: list[Answer | Streamed] = []
        self.base_url = ""  # like "http://127.0.0.1:1234/v1", without a trailing slash

    async def handle(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(RecordedRequest(body, {k.lower(): v for k, v in request.headers.items()}))
        answer = self.script.pop(0) if self.script else error(418, "the fake has no scripted answer left")
        if isinstance(answer, Streamed):
            return StreamingResponse(answer.events(), media_type="text/event-stream")
        if answer.raw:
            return Response(answer.payload, status_code=answer.status, headers=answer.headers)
        return JSONResponse(answer.payload, status_code=answer.status, headers=answer.headers)


def tool_call(call_id: str, name: str, args: dict[str, Any] | str) -> dict[str, Any]:
    """A tool call as the server sends it; a string `args` is sent verbatim (malformed on purpose)."""
    arguments = args if isinstance(args, str) else json.dumps(args)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def reply(
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    *,
    prompt_tokens: int = 10,
    completion_tokens: int = 5,
) -> Answer:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    finish = "tool_calls" if tool_calls else "stop"
    return Answer(
        200,
        {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "model": "fake-model",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        },
    )


def streamed(
    *pieces: str,
    tool_calls: list[dict[str, Any]] | None = None,
    usage: bool = True,
    finish: bool = True,
    done: bool = True,
) -> Streamed:
    """A streamed reply: the role, one chunk per text piece, each tool call in three pieces
    (id and name, then its arguments in two halves), the finish reason, the usage
    (stream_options.include_usage) and [DONE]; `finish`/`done` False cut it short."""

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
        return {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": "fake-model", "choices": [choice]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": piece}) for piece in pieces]
    for index, call in enumerate(tool_calls or []):
        arguments = call["function"]["arguments"]
        half = len(arguments) // 2
        head = {"index": index, "id": call["id"], "type": "function",
                "function": {"name": call["function"]["name"], "arguments": ""}}  # fmt: skip
        chunks.append(chunk({"tool_calls": [head]}))
        for part in (arguments[:half], arguments[half:]):
            chunks.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]}))
    if finish:
        chunks.append(chunk({}, "tool_calls" if tool_calls else "stop"))
        if usage:
            totals = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
            chunks.append({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": [], "usage": totals})
    return Streamed(chunks, trailer=b"data: [DONE]\n\n" if done else b"")


def error(status: int, message: str, *, code: str | int | None = None, headers: dict[str, str] | None = None) -> Answer:
    """An error in OpenAI's shape: {"error": {"message", "type", "code"}}."""
    payload = {"error": {"message": message, "type": "invalid_request_error", "code": code}}
    return Answer(status, payload, headers or {})


@contextlib.asynccontextmanager
async def serving(fake: Any, name: str = "fake-openai") -> AsyncIterator[Any]:
    """Serve `fake.handle` as /v1/chat/completions on a free port; sets `fake.base_url`."""
    app = Starlette(routes=[Route("/v1/chat/completions", fake.handle, methods=["POST"])])
    sock = bind_tcp("127.0.0.1", 0)
    fake.base_url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    async with anyio.create_task_group() as tg:
        await tg.start(partial(serve_asgi, app, sock, name=name, grace_seconds=1))
        try:
            yield fake
        finally:
            tg.cancel_scope.cancel()


@contextlib.asynccontextmanager
async def running_fake_openai() -> AsyncIterator[FakeOpenAI]:
    async with serving(FakeOpenAI()) as fake:
        yield fake
