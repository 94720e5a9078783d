"""Gemini chat with tool calling (generateContent) through the google-genai SDK.

The agent runs the tools itself, so the SDK's automatic function calling is off and every
function call comes back to the caller. The translation between our messages and Gemini's
(thought signatures kept in `provider_state`) is in `wire`.

408, 429, 5xx and network failures are retried with the service's backoff
(`shopagent.runtime.retry`: exponential with jitter, the server's suggested delay honoured
up to the cap); everything else is classified once into the domain errors
(ContextWindowExceeded, ModelConfigError, BadModelResponse).

With `on_text` the answer is streamed (streamGenerateContent): each text part is passed on
as it arrives, and the parts are put together into the same reply a single request gives.
A stream that fails before any text went out is retried like a request; once text went
out the failure is raised at once, since a retry would send that text again.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import re
from collections.abc import Callable, Sequence

import pydantic
from google import genai
from google.genai import errors, types

from shopagent.adapters.gemini.transport import TRANSPORT_ERRORS, suggested_delay
from shopagent.adapters.gemini.wire import StreamCut, StreamedAnswer, declaration, reply, to_content
from shopagent.domain.chat import ChatMessage, ModelReply, ToolSpec
from shopagent.domain.errors import (
    BadModelResponse,
    ChatModelError,
    ContextWindowExceeded,
    ModelConfigError,
    ModelUnavailable,
    RateLimited,
)
from shopagent.runtime.retry import Backoff, Retryable, retrying

log = logging.getLogger("shopagent.gemini")

_CONTEXT_OVERFLOW = re.compile(r"token count.*exceeds the maximum|exceeds the maximum number of tokens", re.IGNORECASE)

# A transport failure or a stream cut short: retried like a 5xx.
_RETRYABLE: tuple[type[Exception], ...] = (*TRANSPORT_ERRORS, StreamCut)


class _Failed(Retryable):
    """An attempt that failed in a way another may not; `rate_limited` for a 429."""

    def __init__(self, problem: str, *, rate_limited: bool = False, hint: float | None = None) -> None:
        super().__init__(problem, hint=hint)
        self.rate_limited = rate_limited


class GeminiChatModel:
    """The `ChatModel` port on Gemini: one generateContent request per turn, tools declared
    as JSON Schema, thought signatures preserved across turns via `provider_state`."""

    def __init__(
        self,
        api_key: str,
        *,
        model: str = "gemini-2.5-flash",
        base_url: str | None = None,
        max_attempts: int = 4,
        backoff_seconds: float = 1.0,
        backoff_max_seconds: float = 20.0,
        timeout_seconds: float = 120.0,
    ) -> None:
        self._retry = Backoff(base=backoff_seconds, cap=backoff_max_seconds, attempts=max(1, max_attempts))
        # The SDK waits forever by default; a hung request must end and be retried.
        options = types.HttpOptions(base_url=base_url, timeout=int(timeout_seconds * 1000))
        self._client = genai.Client(api_key=api_key, http_options=options)
        self._api_key = api_key
        self._model = model

    @property
    def model_id(self) -> str:
        return self._model

    async def aclose(self) -> None:
        await self._client.aio.aclose()

    async def generate(
        self,
        system: str,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        temperature: float | None = None,
        *,
        on_text: Callable[[str], None] | None = None,
    ) -> ModelReply:
        contents = [to_content(message) for message in messages]
        config = types.GenerateContentConfig(
            # An empty system instruction would be sent as an empty text part, which the API rejects.
            system_instruction=system or None,
            tools=[types.Tool(function_declarations=[declaration(spec) for spec in tools])] if tools else None,
            temperature=temperature,
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        )
        attempt = functools.partial(self._attempt, contents, config, on_text)
        try:
            return await retrying(self._retry, attempt, on_retry=self._log_retry)
        except _Failed as failure:
            error = RateLimited if failure.rate_limited else ModelUnavailable
            raise error(
                f"Gemini ({self._model}) failed after {self._retry.attempts} attempts: {failure.problem}"
            ) from None

    async def _attempt(
        self, contents: list[types.Content], config: types.GenerateContentConfig, on_text: Callable[[str], None] | None
    ) -> ModelReply:
        """One request (or stream); `_Failed` when another attempt may succeed."""
        stream = StreamedAnswer(on_text) if on_text is not None else None
        try:
            if stream is None:
                response = await self._client.aio.models.generate_content(
                    model=self._model, contents=contents, config=config
                )
            else:
                chunks = await self._client.aio.models.generate_content_stream(
                    model=self._model, contents=contents, config=config
                )
                # Closed at once, not by the garbage collector, should the turn be cancelled.
                # The SDK annotates its stream as an AsyncIterator; it is an async generator (aclose).
                async with contextlib.aclosing(chunks):  # type: ignore[type-var]
                    async for chunk in chunks:
                        stream.add(chunk)
                response = stream.response()
        except errors.APIError as exc:
            fatal = self._classify(exc)
            if fatal is not None:
                raise fatal from exc
            problem = f"{exc.code} {exc.status}: {self._redact(exc.message)}"
            failure = _Failed(problem, rate_limited=exc.code == 429, hint=suggested_delay(exc))
        except _RETRYABLE as exc:
            failure = _Failed(self._redact(f"{type(exc).__name__}: {exc}"))
        except (json.JSONDecodeError, errors.UnknownApiResponseError, pydantic.ValidationError) as exc:
            # The body was not JSON, or not shaped like a GenerateContentResponse.
            raise BadModelResponse(f"Gemini ({self._model}) sent an unreadable answer: {exc}") from exc
        else:
            return reply(response, self._model)
        if stream is not None and stream.sent_text:
            error = RateLimited if failure.rate_limited else ModelUnavailable
            raise error(f"Gemini ({self._model}) broke off a streamed answer: {failure.problem}")
        raise failure

    def _log_retry(self, failure: Retryable, delay: float) -> None:
        log.warning("Gemini chat (%s) failed: %s; retrying in %.1fs", self._model, failure.problem, delay)

    def _classify(self, exc: errors.APIError) -> ChatModelError | None:
        """The domain error for a final failure, or None when the request is worth retrying."""
        code = exc.code or 0
        if code in (408, 429) or code >= 500:
            return None
        message = self._redact(exc.message)
        detail = f"{code} {exc.status}: {message}"
        if _CONTEXT_OVERFLOW.search(message):
            return ContextWindowExceeded(
                f"The conversation no longer fits the context window of {self._model}: {detail}"
            )
        mentions_key = "api key" in message.lower() or "api_key" in message.lower()
        if code in (401, 403) or (code == 400 and mentions_key):
            return ModelConfigError(f"Gemini rejected the API key (GEMINI_API_KEY): {detail}")
        if code == 404:
            return ModelConfigError(f"Gemini does not know the model {self._model!r}: {detail}")
        return BadModelResponse(f"Gemini ({self._model}) refused the request: {detail}")

    def _redact(self, text: object) -> str:
        # Error texts are logged and shown; the key must never travel with them.
        text = "" if text is None else str(text)
        return text.replace(self._api_key, "***") if self._api_key else text
