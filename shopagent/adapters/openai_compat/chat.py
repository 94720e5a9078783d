"""A chat model behind any OpenAI-compatible Chat Completions endpoint, over plain HTTP.

Works with OpenAI itself and with local servers that copy its API (Ollama, vLLM, llama.cpp
server). Our messages are mapped to the Chat Completions shape and back; tool-call ids
travel unchanged both ways, and calls or responses stored without one (from another
adapter) get deterministic ids that pair each response with the call it answers.

429, 5xx and transport failures are retried with exponential backoff and jitter (honouring
a numeric Retry-After), then reported as RateLimited or ModelUnavailable. Everything else
is translated once into the domain's error tree. The API key never appears in an error.

With `on_text` the request asks for a stream (`stream: true`, usage in the last chunk): the
text deltas are passed on as they arrive, and the content and tool-call pieces are put
together into the same message a single answer gives. A server that ignores stream_options
leaves the usage unknown; one that answers a whole completion instead passes its text on at
once. A stream that fails before any text went out is retried; after that the failure is
raised at once, since a retry would send that text again.
"""

from __future__ import annotations

import json
import logging
import math
import random
import re
from collections.abc import Callable, Sequence
from typing import Any

import anyio
import httpx

from shopagent.domain.chat import (
    ChatMessage,
    FunctionCall,
    FunctionResponse,
    ModelReply,
    Part,
    TextPart,
    ToolSpec,
    Usage,
    framed_tool_result,
)
from shopagent.domain.errors import (
    BadModelResponse,
    ContextWindowExceeded,
    ModelConfigError,
    ModelUnavailable,
    RateLimited,
)

log = logging.getLogger("shopagent.openai_compat")

# OpenAI and vLLM say "maximum context length"; llama.cpp says "exceeds the available context size".
_CONTEXT_MESSAGE = re.compile(r"maximum context length|context[ _]length[ _]exceeded|available context size", re.I)
_CONTEXT_CODES = {"context_length_exceeded", "exceed_context_size_error"}
_MESSAGE_LIMIT = 300  # characters of a server's error message worth repeating


class OpenAICompatChatModel:
    """The `ChatModel` port over an OpenAI-compatible `/chat/completions` endpoint."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        max_attempts: int = 4,
        backoff_seconds: float = 1.0,
        backoff_max_seconds: float = 20.0,
        timeout_seconds: float = 60.0,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self._url = base_url.rstrip("/") + "/chat/completions"
        try:
            scheme = httpx.URL(self._url).scheme
        except httpx.InvalidURL:
            scheme = ""
        if scheme not in ("http", "https"):
            raise ModelConfigError(f"the model server URL must start with http:// or https://, not {base_url!r}")
        self._model = model
        self._api_key = api_key or None
        self._max_attempts = max_attempts
        self._backoff = backoff_seconds
        self._backoff_max = backoff_max_seconds
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        self._client = httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(timeout_seconds))

    @property
    def model_id(self) -> str:
        return self._model

    async def aclose(self) -> None:
        await self._client.aclose()

    async def generate(
        self,
        system: str,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        temperature: float | None = None,
        *,
        on_text: Callable[[str], None] | None = None,
    ) -> ModelReply:
        body: dict[str, Any] = {
            "model": self._model,
            "messages": [{"role": "system", "content": system}, *to_openai_messages(messages)],
        }
        if tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
                }
                for t in tools
            ]
        if temperature is not None:
            body["temperature"] = temperature
        if on_text is not None:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        message = await self._post(body, on_text)
        return ModelReply(message=message, usage=message.usage)

    async def _post(self, body: dict[str, Any], on_text: Callable[[str], None] | None) -> ChatMessage:
        failure = _Retryable("")
        for attempt in range(1, self._max_attempts + 1):
            stream = _StreamedMessage(on_text) if on_text is not None else None
            try:
                return await (self._once(body) if stream is None else self._stream(body, stream))
            except _Retryable as exc:
                failure = exc
            if stream is not None and stream.sent_text:
                raise self._failed(failure, f"broke off a streamed answer: {self._scrub(failure.problem)}")
            if attempt == self._max_attempts:
                break
            delay = self._delay(attempt, failure.retry_after)
            log.warning("the model server answered %s; retrying in %.1fs", self._scrub(failure.problem), delay)
            await anyio.sleep(delay)
        verb = "kept rate-limiting" if failure.rate_limited else "is unavailable"
        raise self._failed(failure, f"{verb} after {self._max_attempts} attempts: {self._scrub(failure.problem)}")

    async def _once(self, body: dict[str, Any]) -> ChatMessage:
        try:
            response = await self._client.post(self._url, json=body)
        except httpx.TransportError as exc:
            raise _Retryable(_transport_problem(exc)) from exc
        self._check(response)
        return from_openai_response(self._json(response))

    async def _stream(self, body: dict[str, Any], stream: _StreamedMessage) -> ChatMessage:
        try:
            async with self._client.stream("POST", self._url, json=body) as response:
                if not response.is_success or "text/event-stream" not in response.headers.get("content-type", ""):
                    await response.aread()
                    self._check(response)
                    # A server that does not stream answers the whole completion at once.
                    message = from_openai_response(self._json(response))
                    stream.pass_on(message.text)
                    return message
                async for line in response.aiter_lines():
                    stream.feed(line)
                stream.feed("")  # the last event, should the body end without a blank line
        except httpx.TransportError as exc:
            raise _Retryable(_transport_problem(exc)) from exc
        return stream.message()

    def _check(self, response: httpx.Response) -> None:
        """Nothing for a success; _Retryable for 429 and 5xx; the domain error for another 4xx."""
        if response.is_success:
            return
        status = response.status_code
        if status != 429 and status < 500:
            raise self._client_error(status, response)
        problem = f"{status} {_error_text(response)}".strip()
        raise _Retryable(problem, rate_limited=status == 429, retry_after=_retry_after(response))

    def _json(self, response: httpx.Response) -> Any:
        try:
            return response.json()
        except ValueError:
            raise BadModelResponse(f"the model server at {self._url} answered with invalid JSON") from None

    def _failed(self, failure: _Retryable, what: str) -> Exception:
        where = f"the model server at {self._url} (model {self._model})"
        return (RateLimited if failure.rate_limited else ModelUnavailable)(f"{where} {what}")

    def _client_error(self, status: int, response: httpx.Response) -> Exception:
        """The domain error for a 4xx answer other than 429; none of these is worth retrying."""
        if status in (401, 403):
            # The server's own text may echo the key (some do, in full), so it is left out.
            hint = "" if self._api_key else " (no API key is configured)"
            return ModelConfigError(f"the model server rejected the API key{hint}: {status} from {self._url}")
        message = self._scrub(_error_text(response))
        if status == 404:
            return ModelConfigError(
                f"the model server at {self._url} does not know model {self._model!r} or the URL is wrong: "
                f"404 {message}".rstrip()
            )
        if status == 400 and (_is_context_error(response) or _CONTEXT_MESSAGE.search(message)):
            return ContextWindowExceeded(f"the conversation does not fit model {self._model!r}: {message}")
        return BadModelResponse(f"the model server at {self._url} refused the request: {status} {message}".rstrip())

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self._backoff_max)
        ceiling = min(self._backoff * 2 ** (attempt - 1), self._backoff_max)
        return random.uniform(ceiling / 2, ceiling)  # noqa: S311 - jitter

    def _scrub(self, text: str) -> str:
        # A server (or a proxy in front of it) may echo the request's credentials.
        return text.replace(self._api_key, "***") if self._api_key else text


class _Retryable(Exception):
    """A failed attempt worth repeating: 429, 5xx, a transport failure, a stream cut short."""

    def __init__(self, problem: str, *, rate_limited: bool = False, retry_after: float | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.rate_limited = rate_limited
        self.retry_after = retry_after


def _transport_problem(exc: httpx.TransportError) -> str:
    # Connection refused, timeouts, dropped connections: the server may come back.
    return f"{type(exc).__name__}: {exc}".rstrip(": ")


class _StreamedMessage:
    """A streamed completion put together from its server-sent events, text passed on as it comes."""

    def __init__(self, on_text: Callable[[str], None]) -> None:
        self._on_text = on_text
        self._data: list[str] = []  # the data lines of the event being read
        self._text: list[str] = []
        self._calls: dict[Any, dict[str, Any]] = {}  # by the index the server gives each call
        self._finish: Any = None
        self._usage: Any = None
        self._done = False
        self.sent_text = False

    def pass_on(self, text: str) -> None:
        if text:
            self.sent_text = True
            self._on_text(text)

    def feed(self, line: str) -> None:
        """One line of the event stream; a blank line ends an event."""
        if line.startswith("data:"):
            self._data.append(line.removeprefix("data:").removeprefix(" "))
        elif not line and self._data:
            data, self._data = "\n".join(self._data), []
            self._event(data)

    def _event(self, data: str) -> None:
        if data.strip() == "[DONE]":
            self._done = True
            return
        try:
            chunk = json.loads(data)
        except ValueError:
            raise BadModelResponse(
                f"the model server streamed an event that is not JSON: {data[:_MESSAGE_LIMIT]!r}"
            ) from None
        if not isinstance(chunk, dict):
            raise BadModelResponse("the model server streamed an event that is not a JSON object")
        if "error" in chunk:
            error = chunk["error"]
            message = error.get("message") if isinstance(error, dict) else error
            raise BadModelResponse(f"the model server reported an error mid-stream: {str(message)[:_MESSAGE_LIMIT]}")
        self._usage = chunk.get("usage") or self._usage
        for choice in chunk.get("choices") or []:
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                self._choice(choice)

    def _choice(self, choice: dict[str, Any]) -> None:
        self._finish = choice.get("finish_reason") or self._finish
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            return
        text = _content_text(delta.get("content"))
        if text:
            self._text.append(text)
            self.pass_on(text)
        for position, piece in enumerate(delta.get("tool_calls") or []):
            if isinstance(piece, dict):
                self._call_piece(position, piece)

    def _call_piece(self, position: int, piece: dict[str, Any]) -> None:
        # The first piece of a call brings its id and name; later ones more of its arguments.
        key = piece.get("index") if isinstance(piece.get("index"), int) else piece.get("id") or position
        call = self._calls.setdefault(key, {"id": None, "type": "function", "function": {"name": "", "arguments": ""}})
        function = piece.get("function") if isinstance(piece.get("function"), dict) else {}
        if isinstance(piece.get("id"), str) and piece["id"] and not call["id"]:
            call["id"] = piece["id"]
        if isinstance(function.get("name"), str) and not call["function"]["name"]:
            call["function"]["name"] = function["name"]
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            call["function"]["arguments"] += arguments
        elif isinstance(arguments, dict):  # some servers send the arguments whole, as an object
            call["function"]["arguments"] = json.dumps(arguments)

    def message(self) -> ChatMessage:
        if not self._done and self._finish is None:
            raise _Retryable("the answer stream ended before the answer was finished")
        calls = [{k: v for k, v in call.items() if v is not None} for call in self._calls.values()]
        message = {"role": "assistant", "content": "".join(self._text), "tool_calls": calls}
        choice = {"index": 0, "message": message, "finish_reason": self._finish}
        return from_openai_response({"choices": [choice], "usage": self._usage})


def to_openai_messages(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """Our conversation as Chat Completions messages (without the system message)."""
    result: list[dict[str, Any]] = []
    pending: list[tuple[str, str]] = []  # (name, id) of the last model turn's calls not yet answered
    for index, message in enumerate(messages):
        texts = [p.text for p in message.parts if isinstance(p, TextPart)]
        if message.role == "model":
            calls = [p for p in message.parts if isinstance(p, FunctionCall)]
            entry: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
            if calls:
                ids = [call.id or _generated_id(index, n) for n, call in enumerate(calls)]
                entry["tool_calls"] = [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": json.dumps(call.args, ensure_ascii=False)},
                    }
                    for call, call_id in zip(calls, ids, strict=True)
                ]
                pending = [(call.name, call_id) for call, call_id in zip(calls, ids, strict=True)]
            else:
                pending = []
            result.append(entry)
            continue
        responses = [p for p in message.parts if isinstance(p, FunctionResponse)]
        # Tool messages must directly follow the assistant message whose calls they answer.
        for n, response in enumerate(responses):
            call_id = response.id or _answered_call_id(response.name, pending, index, n)
            pending = [p for p in pending if p[1] != call_id]
            result.append(
                {
                    "role": "tool",
                    "tool_call_id": call_id,
                    "content": json.dumps(framed_tool_result(response.result), ensure_ascii=False),
                }
            )
        if texts:
            result.append({"role": "user", "content": "".join(texts)})
    return result


def _generated_id(message_index: int, call_index: int) -> str:
    return f"call_{message_index}_{call_index}"


def _answered_call_id(name: str, pending: list[tuple[str, str]], message_index: int, position: int) -> str:
    """The id of the call a response without an id answers: the first unanswered call of that
    name, else the first unanswered one (responses come in call order), else a fresh id."""
    for call_name, call_id in pending:
        if call_name == name:
            return call_id
    if pending:
        return pending[0][1]
    return _generated_id(message_index, position)


def from_openai_response(payload: Any) -> ChatMessage:
    """The model message in a Chat Completions response; BadModelResponse if there is none."""
    if not isinstance(payload, dict):
        raise BadModelResponse("the model server answered something other than a JSON object")
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise BadModelResponse("the model server answered without any choices")
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, dict):
        raise BadModelResponse("the model server answered a choice without a message")
    parts: list[Part] = []
    text = _content_text(message.get("content"))
    if text:
        parts.append(TextPart(text))
    for call in message.get("tool_calls") or []:
        parts.append(_function_call(call))
    if not parts:
        reason = choice.get("finish_reason")
        raise BadModelResponse(f"the model answered an empty message (finish_reason {reason!r})")
    return ChatMessage(role="model", parts=parts, usage=_usage(payload.get("usage")))


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # some servers answer content parts rather than a string
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def _function_call(call: Any) -> FunctionCall:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("name"), str) or not function["name"]:
        raise BadModelResponse(f"the model answered a malformed tool call: {str(call)[:_MESSAGE_LIMIT]}")
    name = function["name"]
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        if not arguments.strip():
            arguments = "{}"  # some servers send "" for a call without arguments
        try:
            arguments = json.loads(arguments)
        except ValueError:
            raise BadModelResponse(
                f"the model called {name} with arguments that are not valid JSON: {arguments[:_MESSAGE_LIMIT]!r}"
            ) from None
    elif arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise BadModelResponse(f"the model called {name} with arguments that are not a JSON object")
    call_id = call.get("id")
    return FunctionCall(name=name, args=arguments, id=call_id if isinstance(call_id, str) and call_id else None)


def _usage(usage: Any) -> Usage | None:
    if not isinstance(usage, dict):
        return None
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if not isinstance(prompt, int) and not isinstance(completion, int):
        return None
    return Usage(
        input_tokens=prompt if isinstance(prompt, int) else 0,
        output_tokens=completion if isinstance(completion, int) else 0,
    )


def _error_body(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _error_fields(response: httpx.Response) -> dict[str, Any]:
    """The error object, whichever of the common shapes the server uses."""
    body = _error_body(response)
    if not isinstance(body, dict):
        return {}
    error = body.get("error", body)  # OpenAI nests it; vLLM's older answers do not
    if isinstance(error, str):
        return {"message": error}
    return error if isinstance(error, dict) else {}


def _error_text(response: httpx.Response) -> str:
    fields = _error_fields(response)
    message = fields.get("message") or fields.get("detail")
    if not isinstance(message, str) or not message:
        message = response.text if _error_body(response) is None else ""
    return " ".join(message.split())[:_MESSAGE_LIMIT] or response.reason_phrase


def _is_context_error(response: httpx.Response) -> bool:
    fields = _error_fields(response)
    return any(isinstance(fields.get(key), str) and fields[key] in _CONTEXT_CODES for key in ("code", "type"))


def _retry_after(response: httpx.Response) -> float | None:
    """The server's Retry-After in seconds, when it is a number (HTTP dates are ignored)."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None
