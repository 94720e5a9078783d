"""Chat Completions wire format: our messages to the request's, the answer back to ours.

Tool-call ids travel unchanged both ways; calls or responses stored without one (from
another adapter) get deterministic ids that pair each response with the call it answers.
A streamed answer (server-sent `chat.completion.chunk` events) is put together into the
same message a single answer gives, its text passed on as it arrives.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from shopagent.domain.chat import (
    ChatMessage,
    FunctionCall,
    FunctionResponse,
    Part,
    TextPart,
    Usage,
    framed_tool_result,
)
from shopagent.domain.errors import BadModelResponse

MESSAGE_LIMIT = 300  # characters of a server's text worth repeating in an error


class StreamCut(Exception):
    """The stream ended before the answer was finished; the request is worth repeating."""


class StreamedMessage:
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
                f"the model server streamed an event that is not JSON: {data[:MESSAGE_LIMIT]!r}"
            ) from None
        if not isinstance(chunk, dict):
            raise BadModelResponse("the model server streamed an event that is not a JSON object")
        if "error" in chunk:
            error = chunk["error"]
            message = error.get("message") if isinstance(error, dict) else error
            raise BadModelResponse(f"the model server reported an error mid-stream: {str(message)[:MESSAGE_LIMIT]}")
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
        given = piece.get("function")
        function: dict[str, Any] = given if isinstance(given, dict) else {}
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
            raise StreamCut("ended the answer stream before the answer was finished")
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
            # "" rather than null beside tool calls: llama-cpp-python's server refuses null content.
            entry: dict[str, Any] = {"role": "assistant", "content": "".join(texts)}
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
        raise BadModelResponse(f"the model answered a malformed tool call: {str(call)[:MESSAGE_LIMIT]}")
    name = function["name"]
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        if not arguments.strip():
            arguments = "{}"  # some servers send "" for a call without arguments
        try:
            arguments = json.loads(arguments)
        except ValueError:
            raise BadModelResponse(
                f"the model called {name} with arguments that are not valid JSON: {arguments[:MESSAGE_LIMIT]!r}"
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
