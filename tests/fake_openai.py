"""A local stand-in for an OpenAI-compatible Chat Completions server, for the HTTP adapter in tests.

An `Answer` is one JSON body; a `Streamed` answer is server-sent events, one
`data: {chat.completion.chunk}` each, then `data: [DONE]`.

`LlamaServer` and `LlamaCppPythonServer` refuse what the real servers refuse, as read in
their request handling (llama.cpp's src/llama-grammar.cpp and common/json-schema-to-grammar.cpp;
llama-cpp-python's llama_cpp/llama_chat_format.py, server/types.py and server/errors.py), and
`written_call` is a call a small model writes as its text instead of making it.
"""

from __future__ import annotations

import contextlib
import json
import re
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
        answer = await self.answer(body)
        if isinstance(answer, Streamed):
            return StreamingResponse(answer.events(), media_type="text/event-stream")
        if answer.raw:
            return Response(answer.payload, status_code=answer.status, headers=answer.headers)
        return JSONResponse(answer.payload, status_code=answer.status, headers=answer.headers)

    async def answer(self, body: dict[str, Any]) -> Answer | Streamed:
        """The next scripted answer (a subclass first checks the request as its server would)."""
        return self.script.pop(0) if self.script else error(418, "the fake has no scripted answer left")


# llama.cpp's MAX_REPETITION_THRESHOLD. Its grammar parser refuses a repetition `x{m,n}` whose count
# times the rules it repeats reaches it, and (some builds) any m or n above it: in the builds the
# failures were seen with, a count of 2000 or more fails. The newest builds accept 2000 itself and
# read a larger upper bound as no bound; what shopagent sends stays far below either.
GRAMMAR_REPETITION_THRESHOLD = 2000
_COUNTED = ("minLength", "maxLength", "minItems", "maxItems")
_QUANTIFIER = re.compile(r"\{\s*(\d+)\s*(?:,\s*(\d*)\s*)?\}")


def grammar_refusals(schema: Any, where: str = "$") -> list[str]:
    """Where llama.cpp could not turn `schema` into a grammar: each repetition count of 2000 or
    more (`maxLength` 2000 is `char{0,2000}`) and each pattern not anchored with ^…$ or holding
    such a count."""
    found: list[str] = []
    if isinstance(schema, list):
        for n, item in enumerate(schema):
            found += grammar_refusals(item, f"{where}[{n}]")
    elif isinstance(schema, dict):
        for key, value in schema.items():
            if key in _COUNTED and isinstance(value, int) and value >= GRAMMAR_REPETITION_THRESHOLD:
                found.append(f"{where}.{key} = {value}")
            elif key == "pattern" and isinstance(value, str):
                counts = [int(n) for m in _QUANTIFIER.finditer(value) for n in m.groups() if n]
                if not (value.startswith("^") and value.endswith("$")) or any(
                    c >= GRAMMAR_REPETITION_THRESHOLD for c in counts
                ):
                    found.append(f"{where}.pattern = {value!r}")
            elif key in ("properties", "$defs", "definitions") and isinstance(value, dict):
                for name, subschema in value.items():
                    found += grammar_refusals(subschema, f"{where}.{key}.{name}")
            elif key not in ("enum", "const", "default", "examples", "description"):
                found += grammar_refusals(value, f"{where}.{key}")
    return found


class LlamaServer(FakeOpenAI):
    """llama.cpp's llama-server (with --jinja): the tools' parameter schemas are compiled into one
    grammar before anything is sampled, and a schema it cannot compile fails the whole request
    with a 400, whatever the model would have written."""

    def __init__(self) -> None:
        super().__init__()
        self.refused: list[str] = []  # what the grammar builder refused, per refused request

    async def answer(self, body: dict[str, Any]) -> Answer | Streamed:
        refusals = [
            where
            for tool in body.get("tools") or []
            for where in grammar_refusals(tool["function"].get("parameters", {}), tool["function"]["name"])
        ]
        if refusals:
            self.refused += refusals
            return Answer(
                400,
                {"error": {"code": 400, "message": "Failed to initialize samplers: failed to parse grammar",
                           "type": "invalid_request_error"}},
            )  # fmt: skip
        return await super().answer(body)


class LlamaCppPythonServer(FakeOpenAI):
    """llama-cpp-python's server with its function-calling chat format (chatml-function-calling):

    - without `tool_choice` the prompt is rendered without the tools, so the model cannot call
      one: it answers in words (`without_tools`), whatever was scripted;
    - an assistant message whose content is null fails the request's validation, which its
      error handler answers as a 500.
    """

    without_tools = "I'm sorry, we don't carry anything like that at the moment."

    def __init__(self) -> None:
        super().__init__()
        self.prompts_without_tools = 0

    async def answer(self, body: dict[str, Any]) -> Answer | Streamed:
        for n, message in enumerate(body.get("messages") or []):
            if message.get("role") == "assistant" and "content" in message and message["content"] is None:
                problem = (
                    f"1 validation error for CreateChatCompletionRequest: messages.{n}.content: "
                    "Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]"
                )
                return Answer(500, {"error": {"message": problem, "type": "internal_server_error",
                                              "param": None, "code": None}})  # fmt: skip
        scripted = await super().answer(body)
        if body.get("tools") and body.get("tool_choice") in (None, "none"):
            self.prompts_without_tools += 1
            return reply(self.without_tools)
        return scripted


def written_call(
    name: str,
    args: dict[str, Any],
    *,
    fence: bool = True,
    key: str = "arguments",
    arguments_as_text: bool = False,
    tags: bool = False,
) -> Answer:
    """A reply whose whole text is a tool call, as small models write one: in a ```json fence
    (or bare, or in <tool_call> tags), with "arguments" (or `key`, e.g. "parameters") as an
    object or as a JSON string."""
    call = json.dumps({"name": name, key: json.dumps(args) if arguments_as_text else args})
    if tags:
        return reply(f"<tool_call>\n{call}\n</tool_call>")
    return reply(f"```json\n{call}\n```" if fence else call)


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
