"""Tool calls a model wrote as its text instead of making them.

Small models, or servers without a tool-call parser for the model's format, often answer with
the call itself as the whole text: `{"name": "product-semantic-search", "arguments": {…}}`,
bare, in a ```json code fence, or in the `<tool_call>` tags of Qwen's and Hermes' formats; some
write "parameters" for "arguments", give the arguments as a JSON string, or write a list of
such calls. Such a text is never meant for the shopper. It counts as calls only when it is
nothing else and every call names a tool that was offered.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from shopagent.domain.chat import FunctionCall

_FENCE = re.compile(r"```[A-Za-z]*[ \t]*\n?(.*?)\n?[ \t]*```", re.S)
_TAGGED = re.compile(r"<tool_call>(.*?)</tool_call>", re.S)


def written_calls(text: str, tools: Collection[str]) -> list[FunctionCall]:
    """The calls `text` consists of, when it is nothing but calls of the named `tools`; else []."""
    body = text.strip()
    if not body.startswith(("{", "[", "```", "<tool_call>")):
        return []
    if body.startswith("<tool_call>"):
        if _TAGGED.sub("", body).strip():
            return []  # text beside the tags
        values = [_json(_unfenced(inner.strip())) for inner in _TAGGED.findall(body)]
    else:
        values = [_json(_unfenced(body))]
    found: list[Any] = []
    for value in values:
        found += value if isinstance(value, list) else [value]
    calls = [_call(item, tools) for item in found]
    if not calls or any(call is None for call in calls):
        return []
    return [call for call in calls if call is not None]


def _unfenced(body: str) -> str:
    fenced = _FENCE.fullmatch(body)
    return fenced.group(1).strip() if fenced else body


def _json(body: str) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def _call(item: Any, tools: Collection[str]) -> FunctionCall | None:
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("function"), dict):  # the Chat Completions shape, written out
        item = item["function"]
    name = item.get("name")
    if not isinstance(name, str) or name not in tools:
        return None
    arguments = item.get("arguments", item.get("parameters"))
    if isinstance(arguments, str):  # the arguments as a JSON string, as the API itself sends them
        arguments = _json(arguments) if arguments.strip() else {}
    elif arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return None
    return FunctionCall(name=name, args=arguments)
