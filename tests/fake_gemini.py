"""A local stand-in for the Gemini API, for the real google-genai SDK to talk to in tests.

`:generateContent` answers one JSON body; `:streamGenerateContent?alt=sse` answers a
`Streamed` script item as server-sent events, one `data: {GenerateContentResponse}` each.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from shopagent.runtime.asgi import bind_tcp, serve_asgi
from tests.fake_streams import Streamed

Responder = Callable[[str, dict[str, Any]], tuple[int, dict[str, Any]]]


class FakeGemini:
    """Records each request (path, JSON body); answers with `responder(path, body)` or a default."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.script: list[tuple[int, dict[str, Any]] | Streamed] = []  # answers to give first, in order
        self.base_url = ""
        self.delay = 0.0  # seconds to wait before answering (a slow or hanging server)

    async def handle(self, request: Request) -> Response:
        body = await request.json()
        path = request.url.path
        self.requests.append((path, body))
        if self.delay:
            await anyio.sleep(self.delay)
        if self.script:
            answer = self.script.pop(0)
            if isinstance(answer, Streamed):
                return StreamingResponse(answer.events(), media_type="text/event-stream")
            status, payload = answer
            return JSONResponse(payload, status_code=status)
        if path.endswith(":batchEmbedContents"):
            return JSONResponse({"embeddings": [_embedding(r) for r in body["requests"]]})
        return JSONResponse({"error": {"code": 404, "message": f"no fake for {path}", "status": "NOT_FOUND"}}, 404)


def _embedding(request: dict[str, Any]) -> dict[str, Any]:
    text = request["content"]["parts"][0]["text"]
    size = request.get("outputDimensionality", 8)
    return {"values": [float((len(text) + i) % 7 + 1) for i in range(size)]}


def error(
    status: int, message: str, code_name: str, details: list[dict[str, Any]] | None = None
) -> tuple[int, dict[str, Any]]:
    body: dict[str, Any] = {"code": status, "message": message, "status": code_name}
    if details is not None:
        body["details"] = details
    return status, {"error": body}


def generated(
    *parts: dict[str, Any], usage: dict[str, int] | None = None, finish_reason: str = "STOP"
) -> tuple[int, dict[str, Any]]:
    """A `:generateContent` answer with one candidate made of these wire-format parts."""
    body: dict[str, Any] = {
        "candidates": [{"content": {"role": "model", "parts": list(parts)}, "finishReason": finish_reason, "index": 0}],
        "modelVersion": "gemini-2.5-flash",
    }
    if usage is not None:
        body["usageMetadata"] = usage
    return 200, body


def streamed(
    *parts: dict[str, Any], usage: dict[str, int] | None = None, finish_reason: str | None = "STOP"
) -> Streamed:
    """A `:streamGenerateContent` answer: one chunk per wire-format part, the last one with the
    finish reason and usage (None: a stream cut short, without a finish reason)."""
    chunks: list[dict[str, Any]] = []
    for part in parts:
        chunk = {"content": {"role": "model", "parts": [part]}, "index": 0}
        chunks.append({"candidates": [chunk], "modelVersion": "gemini-2.5-flash"})
    if chunks and finish_reason is not None:
        chunks[-1]["candidates"][0]["finishReason"] = finish_reason
    if chunks and usage is not None:
        chunks[-1]["usageMetadata"] = usage
    return Streamed(chunks, line_end="\r\n")


@contextlib.asynccontextmanager
async def running_fake_gemini() -> AsyncIterator[FakeGemini]:
    fake = FakeGemini()
    app = Starlette(routes=[Route("/{path:path}", fake.handle, methods=["POST"])])
    sock = bind_tcp("127.0.0.1", 0)
    fake.base_url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    async with anyio.create_task_group() as tg:
        await tg.start(partial(serve_asgi, app, sock, name="fake-gemini", grace_seconds=1))
        try:
            yield fake
        finally:
            tg.cancel_scope.cancel()
