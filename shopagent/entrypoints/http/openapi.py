"""The OpenAPI document of the chat API, served at /openapi.json."""

from __future__ import annotations

from typing import Any

import msgspec

from shopagent import __version__
from shopagent.entrypoints.http.chat import ChatRequest, ChatResponse, ConversationDetail, ConversationPage

_ERROR = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
            "required": ["code", "message"],
        }
    },
    "required": ["error"],
}
_ERRORS = {
    "400": "invalid input (the message names the field)",
    "401": "missing, invalid or expired token",
    "404": "no such conversation (or not yours)",
    "409": "conversation_busy, context_limit_reached or claim_lost",
    "413": "body too large",
    "429": "rate limited; see Retry-After",
    "502": "the model answered something unusable",
    "503": "the model (or embedding) service is unavailable",
    "504": "the turn took too long",
    "500": "max_steps_exceeded or an internal error",
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _responses(ok: dict[str, Any], *codes: str) -> dict[str, Any]:
    errors = {c: {"description": _ERRORS[c], "content": {"application/json": {"schema": _ref("Error")}}} for c in codes}
    return {**ok, **errors}


def openapi_document(store_name: str) -> dict[str, Any]:
    (_, components) = msgspec.json.schema_components(
        [ChatRequest, ChatResponse, ConversationPage, ConversationDetail],
        ref_template="#/components/schemas/{name}",
    )
    components["Error"] = _ERROR
    conversation_id = {
        "name": "conversation_id",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "format": "uuid"},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": f"{store_name} shopping assistant", "version": __version__},
        "components": {
            "schemas": components,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "description": "chat token"}},
        },
        "security": [{"bearer": []}],
        "paths": {
            "/api/assistant-agent/chat": {
                "post": {
                    "summary": "Send a message; answers JSON, or server-sent events with Accept: text/event-stream",
                    "description": "With Accept: text/event-stream the answer is a stream of server-sent "
                    "events: step (step, calls), tool (name, arguments, ms, isError), answer (text), done "
                    "(conversationId), and on failure error (status, code, message) — the HTTP status is "
                    "then 200 and the error's status is in the event, since the stream had already begun; "
                    "checks made before the turn starts (token, body, rate limit) still answer with their "
                    "HTTP status. While a turn runs the stream sends a `: ping` comment every "
                    "chat.sse_ping_seconds (15 s).",
                    "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("ChatRequest")}}},
                    "responses": _responses(
                        {
                            "200": {
                                "description": "the answer",
                                "content": {
                                    "application/json": {"schema": _ref("ChatResponse")},
                                    "text/event-stream": {"schema": {"type": "string"}},
                                },
                            }
                        },
                        "400",
                        "401",
                        "404",
                        "409",
                        "413",
                        "429",
                        "502",
                        "503",
                        "504",
                        "500",
                    ),
                }
            },
            "/api/conversations": {
                "get": {
                    "summary": "Your conversations, most recent first",
                    "parameters": [
                        {
                            "name": "limit",
                            "in": "query",
                            "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
                        },
                        {
                            "name": "before",
                            "in": "query",
                            "schema": {"type": "string"},
                            "description": "`next` of the previous page; absent or empty: the first page",
                        },
                    ],
                    "responses": _responses(
                        {
                            "200": {
                                "description": "a page",
                                "content": {"application/json": {"schema": _ref("ConversationPage")}},
                            }
                        },
                        "400",
                        "401",
                    ),
                }
            },
            "/api/conversations/{conversation_id}": {
                "get": {
                    "summary": "One conversation with its messages",
                    "parameters": [conversation_id],
                    "responses": _responses(
                        {
                            "200": {
                                "description": "the conversation",
                                "content": {"application/json": {"schema": _ref("ConversationDetail")}},
                            }
                        },
                        "401",
                        "404",
                    ),
                },
                "delete": {
                    "summary": "Delete a conversation (refused while it answers a message)",
                    "parameters": [conversation_id],
                    "responses": _responses({"204": {"description": "deleted"}}, "401", "404", "409"),
                },
            },
        },
    }
