"""Every HTTP error has one shape: {"error": {"code": "...", "message": "..."}}.

`STATUS` is the one table that maps the domain's error tree to HTTP statuses.
"""

from __future__ import annotations

import logging

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from shopagent.domain.errors import (
    Conflict,
    EmbeddingError,
    NotFound,
    ShopagentError,
    ValidationError,
)

log = logging.getLogger("shopagent.http")

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

# Most specific first.
STATUS: list[tuple[type[ShopagentError], int, str]] = [
    (ValidationError, 400, "validation_error"),
    (NotFound, 404, "not_found"),
    (Conflict, 409, "conflict"),
    (EmbeddingError, 503, "embedding_unavailable"),
]


class ApiError(Exception):
    """Raised by handlers for protocol-level problems (bad JSON, auth, size)."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.code, exc.message, exc.headers)


async def _domain_error(request: Request, exc: Exception) -> Response:
    for kind, status, code in STATUS:
        if isinstance(exc, kind):
            return error_response(status, code, str(exc))
    return await _unhandled(request, exc)


async def _http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = _CODES.get(exc.status_code, "error")
    return error_response(exc.status_code, code, str(exc.detail), headers=exc.headers)


async def _unhandled(request: Request, exc: Exception) -> Response:
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, "internal", "internal error; the details are in the server log")


EXCEPTION_HANDLERS = {
    ApiError: _api_error,
    ShopagentError: _domain_error,
    HTTPException: _http_exception,
    Exception: _unhandled,
}
