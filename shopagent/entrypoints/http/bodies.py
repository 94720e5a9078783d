"""Reading request bodies: size-capped, decoded with msgspec at the edge."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, TypeVar

import msgspec
from starlette.requests import Request

from shopagent.domain.inputs import decode_hook, explain, is_ascii_int
from shopagent.entrypoints.http.errors import ApiError

T = TypeVar("T")
_INT_BOUND = 2**63
_untyped = msgspec.json.Decoder(float_hook=Decimal)


async def read_json(request: Request, kind: type[T], *, limit: int) -> T:
    """The body decoded as `kind`; 413 past `limit` bytes, 400 naming the field otherwise."""
    declared = request.headers.get("content-length")
    if declared is not None and is_ascii_int(declared) and int(declared) > limit:
        raise ApiError(413, "payload_too_large", f"the body may be at most {limit} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise ApiError(413, "payload_too_large", f"the body may be at most {limit} bytes")
    try:
        # JSON numbers reach decode_hook as Decimals (exact), not floats.
        decoder = msgspec.json.Decoder(kind, dec_hook=decode_hook, float_hook=Decimal)
        return decoder.decode(bytes(body))
    except msgspec.ValidationError as exc:
        return _with_integral_numbers(bytes(body), kind, exc)
    except msgspec.DecodeError as exc:
        raise ApiError(400, "bad_request", f"the body is not valid JSON: {exc}") from None


def _with_integral_numbers(body: bytes, kind: type[T], refused: msgspec.ValidationError) -> T:
    """The body decoded again with integral numbers written as decimals (`-3767.0`, `1e3`) read as
    the integers they are, as JSON Schema counts them; the first refusal stands otherwise. A body the
    typed decoder refused by its first byte ("[{": an array, not an object) may be no JSON at all."""
    try:
        loose = _untyped.decode(body)
    except msgspec.DecodeError as exc:
        raise ApiError(400, "bad_request", f"the body is not valid JSON: {exc}") from None
    try:
        return msgspec.convert(_integral_to_int(loose), kind, dec_hook=decode_hook)
    except (msgspec.ValidationError, ArithmeticError):  # ArithmeticError: a number past Decimal's range
        raise ApiError(400, "validation_error", explain(refused)) from None


def _integral_to_int(value: Any) -> Any:
    if isinstance(value, Decimal):
        # Bounded first: int() of 1e999999999 would build a billion-digit number.
        if value.is_finite() and abs(value) <= _INT_BOUND and value == value.to_integral_value():
            return int(value)
        return value
    if isinstance(value, dict):
        return {k: _integral_to_int(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_integral_to_int(v) for v in value]
    return value
