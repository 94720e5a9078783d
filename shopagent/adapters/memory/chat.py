"""ScriptedChatModel: a ChatModel whose replies a test (or a benchmark) decides."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from shopagent.domain.chat import ChatMessage, FunctionCall, ModelReply, TextPart, ToolSpec, Usage

Script = Callable[[Sequence[ChatMessage]], ModelReply]


def says(text: str) -> ModelReply:
    """A reply with just text."""
    return ModelReply(message=ChatMessage(role="model", parts=[TextPart(text)], usage=Usage(1, 1)), usage=Usage(1, 1))


def calls(*functions: tuple[str, dict[str, Any]]) -> ModelReply:
    """A reply calling the given (name, args) functions, with ids call-1, call-2, …"""
    parts = [FunctionCall(name=name, args=args, id=f"call-{n}") for n, (name, args) in enumerate(functions, 1)]
    return ModelReply(message=ChatMessage(role="model", parts=list(parts), usage=Usage(1, 1)), usage=Usage(1, 1))


class ScriptedChatModel:
    """Replies from a list (one per call) or from a function of the conversation; records every call."""

    model_id = "scripted"

    def __init__(self, script: Sequence[ModelReply] | Script) -> None:
        self._script = script
        self.calls: list[list[ChatMessage]] = []
        self.tools_seen: list[list[str]] = []

    async def generate(
        self,
        system: str,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        temperature: float | None = None,
        *,
        on_text: Callable[[str], None] | None = None,
    ) -> ModelReply:
        """The scripted reply; like a model that cannot stream, it passes `on_text` its whole text."""
        self.calls.append(list(messages))
        self.tools_seen.append([t.name for t in tools])
        if callable(self._script):
            reply = self._script(messages)
        else:
            reply = self._script[min(len(self.calls), len(self._script)) - 1]
        if on_text is not None and reply.text:
            on_text(reply.text)
        return reply

    async def aclose(self) -> None:
        """Nothing to release."""
