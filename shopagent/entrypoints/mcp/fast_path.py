"""The HTTP fast path: an ordinary `tools/call` answered without the SDK's per-request machinery.

The SDK's Streamable HTTP entry spends about 2 ms of CPU on every call before and after our
tool runs: pydantic models for the JSON-RPC envelope, the request parameters and the result,
a server runner and connection per request, a tracing span, the result dumped and re-validated
per protocol version, `json.dumps`. Doing the same work, this layer takes the one request that
matters — a `tools/call` of one of our tools at a modern protocol version, in JSON-response
mode — and answers it directly:

- the same checks, with the SDK's own functions where it has them: the transport security
  (Content-Type, Host, Origin: its rules, restated here so a refused request is logged once,
  by the SDK), the Accept header, duplicated routing headers, the modern request ladder
  (`classify_inbound_request`: envelope `_meta`, header/body agreement, protocol version),
  `Mcp-Param-*` headers against the tool's input schema, and the parameters against the
  protocol's own model for `tools/call`;
- the same tool code (`CatalogTools.call`, which the SDK's handler calls too), counted alike;
- the same response: the result's envelope fields (`isError`, `resultType`) come from the SDK's
  own serialiser at start-up, the server-info stamp from the server, and the body is encoded
  once by msgspec, the result's JSON written once and reused for `structuredContent`.

Anything else — other methods, legacy protocol versions, notifications, batches, bodies that
are not plain JSON, unknown tools, any request a check would reject, an oversized or chunked
body — goes to the SDK's app unchanged (the body read so far is replayed), so every error and
every edge keeps the SDK's exact answer. `tests/test_mcp_fast_path.py` sends the same
requests down both paths and compares the responses. One thing differs by design: the SDK
opens an OpenTelemetry span per request; the fast path does not (shopagent exports Prometheus
metrics, counted the same on both paths).
"""

from __future__ import annotations

from typing import Any

import mcp.types as types
import msgspec
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.inbound import (
    MCP_PARAM_HEADER_PREFIX,
    InboundLadderRejection,
    classify_inbound_request,
    find_duplicated_routing_header,
    validate_mcp_param_headers,
)
from mcp_types import SERVER_INFO_META_KEY
from mcp_types import methods as protocol_methods
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from shopagent.entrypoints.mcp.bodies import read_body, replay
from shopagent.entrypoints.mcp.server import CatalogServer, CatalogTools, ToolAnswer

_MODERN = frozenset(v.encode() for v in MODERN_PROTOCOL_VERSIONS)
_PARAM_HEADER = MCP_PARAM_HEADER_PREFIX.lower().encode()
_ENVELOPE_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
_PARAM_KEYS = frozenset({"name", "arguments", "_meta"})
_JSON_HEADERS = [(b"content-type", b"application/json")]


class _Call(msgspec.Struct, frozen=True):
    id: int | str
    name: str
    arguments: dict[str, Any]
    version: str


class FastToolCalls:
    """ASGI layer in front of the SDK's Streamable HTTP app (stateless, JSON responses)."""

    def __init__(
        self, app: ASGIApp, server: CatalogServer, security: TransportSecuritySettings, *, max_body: int,
        path: str = "/mcp",
    ) -> None:  # fmt: skip
        self._app = app
        self._tools: CatalogTools = server.tools
        lookup = server.get_tool_input_schema
        self._input_schemas = {name: lookup(name) if lookup else None for name in self._tools.names}
        self._security = security
        self._max_body = max_body
        self._path = path
        self._stamp = msgspec.Raw(msgspec.json.encode(server.server_info_stamp))
        self._answered = 0
        self._envelopes = {
            (version, is_error): _envelope(version, is_error) for version in MODERN_PROTOCOL_VERSIONS
            for is_error in (False, True)
        }  # fmt: skip

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._candidate(scope):
            await self._app(scope, receive, send)
            return
        request = Request(scope)
        if (
            not self._secure(request)
            or not check_accept_headers(request)[0]
            or find_duplicated_routing_header(request.headers.items()) is not None
        ):
            await self._app(scope, receive, send)
            return
        messages, body = await read_body(receive, self._max_body)
        if messages[-1]["type"] == "http.disconnect":
            return  # the client went away mid-body: nothing to answer, nothing for the SDK to log
        call = self._call_of(body, request) if body is not None else None
        if call is None:
            await self._app(scope, replay(messages, receive), send)
            return
        self._answered += 1
        answer = await self._tools.call(call.name, call.arguments)
        await self._respond(send, call, answer)

    def statistics(self) -> dict[str, int]:
        """How many calls this path answered itself (the rest went to the SDK's app)."""
        return {"answered": self._answered}

    def _candidate(self, scope: Scope) -> bool:
        """A POST to the MCP path naming a modern protocol version and `tools/call` in its headers,
        with a declared body size within the limit (cheap checks, before anything is read)."""
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != self._path:
            return False
        version = method = length = None
        for key, value in scope["headers"]:
            if key == b"mcp-protocol-version":
                version = value
            elif key == b"mcp-method":
                method = value
            elif key == b"content-length":
                length = value
            elif key.startswith(_PARAM_HEADER):
                return False  # Mcp-Param-* headers: the SDK judges them
        if version not in _MODERN or method != b"tools/call" or length is None or not length.isdigit():
            return False
        return int(length) <= self._max_body

    def _secure(self, request: Request) -> bool:
        """What the SDK's transport security lets through (Content-Type, Host, Origin), checked
        without its warnings: a request that fails goes to the SDK, which logs it once."""
        if not request.headers.get("content-type", "").lower().startswith("application/json"):
            return False
        settings = self._security
        if not settings.enable_dns_rebinding_protection:
            return True
        origin = request.headers.get("origin")
        return _allowed(request.headers.get("host"), settings.allowed_hosts) and (
            not origin or _allowed(origin, settings.allowed_origins)
        )

    def _call_of(self, body: bytes, request: Request) -> _Call | None:
        """The call, if the body is exactly an ordinary `tools/call` of one of our tools that every
        check of the SDK's modern entry lets through; None for anything else."""
        try:
            decoded = msgspec.json.decode(body)
        except msgspec.DecodeError:
            return None
        if not isinstance(decoded, dict) or decoded.keys() != _ENVELOPE_KEYS:
            return None
        request_id, params = decoded["id"], decoded["params"]
        if decoded["jsonrpc"] != "2.0" or decoded["method"] != "tools/call" or type(request_id) not in (int, str):
            return None
        if not isinstance(params, dict) or not params.keys() <= _PARAM_KEYS:
            return None
        name, arguments = params.get("name"), params.get("arguments")
        if name not in self._tools.names or not isinstance(arguments, dict | None):
            return None
        verdict = classify_inbound_request(decoded, headers=dict(request.headers))
        if isinstance(verdict, InboundLadderRejection):
            return None
        schema = self._input_schemas[name]
        if arguments and schema is not None and validate_mcp_param_headers(schema, arguments, request.headers):
            return None
        try:
            protocol_methods.validate_client_request("tools/call", verdict.protocol_version, params)
        except (ValidationError, KeyError):
            return None
        return _Call(request_id, name, arguments or {}, verdict.protocol_version)

    async def _respond(self, send: Send, call: _Call, answer: ToolAnswer) -> None:
        result: dict[str, Any] = {"content": [{"type": "text", "text": answer.text}]}
        result.update(self._envelopes[call.version, answer.is_error])
        if not answer.is_error:
            result["structuredContent"] = msgspec.Raw(answer.json)
        result["_meta"] = {SERVER_INFO_META_KEY: self._stamp}
        body = msgspec.json.encode({"jsonrpc": "2.0", "id": call.id, "result": result})
        headers = [*_JSON_HEADERS, (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _envelope(version: str, is_error: bool) -> dict[str, Any]:
    """The result fields besides content, structured content and `_meta` that the SDK's own
    serialiser gives a tool result at `version` (`isError`, `resultType`)."""
    result = types.CallToolResult(content=[], is_error=is_error, structured_content=None if is_error else {})
    sample = result.model_dump(by_alias=True, mode="json", exclude_none=True)  # as the SDK's runner dumps it
    wire = protocol_methods.serialize_server_result("tools/call", version, sample)
    return {k: v for k, v in wire.items() if k not in ("content", "structuredContent", "_meta")}


def _allowed(value: str | None, allowed: list[str]) -> bool:
    """`value` is one of `allowed`, where "name:*" stands for that name with any port."""
    if not value:
        return False
    return value in allowed or any(a.endswith(":*") and value.startswith(a[:-1]) for a in allowed)
