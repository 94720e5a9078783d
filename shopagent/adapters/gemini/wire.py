"""Gemini's wire types (google-genai) to our chat messages and back.

Each model message keeps the raw parts Gemini returned in `provider_state` (JSON, with the
bytes fields such as `thought_signature` in base64) and sends them back unchanged on the
next turn: thinking models reject a conversation whose function calls lost their thought
signatures. A streamed answer is put together into the same reply a single request gives.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import msgspec
import pydantic
from google.genai import types

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
from shopagent.domain.errors import BadModelResponse

log = logging.getLogger("shopagent.gemini")

PROVIDER = "gemini"  # marks provider_state written by this adapter
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


class StreamCut(Exception):
    """The stream ended without a finish reason: the answer is incomplete."""


class StreamedAnswer:
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
            raise StreamCut("the answer stream ended before the answer was finished")
        candidates = None
        if self._candidate:
            content = types.Content(role="model", parts=self._parts)
            candidates = [types.Candidate(content=content, finish_reason=self._finish)]
        return types.GenerateContentResponse(
            candidates=candidates, usage_metadata=self._usage, prompt_feedback=self._feedback
        )


def _bare_text(part: types.Part) -> bool:
    return part.text is not None and part.model_dump(exclude_none=True).keys() <= {"text", "thought"}


def declaration(spec: ToolSpec) -> types.FunctionDeclaration:
    # parameters_json_schema takes JSON Schema as is; `parameters` would need Gemini's own Schema type.
    return types.FunctionDeclaration(
        name=spec.name, description=spec.description, parameters_json_schema=spec.parameters
    )


def to_content(message: ChatMessage) -> types.Content:
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


def reply(response: types.GenerateContentResponse, model: str) -> ModelReply:
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


def _name(value: object) -> str:
    # SDK enums are str enums; their value is the API's name (and unknown values stay strings).
    return str(getattr(value, "value", value)) if value is not None else "unspecified"
