"""Every HTTP error has one shape: {"error": {"code": "...", "message": "..."}}.

`STATUS` is the one table that maps the domain's error tree to HTTP statuses.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping

from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from shopagent.domain.errors import (
    BadModelResponse,
    ClaimLost,
    Conflict,
    ContextLimitReached,
    ContextWindowExceeded,
    ConversationBusy,
    DatabaseUnavailable,
    EmbeddingError,
    ModelConfigError,
    ModelUnavailable,
    NotFound,
    RateLimited,
    RateLimitExceeded,
    ShopagentError,
    ShuttingDown,
    TokenExpired,
    TurnTimeout,
    Unauthorized,
    ValidationError,
)

log = logging.getLogger("shopagent.http")
turn_log = logging.getLogger("shopagent.chat")

_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
}

# The one table from the error tree to HTTP. Most specific first.
STATUS: list[tuple[type[ShopagentError], int, str]] = [
    (ValidationError, 400, "validation_error"),
    (TokenExpired, 401, "token_expired"),
    (Unauthorized, 401, "unauthorized"),
    (NotFound, 404, "not_found"),
    (ConversationBusy, 409, "conversation_busy"),
    (ContextLimitReached, 409, "context_limit_reached"),
    (ContextWindowExceeded, 409, "context_limit_reached"),
    (ClaimLost, 409, "claim_lost"),
    (Conflict, 409, "conflict"),
    (RateLimitExceeded, 429, "rate_limited"),
    (ModelConfigError, 502, "model_misconfigured"),
    (BadModelResponse, 502, "bad_model_response"),
    (RateLimited, 503, "model_rate_limited"),
    (ModelUnavailable, 503, "model_unavailable"),
    (EmbeddingError, 503, "embedding_unavailable"),
    (DatabaseUnavailable, 503, "database_unavailable"),
    (ShuttingDown, 503, "shutting_down"),
    (TurnTimeout, 504, "turn_timeout"),
]


def domain_error_body(exc: ShopagentError) -> tuple[int, dict[str, str]]:
    """The status and `{"code", "message"}` for a domain error (500 "internal" if unmapped)."""
    for kind, status, code in STATUS:
        if isinstance(exc, kind):
            return status, {"code": code, "message": str(exc)}
    return 500, {"code": "internal", "message": "internal error; the details are in the server log"}


def log_failed_turn(exc: ShopagentError) -> None:
    """One line for a chat turn that failed, with the status and code its client gets: a warning
    when the failure is on the server's side (the model, the database: 5xx), else at info level
    (a busy conversation, a bad query: the client's doing)."""
    status, body = domain_error_body(exc)
    level = logging.WARNING if status >= 500 else logging.INFO
    turn_log.log(level, "chat turn failed: %d %s: %s", status, body["code"], body["message"])


class ApiError(Exception):
    """Raised by handlers for protocol-level problems (bad JSON, auth, size)."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers


def error_response(status: int, code: str, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.code, exc.message, exc.headers)


async def _domain_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ShopagentError)
    status, body = domain_error_body(exc)
    if status == 500 and body["code"] == "internal":
        return await _unhandled(request, exc)
    headers = {}
    if isinstance(exc, RateLimitExceeded):
        headers["Retry-After"] = str(max(1, math.ceil(exc.retry_after)))
    if isinstance(exc, DatabaseUnavailable | ShuttingDown):
        headers["Retry-After"] = "1"
    if isinstance(exc, Unauthorized):
        headers["WWW-Authenticate"] = 'Bearer realm="shopagent-chat"'
    return error_response(status, body["code"], body["message"], headers or None)


async def _http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = _CODES.get(exc.status_code, "error")
    return error_response(exc.status_code, code, str(exc.detail), headers=exc.headers)


async def _client_gone(request: Request, exc: Exception) -> Response:
    """The client went away before its request was read: nothing to answer (the server drops what
    is sent to a closed connection) and nothing wrong on this side; RequestMetrics counts it."""
    log.debug("client went away on %s %s", request.method, request.url.path)
    return Response(status_code=499)


async def _unhandled(request: Request, exc: Exception) -> Response:
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, "internal", "internal error; the details are in the server log")


EXCEPTION_HANDLERS = {
    ApiError: _api_error,
    ShopagentError: _domain_error,
    HTTPException: _http_exception,
    ClientDisconnect: _client_gone,
    Exception: _unhandled,
}
