"""Gemini chat with tool calling (generateContent) through the google-genai SDK.

The agent runs the tools itself, so the SDK's automatic function calling is off and every
function call comes back to the caller. Each model message keeps the raw parts Gemini
returned in `provider_state` (JSON, with the bytes fields such as `thought_signature` in
base64) and sends them back unchanged on the next turn: thinking models reject a
conversation whose function calls lost their thought signatures.

429, 5xx and network failures are retried with exponential backoff and jitter (honouring
the server's suggested delay when it gives one); everything else is classified once into
the domain errors (ContextWindowExceeded, ModelConfigError, BadModelResponse).

With `on_text` the answer is streamed (streamGenerateContent): each text part is passed on
as it arrives, and the parts are put together into the same reply a single request gives.
A stream that fails before any text went out is retried like a request; once text went
out the failure is raised at once, since a retry would send that text again.
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
import re
from collections.abc import Callable, Sequence
from typing import Any

import anyio
import httpx
import msgspec
import pydantic
from google import genai
from google.genai import errors, types

from shopagent.domain.chat import (
    ChatMessage,
    FunctionCall,
    ModelReply,
    Part,
    TextPart,
    ToolSpec,
    Usage,
    framed_tool_result,
)
from shopagent.domain.errors import (
    BadModelResponse,
    ChatModelError,
    ContextWindowExceeded,
    ModelConfigError,
    ModelUnavailable,
    RateLimited,
)

log = logging.getLogger("shopagent.gemini")

# The SDK sends with httpx2 (a fork of httpx under another namespace) when it is installed,
# as it is with google-genai 3.x, and with httpx otherwise; their errors share no base class.
try:
    import httpx2

    TRANSPORT_ERRORS: tuple[type[Exception], ...] = (httpx.TransportError, httpx2.TransportError)
except ImportError:  # pragma: no cover - depends on the SDK's dependencies
    TRANSPORT_ERRORS = (httpx.TransportError,)

PROVIDER = "gemini"  # marks provider_state written by this adapter
_SECONDS = r"([0-9]+(?:\.[0-9]+)?)"
_RETRY_IN = re.compile(rf"retry in {_SECONDS}\s*s", re.IGNORECASE)
_DURATION = re.compile(rf"^{_SECONDS}s$")
_CONTEXT_OVERFLOW = re.compile(r"token count.*exceeds the maximum|exceeds the maximum number of tokens", re.IGNORECASE)
# Finish reasons that mean the answer was withheld; any partial content is not to be shown.
_BLOCKED_FINISH = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
        "MODEL_ARMOR",
    }
)


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
        # The SDK waits forever by default; a hung request must end and be retried.
        options = types.HttpOptions(base_url=base_url, timeout=int(timeout_seconds * 1000))
        self._client = genai.Client(api_key=api_key, http_options=options)
        self._api_key = api_key
        self._model = model
        self._max_attempts = max(1, max_attempts)
        self._backoff = backoff_seconds
        self._backoff_max = backoff_max_seconds

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
        contents = [_to_content(message) for message in messages]
        config = types.GenerateContentConfig(
            # An empty system instruction would be sent as an empty text part, which the API rejects.
            system_instruction=system or None,
            tools=[types.Tool(function_declarations=[_declaration(spec) for spec in tools])] if tools else None,
            temperature=temperature,
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        )
        failure = ""
        rate_limited = False
        for attempt in range(1, self._max_attempts + 1):
            hint: float | None = None
            stream = _StreamedAnswer(on_text) if on_text is not None else None
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
                    async with contextlib.aclosing(chunks):
                        async for chunk in chunks:
                            stream.add(chunk)
                    response = stream.response()
            except errors.APIError as exc:
                fatal = self._classify(exc)
                if fatal is not None:
                    raise fatal from exc
                failure = f"{exc.code} {exc.status}: {self._redact(exc.message)}"
                rate_limited = exc.code == 429
                hint = _suggested_delay(exc)
            except (*TRANSPORT_ERRORS, _StreamCut) as exc:
                failure = self._redact(f"{type(exc).__name__}: {exc}")
                rate_limited = False
            except (json.JSONDecodeError, errors.UnknownApiResponseError, pydantic.ValidationError) as exc:
                # The body was not JSON, or not shaped like a GenerateContentResponse.
                raise BadModelResponse(f"Gemini ({self._model}) sent an unreadable answer: {exc}") from exc
            else:
                return _reply(response, self._model)
            if stream is not None and stream.sent_text:
                error = RateLimited if rate_limited else ModelUnavailable
                raise error(f"Gemini ({self._model}) broke off a streamed answer: {failure}")
            if attempt == self._max_attempts:
                break
            delay = self._delay(attempt, hint)
            log.warning("Gemini chat (%s) failed: %s; retrying in %.1fs", self._model, failure, delay)
            await anyio.sleep(delay)
        error = RateLimited if rate_limited else ModelUnavailable
        raise error(f"Gemini ({self._model}) failed after {self._max_attempts} attempts: {failure}")

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

    def _delay(self, attempt: int, hint: float | None) -> float:
        if hint is not None:
            return min(hint, self._backoff_max)
        ceiling = min(self._backoff * 2 ** (attempt - 1), self._backoff_max)
        return random.uniform(ceiling / 2, ceiling)  # noqa: S311 - jitter, not cryptography


class _StreamCut(Exception):
    """The stream ended without a finish reason: the answer is incomplete."""


class _StreamedAnswer:
    """A streamed answer put together chunk by chunk, its text passed on as it arrives."""

    def __init__(self, on_text: Callable[[str], None]) -> None:
        self._on_text = on_text
        self._parts: list[types.Part] = []
        self._candidate = False
        self._finish: types.FinishReason | None = None
        self._usage: types.GenerateContentResponseUsageMetadata | None = None
        self._feedback: types.GenerateContentResponsePromptFeedback | None = None
        self.sent_text = False

    def add(self, chunk: types.GenerateContentResponse) -> None:
        self._feedback = chunk.prompt_feedback or self._feedback
        # Each chunk's usage is the running total so far, so the latest one counts.
        self._usage = chunk.usage_metadata or self._usage
        if not chunk.candidates:
            return
        candidate = chunk.candidates[0]
        self._candidate = True
        self._finish = candidate.finish_reason or self._finish
        for part in (candidate.content.parts or []) if candidate.content else []:
            self._keep(part)
            if part.text and not part.thought and part.function_call is None:
                self.sent_text = True
                self._on_text(part.text)

    def _keep(self, part: types.Part) -> None:
        # Adjacent bare text pieces become one part, as a single request would have answered;
        # a part with anything else on it (a thought signature, a call) is kept as it came.
        last = self._parts[-1] if self._parts else None
        if last is not None and _bare_text(last) and _bare_text(part) and bool(last.thought) == bool(part.thought):
            self._parts[-1] = last.model_copy(update={"text": (last.text or "") + (part.text or "")})
        else:
            self._parts.append(part)

    def response(self) -> types.GenerateContentResponse:
        if self._finish is None and self._feedback is None:
            raise _StreamCut("the answer stream ended before the answer was finished")
        candidates = None
        if self._candidate:
            content = types.Content(role="model", parts=self._parts)
            candidates = [types.Candidate(content=content, finish_reason=self._finish)]
        return types.GenerateContentResponse(
            candidates=candidates, usage_metadata=self._usage, prompt_feedback=self._feedback
        )


def _bare_text(part: types.Part) -> bool:
    return part.text is not None and part.model_dump(exclude_none=True).keys() <= {"text", "thought"}


def _declaration(spec: ToolSpec) -> types.FunctionDeclaration:
    # parameters_json_schema takes JSON Schema as is; `parameters` would need Gemini's own Schema type.
    return types.FunctionDeclaration(
        name=spec.name, description=spec.description, parameters_json_schema=spec.parameters
    )


def _to_content(message: ChatMessage) -> types.Content:
    if message.role == "model":
        raw = _stored_parts(message.provider_state)
        if raw is not None:
            return types.Content(role="model", parts=raw)
    return types.Content(role=message.role, parts=[_to_part(part) for part in message.parts])


def _to_part(part: Part) -> types.Part:
    if isinstance(part, TextPart):
        return types.Part(text=part.text)
    if isinstance(part, FunctionCall):
        return types.Part(function_call=types.FunctionCall(name=part.name, args=part.args, id=part.id))
    return types.Part(
        function_response=types.FunctionResponse(name=part.name, response=framed_tool_result(part.result), id=part.id)
    )


def _stored_parts(state: dict[str, Any] | None) -> list[types.Part] | None:
    """The raw parts this adapter kept for a model message, or None to rebuild them from ours."""
    if not state or state.get("provider") != PROVIDER or not isinstance(state.get("parts"), list):
        return None
    try:
        # Validate as JSON: that is where pydantic documents decoding base64 text into bytes fields.
        return [types.Part.model_validate_json(msgspec.json.encode(raw)) for raw in state["parts"]]
    except pydantic.ValidationError as exc:
        # E.g. stored by an SDK version with other fields. Rebuilding loses thought signatures,
        # which the API may refuse, but that is still better than a conversation that can never continue.
        log.warning("Stored Gemini parts no longer load (%s); rebuilding the message from its parts", exc)
        return None


def _reply(response: types.GenerateContentResponse, model: str) -> ModelReply:
    feedback = response.prompt_feedback
    if feedback is not None and feedback.block_reason is not None:
        reason = _name(feedback.block_reason)
        note = f": {feedback.block_reason_message}" if feedback.block_reason_message else ""
        raise BadModelResponse(f"Gemini ({model}) blocked the prompt ({reason}){note}")
    if not response.candidates:
        raise BadModelResponse(f"Gemini ({model}) returned no candidates")
    candidate = response.candidates[0]
    finish = _name(candidate.finish_reason)
    if finish in _BLOCKED_FINISH:
        raise BadModelResponse(f"Gemini ({model}) withheld the answer (finish reason {finish})")
    raw = list(candidate.content.parts or []) if candidate.content else []
    parts = _our_parts(raw, model)
    if not parts:
        raise BadModelResponse(
            f"Gemini ({model}) returned a candidate with no text or function call (finish reason {finish})"
        )
    usage = _usage(response.usage_metadata)
    state = {"provider": PROVIDER, "parts": [part.model_dump(mode="json", exclude_none=True) for part in raw]}
    message = ChatMessage(role="model", parts=parts, provider_state=state, usage=usage)
    return ModelReply(message=message, usage=usage)


def _our_parts(raw: Sequence[types.Part], model: str) -> list[Part]:
    """Text and function calls in order; adjacent text parts merge, thoughts are left out."""
    parts: list[Part] = []
    text: list[str] = []
    for part in raw:
        if part.thought:
            continue
        if part.function_call is not None:
            call = part.function_call
            if not call.name:
                raise BadModelResponse(f"Gemini ({model}) returned a function call without a name")
            if text:
                parts.append(TextPart("".join(text)))
                text = []
            parts.append(FunctionCall(name=call.name, args=dict(call.args or {}), id=call.id))
        elif part.text:
            text.append(part.text)
    if text:
        parts.append(TextPart("".join(text)))
    return parts


def _usage(meta: types.GenerateContentResponseUsageMetadata | None) -> Usage | None:
    if meta is None:
        return None
    # Thinking tokens are billed as output, so they count as output here too.
    output = (meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0)
    return Usage(input_tokens=meta.prompt_token_count or 0, output_tokens=output)


def _suggested_delay(exc: errors.APIError) -> float | None:
    """The wait the server asked for: RetryInfo.retryDelay ("37s"), or "retry in 37.5s" in the text."""
    body = exc.details if isinstance(exc.details, dict) else {}
    error = body.get("error", body)
    details = error.get("details") if isinstance(error, dict) else None
    for detail in details if isinstance(details, list) else []:
        delay = detail.get("retryDelay") if isinstance(detail, dict) else None
        match = _DURATION.match(delay) if isinstance(delay, str) else None
        if match:
            return float(match.group(1))
    match = _RETRY_IN.search(exc.message or "")
    return float(match.group(1)) if match else None


def _name(value: object) -> str:
    # SDK enums are str enums; their value is the API's name (and unknown values stay strings).
    return str(getattr(value, "value", value)) if value is not None else "unspecified"
