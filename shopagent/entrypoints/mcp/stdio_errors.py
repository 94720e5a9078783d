"""The JSON-RPC error for a stdin line the SDK cannot read, with the request's id when the line
gives it away, so that the client fails that request at once instead of at its timeout."""

from __future__ import annotations

import json
from typing import Any

import mcp.types as types

_decoder = json.JSONDecoder()


def error_for_line(line: str) -> types.JSONRPCError:
    """-32600 (invalid request) with the id for a line that is JSON but not a message the SDK
    takes (a lone surrogate escape, a missing field); -32700 (parse error) for one that is not
    JSON, with the id if its top level names one before the text breaks, else id null."""
    try:
        decoded = json.loads(line)  # Python's reader takes lone surrogate escapes
    except ValueError:
        request_id = _id_before_the_break(line)
        message = "Parse error: not a JSON-RPC message"
        return _error(request_id, types.PARSE_ERROR, message)
    request_id = _usable_id(decoded.get("id")) if isinstance(decoded, dict) else None
    if _has_lone_surrogate(decoded):
        message = "Invalid request: the message holds a lone surrogate escape (\\ud800-\\udfff), which is not text"
    else:
        message = "Invalid request: not a JSON-RPC message this server takes"
    return _error(request_id, types.INVALID_REQUEST, message)


def _error(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


def _usable_id(value: Any) -> str | int | None:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any("\ud800" <= ch <= "\udfff" for ch in value)
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


def _id_before_the_break(line: str) -> str | int | None:
    """The top-level `"id"` of a broken object, if it comes before the break: scans the keys of
    the outermost object, skipping nested values whole, until a value does not decode."""
    text = line.strip()
    if not text.startswith("{"):
        return None
    at = 1
    while True:
        at = _skip_space(text, at)
        try:
            key, at = _decoder.raw_decode(text, at)
            at = _skip_space(text, at)
            if not isinstance(key, str) or text[at : at + 1] != ":":
                return None
            value, at = _decoder.raw_decode(text, _skip_space(text, at + 1))
        except (ValueError, IndexError):
            return None
        if key == "id":
            return _usable_id(value)
        at = _skip_space(text, at)
        if text[at : at + 1] != ",":
            return None
        at += 1


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at
