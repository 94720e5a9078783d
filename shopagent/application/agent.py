"""AssistantAgent: the bounded loop that lets a chat model use the catalog tools.

Each step asks the model for a reply to the conversation so far. A reply without function
calls is the answer. Otherwise every call runs through the tool gateway — several calls
of one step concurrently — and their responses are appended in call order, as one user
message, for the next step. The agent knows neither which model nor which tool server it
talks to.

Small models get some slack, so that a shopper never sees their slips:

- a reply whose whole text is a call of an offered tool, written as JSON (`written_calls`),
  is stored and run as that call, and its text is never shown;
- a call made again with the same name and arguments within the turn is answered with the
  first call's result, which says so; a model that repeats itself again after being told
  is stopped;
- when the step budget is spent (or the model was stopped), the answer is what the last
  search found (`fallback`), stored like any answer: the turn's messages still pair every
  function call with its response.

With an event sink the model is asked to stream: its text comes as `delta` events while it
is written, before the step's `model` event. A step that ends in tool calls may stream some
text first ("Let me look…"), so only the `final` text is the answer. Text that may be a call
written as JSON (it starts with `{`, `[`, a code fence or `<tool_call>`) is held back until
the reply is complete, and passed on only if it is not one.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

import anyio

from shopagent.application.fallback import fallback_answer
from shopagent.application.ports import ChatModel, ToolGateway
from shopagent.domain.chat import ChatMessage, FunctionCall, FunctionResponse, Part, TextPart, ToolResult, Usage
from shopagent.domain.written_calls import written_calls

log = logging.getLogger("shopagent.agent")

REPEATED_CALL_NOTE = (
    "You already made this exact call in this turn; this is its earlier result. Do not call it again: "
    "answer the customer from the results you have, or call with other arguments."
)


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
    repeated: bool = False  # a tool event of a call made before in the turn, answered with its result
    calls: tuple[str, ...] = ()  # a model event's function calls, by tool name, in order


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
        language: str = "en",
    ) -> None:
        self.model = model
        self.tools = tools
        self.system_prompt = system_prompt
        self.max_steps = max_steps
        self.temperature = temperature
        self.language = language  # of the fallback answer

    async def run(
        self, history: Sequence[ChatMessage], user_text: str, on_event: EventSink | None = None
    ) -> tuple[str, list[ChatMessage]]:
        """Answer `user_text` after `history`: (the answer, the new messages after the user's).

        Raises the model's ChatModelError; the caller keeps nothing then.
        """
        emit = on_event or _ignore
        user = ChatMessage.user(user_text)
        new: list[ChatMessage] = []
        specs = await self.tools.list_tools()
        names = {s.name for s in specs}
        answered: dict[str, ToolResult] = {}  # the turn's results, by call (name and arguments)
        told = False  # whether the model was told it repeated a call
        step = 0
        for step in range(1, self.max_steps + 1):
            started = time.perf_counter()
            held = _HeldText(partial(_emit_delta, emit, step))
            reply = await self.model.generate(
                self.system_prompt, [*history, user, *new], specs, self.temperature,
                on_text=held.feed if on_event else None,
            )  # fmt: skip
            message = _with_written_calls(reply.message, names, step)
            calls = message.function_calls
            emit(AgentEvent("model", step, time.perf_counter() - started, name=self.model.model_id,
                            calls=tuple(c.name for c in calls), usage=reply.usage))  # fmt: skip
            new.append(message)
            if not calls:
                held.release()
                emit(AgentEvent("final", step, text=message.text))
                return message.text, new
            responses, repeats = await self._call_all(calls, step, emit, answered)
            new.append(ChatMessage(role="user", parts=list[Part](responses)))
            if repeats == len(calls):
                if told:
                    return self._fall_back(new, step, emit, "it repeated a call it had the result of")
                told = True
        return self._fall_back(new, step, emit, f"it used all {self.max_steps} steps (chat.max_steps)")

    def _fall_back(self, new: list[ChatMessage], step: int, emit: EventSink, why: str) -> tuple[str, list[ChatMessage]]:
        text = fallback_answer(new, self.language)
        log.warning("the model (%s) gave no answer: %s; answered with the last search's results",
                    self.model.model_id, why)  # fmt: skip
        new.append(ChatMessage(role="model", parts=[TextPart(text)]))
        emit(AgentEvent("delta", step, text=text))
        emit(AgentEvent("final", step, text=text))
        return text, new

    async def _call_all(
        self, calls: list[FunctionCall], step: int, emit: EventSink, answered: dict[str, ToolResult]
    ) -> tuple[list[FunctionResponse], int]:
        """The responses to `calls`, in call order, and how many of them were repeats.

        A call whose name and arguments were answered before in this turn (or earlier in this
        step) is not made again: it gets that result, marked as a repeat.
        """
        keys = [_key(c) for c in calls]
        before = set(answered)
        fresh: dict[str, FunctionCall] = {}
        for key, function_call in zip(keys, calls, strict=True):
            if key not in before:
                fresh.setdefault(key, function_call)

        async def call(key: str, function_call: FunctionCall) -> None:
            started = time.perf_counter()
            result = await self.tools.safe_call(function_call.name, function_call.args)
            answered[key] = result
            emit(AgentEvent("tool", step, time.perf_counter() - started, name=function_call.name,
                            args=function_call.args, is_error=result.is_error, text=result.text[:200],
                            result=result))  # fmt: skip

        async with anyio.create_task_group() as tg:
            for key, function_call in fresh.items():
                tg.start_soon(call, key, function_call)
        responses: list[FunctionResponse] = []
        repeats = 0
        for key, function_call in zip(keys, calls, strict=True):
            response = answered[key].as_response(function_call)
            if key in before or fresh.get(key) is not function_call:
                repeats += 1
                response = FunctionResponse(
                    response.name, {**response.result, "repeatedCall": REPEATED_CALL_NOTE}, response.id
                )
                emit(AgentEvent("tool", step, name=function_call.name, args=function_call.args, repeated=True))
            responses.append(response)
        return responses, repeats


class _HeldText:
    """Streamed text, passed on at once unless it may be a tool call written as JSON: then it
    is held until the reply is complete (`release`), and dropped if it was one."""

    def __init__(self, pass_on: Callable[[str], None]) -> None:
        self._pass_on = pass_on
        self._held: list[str] = []
        self._holding: bool | None = None  # undecided until the first visible character

    def feed(self, text: str) -> None:
        if self._holding is False:
            self._pass_on(text)
            return
        self._held.append(text)
        start = "".join(self._held).lstrip()
        if self._holding is None and start:
            self._holding = start[0] in "{[`<"
            if not self._holding:
                self._pass_on("".join(self._held))
                self._held = []

    def release(self) -> None:
        """The reply was an answer: pass on what was held."""
        if self._held:
            self._pass_on("".join(self._held))
            self._held = []


def _with_written_calls(message: ChatMessage, tools: set[str], step: int) -> ChatMessage:
    """`message`, or the calls its whole text was written as: stored and run as real calls."""
    if message.function_calls:
        return message
    calls = written_calls(message.text, tools)
    if not calls:
        return message
    parts = [FunctionCall(c.name, c.args, id=f"written-{step}-{n}") for n, c in enumerate(calls, 1)]
    return ChatMessage(role="model", parts=list(parts), usage=message.usage)


def _key(call: FunctionCall) -> str:
    return f"{call.name}\n{json.dumps(call.args, sort_keys=True, ensure_ascii=False)}"


def _emit_delta(emit: EventSink, step: int, text: str) -> None:
    emit(AgentEvent("delta", step, text=text))


def _ignore(event: AgentEvent) -> None:
    pass
