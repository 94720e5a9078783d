"""A chat model behind any OpenAI-compatible Chat Completions endpoint, over plain HTTP.

Works with OpenAI itself and with local servers that copy its API (Ollama, vLLM, llama.cpp's
llama-server, llama-cpp-python's server), as they behave: tools go with `tool_choice: "auto"`
(llama-cpp-python leaves the tools out of the prompt without it; vLLM and llama-server assume
it anyway), their schemas without the limits llama.cpp cannot compile (`schemas`), and an
assistant message with tool calls has `""` as its content (llama-cpp-python refuses `null`).
The wire format, both ways, is in `wire`.

429, 5xx and transport failures are retried with the service's backoff
(`shopagent.runtime.retry`: exponential with jitter, a numeric Retry-After honoured up to
the cap), then reported as RateLimited or ModelUnavailable. A request that gets no answer
within the timeout is not repeated: a model too slow for the timeout is no faster the second
time, and the server is still busy with the first. A server that says it was started without
tool calling (llama-server without --jinja, vLLM without --enable-auto-tool-choice, an Ollama
model without tools) is a ModelConfigError naming the fix. Everything else is translated once
into the domain's error tree. The API key never appears in an error.

With `on_text` the request asks for a stream (`stream: true`, usage in the last chunk): the
text deltas are passed on as they arrive. A server that ignores stream_options leaves the
usage unknown; one that answers a whole completion instead passes its text on at once. A
stream that fails before any text went out is retried; after that the failure is raised at
once, since a retry would send that text again.
"""

from __future__ import annotations

import functools
import logging
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from shopagent.adapters.openai_compat.schemas import grammar_safe
from shopagent.adapters.openai_compat.wire import (
    MESSAGE_LIMIT,
    StreamCut,
    StreamedMessage,
    from_openai_response,
    to_openai_messages,
)
from shopagent.domain.chat import ChatMessage, ModelReply, ToolSpec
from shopagent.domain.errors import (
    BadModelResponse,
    ContextWindowExceeded,
    ModelConfigError,
    ModelUnavailable,
    RateLimited,
)
from shopagent.runtime.retry import Backoff, Retryable, retrying

log = logging.getLogger("shopagent.openai_compat")

# OpenAI and vLLM say "maximum context length"; llama.cpp says "exceeds the available context size".
_CONTEXT_MESSAGE = re.compile(r"maximum context length|context[ _]length[ _]exceeded|available context size", re.I)
_CONTEXT_CODES = {"context_length_exceeded", "exceed_context_size_error"}
# What servers started without tool calling answer (any status), and what to do about it.
_SETUP_PROBLEMS = [
    (re.compile(r"--enable-auto-tool-choice|--tool-call-parser"),
     "vLLM was started without tool calling: start it with --enable-auto-tool-choice and a --tool-call-parser "
     "that fits the model"),
    (re.compile(r"--jinja"), "llama-server was started without tool calling: start it with --jinja"),
    (re.compile(r"does not support tools", re.I), "the model cannot call tools: choose one that can"),
]  # fmt: skip


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
        self._retry = Backoff(base=backoff_seconds, cap=backoff_max_seconds, attempts=max_attempts)
        self._url = base_url.rstrip("/") + "/chat/completions"
        try:
            scheme = httpx.URL(self._url).scheme
        except httpx.InvalidURL:
            scheme = ""
        if scheme not in ("http", "https"):
            raise ModelConfigError(f"the model server URL must start with http:// or https://, not {base_url!r}")
        self._model = model
        self._api_key = api_key or None
        self._timeout = timeout_seconds
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
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": grammar_safe(t.parameters),
                    },
                }
                for t in tools
            ]
            body["tool_choice"] = "auto"
        if temperature is not None:
            body["temperature"] = temperature
        if on_text is not None:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        message = await self._post(body, on_text)
        return ModelReply(message=message, usage=message.usage)

    async def _post(self, body: dict[str, Any], on_text: Callable[[str], None] | None) -> ChatMessage:
        try:
            return await retrying(
                self._retry, functools.partial(self._attempt, body, on_text), on_retry=self._log_retry
            )
        except _Retryable as failure:
            verb = "kept rate-limiting" if failure.rate_limited else "is unavailable"
            raise self._failed(
                failure, f"{verb} after {self._retry.attempts} attempts: {self._scrub(failure.problem)}"
            ) from None

    async def _attempt(self, body: dict[str, Any], on_text: Callable[[str], None] | None) -> ChatMessage:
        """One request (or stream); `_Retryable` when another attempt may succeed."""
        stream = StreamedMessage(on_text) if on_text is not None else None
        try:
            return await (self._once(body) if stream is None else self._stream(body, stream))
        except _Retryable as failure:
            if stream is not None and stream.sent_text:
                what = f"broke off a streamed answer: it {self._scrub(failure.problem)}"
                raise self._failed(failure, what) from None
            if failure.timed_out:
                raise self._failed(failure, failure.problem) from None
            raise

    def _log_retry(self, failure: Retryable, delay: float) -> None:
        log.warning("the model server at %s %s; retrying in %.1fs", self._url, self._scrub(failure.problem), delay)

    async def _once(self, body: dict[str, Any]) -> ChatMessage:
        try:
            response = await self._client.post(self._url, json=body)
        except httpx.TransportError as exc:
            raise self._transport_failure(exc) from exc
        self._check(response)
        return from_openai_response(self._json(response))

    async def _stream(self, body: dict[str, Any], stream: StreamedMessage) -> ChatMessage:
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
            raise self._transport_failure(exc) from exc
        try:
            return stream.message()
        except StreamCut as exc:
            raise _Retryable(str(exc)) from exc

    def _transport_failure(self, exc: httpx.TransportError) -> _Retryable:
        # Said as what happened: a timeout is no answer, not something the server answered.
        if isinstance(exc, httpx.ConnectTimeout):
            return _Retryable(f"could not be reached within {self._timeout:g} s")
        if isinstance(exc, httpx.TimeoutException):
            return _Retryable(f"gave no answer within {self._timeout:g} s", timed_out=True)
        # Connection refused, a dropped connection: the server may come back.
        return _Retryable(f"could not be reached ({type(exc).__name__}: {exc})".replace(": )", ")"))

    def _check(self, response: httpx.Response) -> None:
        """Nothing for a success; _Retryable for 429 and 5xx; the domain error for another 4xx."""
        if response.is_success:
            return
        status = response.status_code
        text = _error_text(response)
        for complaint, fix in _SETUP_PROBLEMS:
            if complaint.search(text):
                raise ModelConfigError(f"{fix} (the server at {self._url} answered {status} {self._scrub(text)})")
        if status != 429 and status < 500:
            raise self._client_error(status, response)
        problem = f"answered {status} {text}".strip()
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

    def _scrub(self, text: str) -> str:
        # A server (or a proxy in front of it) may echo the request's credentials.
        return text.replace(self._api_key, "***") if self._api_key else text


class _Retryable(Retryable):
    """A failed attempt: 429, 5xx, a transport failure, a stream cut short, no answer in time.
    `problem` says what the server did ("answered 503 …", "gave no answer within 60 s")."""

    def __init__(
        self, problem: str, *, rate_limited: bool = False, retry_after: float | None = None, timed_out: bool = False
    ) -> None:
        super().__init__(problem, hint=retry_after)
        self.rate_limited = rate_limited
        self.timed_out = timed_out  # not repeated: see the module's docstring


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
    return " ".join(message.split())[:MESSAGE_LIMIT] or response.reason_phrase


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
