"""Chat API tokens: `v1.<payload>.<signature>`, HMAC-SHA256 over the payload with the auth secret.

The payload is base64url JSON `{"sub": user id, "exp": unix seconds}`. A shop's backend mints
one per logged-in customer with a few lines (see the README) and hands it to the browser.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

import msgspec

from shopagent.domain.errors import Unauthorized
from shopagent.domain.inputs import same_secret

VERSION = "v1"


class Claims(msgspec.Struct, frozen=True):
    sub: str
    exp: int


def issue_token(secret: str, user_id: str, ttl_seconds: int = 86_400, now: float | None = None) -> str:
    if not user_id or len(user_id) > 200:
        raise ValueError("the user id must be 1-200 characters")
    claims = Claims(sub=user_id, exp=int((time.time() if now is None else now) + ttl_seconds))
    payload = _b64(msgspec.json.encode(claims))
    return f"{VERSION}.{payload}.{_sign(secret, payload)}"


def verify_token(secret: str, token: str, now: float | None = None) -> str:
    """The user id the token was issued for; Unauthorized if it is malformed, forged or expired."""
    version, _, rest = token.partition(".")
    payload, _, signature = rest.partition(".")
    if version != VERSION or not payload or not signature:
        raise Unauthorized("the token is malformed")
    if not same_secret(signature, _sign(secret, payload)):
        raise Unauthorized("the token signature is not valid")
    try:
        claims = msgspec.json.decode(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)), type=Claims)
    except (ValueError, msgspec.DecodeError):
        raise Unauthorized("the token is malformed") from None
    if claims.exp < (time.time() if now is None else now):
        raise Unauthorized("the token has expired")
    return claims.sub


def _sign(secret: str, payload: str) -> str:
    return _b64(hmac.new(secret.encode(), payload.encode("utf-8", "surrogatepass"), hashlib.sha256).digest())


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
