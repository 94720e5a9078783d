"""AssistantAgent: the bounded loop that lets a chat model use the catalog tools.

Each step asks the model for a reply to the conversation so far. A reply without function
calls is the answer. Otherwise every call runs through the tool gateway — several calls
of one step concurrently — and their responses are appended in call order, as one user
message, for the next step. The agent knows neither which model nor which tool server it
talks to.

With an event sink the model is asked to stream: its text comes as `delta` events while it
is written, before the step's `model` event. A step that ends in tool calls may stream some
text first ("Let me look…"), so only the `final` text is the answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

import anyio

from shopagent.application.ports import ChatModel, ToolGateway
from shopagent.domain.chat import ChatMessage, FunctionCall, ToolResult, Usage
from shopagent.domain.errors import MaxStepsExceeded


@dataclass(frozen=True)
class AgentEvent:
    """One thing the agent did, for logs, the REPL and streaming clients."""

    kind: Literal["model", "delta", "tool", "final"]
    step: int
    seconds: float = 0.0
    name: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    is_error: bool = False
    usage: Usage | None = None
    result: ToolResult | None = None  # a tool event's whole result (`text` holds an excerpt)


EventSink = Callable[[AgentEvent], None]


class AssistantAgent:
    def __init__(
        self,
        model: ChatModel,
        tools: ToolGateway,
        system_prompt: str,
        *,
        max_steps: int = 8,
        temperature: float | None = None,
    ) -> None:
        self.model = model
        self.tools = tools
        self.system_prompt = system_prompt
        self.max_steps = max_steps
        self.temperature = temperature

    async def run(
        self, history: Sequence[ChatMessage], user_text: str, on_event: EventSink | None = None
    ) -> tuple[str, list[ChatMessage]]:
        """Answer `user_text` after `history`: (the answer, the new messages after the user's).

        Raises MaxStepsExceeded, or the model's ChatModelError; the caller keeps nothing then.
        """
        emit = on_event or (lambda event: None)
        user = ChatMessage.user(user_text)
        new: list[ChatMessage] = []
        specs = await self.tools.list_tools()
        for step in range(1, self.max_steps + 1):
            started = time.perf_counter()
            on_text = partial(_emit_delta, emit, step) if on_event else None
            reply = await self.model.generate(
                self.system_prompt, [*history, user, *new], specs, self.temperature, on_text=on_text
            )
            calls = reply.function_calls
            emit(AgentEvent("model", step, time.perf_counter() - started, name=self.model.model_id,
                            text=", ".join(c.name for c in calls), usage=reply.usage))  # fmt: skip
            new.append(reply.message)
            if not calls:
                emit(AgentEvent("final", step, text=reply.text))
                return reply.text, new
            results = await self._call_all(calls, step, emit)
            new.append(ChatMessage(role="user", parts=[r.as_response(c) for c, r in zip(calls, results, strict=True)]))
        raise MaxStepsExceeded(f"no answer after {self.max_steps} steps; the request may need to be narrowed")

    async def _call_all(self, calls: list[FunctionCall], step: int, emit: EventSink) -> list[ToolResult]:
        results: list[ToolResult | None] = [None] * len(calls)

        async def call(index: int, function_call: FunctionCall) -> None:
            started = time.perf_counter()
            result = await self.tools.safe_call(function_call.name, function_call.args)
            results[index] = result
            emit(AgentEvent("tool", step, time.perf_counter() - started, name=function_call.name,
                            args=function_call.args, is_error=result.is_error, text=result.text[:200],
                            result=result))  # fmt: skip

        async with anyio.create_task_group() as tg:
            for index, function_call in enumerate(calls):
                tg.start_soon(call, index, function_call)
        return [r for r in results if r is not None]


def _emit_delta(emit: EventSink, step: int, text: str) -> None:
    emit(AgentEvent("delta", step, text=text))
