"""Reading request bodies: size-capped, decoded with msgspec at the edge."""

from __future__ import annotations

from decimal import Decimal
from typing import TypeVar

import msgspec
from starlette.requests import Request

from shopagent.domain.inputs import decode_hook, explain, is_ascii_int
from shopagent.entrypoints.http.errors import ApiError

T = TypeVar("T")


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
        raise ApiError(400, "validation_error", explain(exc)) from None
    except msgspec.DecodeError as exc:
        raise ApiError(400, "bad_request", f"the body is not valid JSON: {exc}") from None
