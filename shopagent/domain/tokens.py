"""Chat API tokens: `v2.<payload>.<signature>`, HMAC-SHA256 over `v2.<payload>` with the auth secret.

The payload is base64url JSON `{"sub": user id, "exp": unix seconds}`. A shop's backend mints
one per logged-in customer with a few lines (see the README) and hands it to the browser.

The auth secret may be a comma-separated list, for rotation: the first signs new tokens,
every one verifies, so tokens signed with the previous secret stay valid until they expire.
A token whose expiry lies further ahead than the allowed lifetime is refused, whoever signed it,
and so is one whose user id breaks the rule `issue_token` applies (a secret shared with a shop's
backend may sign ids this code never minted).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
import unicodedata

import msgspec

from shopagent.domain.errors import TokenExpired, Unauthorized
from shopagent.domain.inputs import same_secret

VERSION = "v2"
MIN_SECRET_BYTES = 32
MAX_USER_ID_CHARS = 200


class Claims(msgspec.Struct, frozen=True):
    sub: str
    exp: int


def signing_keys(secret: str) -> list[str]:
    """The secrets of a (comma-separated) auth secret setting, the signing one first."""
    return [k.strip() for k in secret.split(",") if k.strip()]


def issue_token(secret: str, user_id: str, ttl_seconds: int = 86_400, now: float | None = None) -> str:
    """A token for `user_id`, signed with the first of the secrets."""
    problem = user_id_problem(user_id)
    if problem is not None:
        raise ValueError(f"the user id {problem}")
    claims = Claims(sub=user_id, exp=int((time.time() if now is None else now) + ttl_seconds))
    payload = _b64(msgspec.json.encode(claims))
    return f"{VERSION}.{payload}.{_sign(signing_keys(secret)[0], payload)}"


def verify_token(secret: str, token: str, now: float | None = None, max_ttl_seconds: int | None = None) -> str:
    """The user id the token was issued for; Unauthorized if it is malformed, forged, expired or
    lives longer than `max_ttl_seconds` from now."""
    version, _, rest = token.partition(".")
    payload, _, signature = rest.partition(".")
    if version == "v1":
        raise Unauthorized("the token is of an older format; ask for a new one")
    if version != VERSION or not payload or not signature:
        raise Unauthorized("the token is malformed")
    if not any(same_secret(signature, _sign(key, payload)) for key in signing_keys(secret)):
        raise Unauthorized("the token signature is not valid")
    try:
        claims = msgspec.json.decode(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)), type=Claims)
    except (ValueError, msgspec.DecodeError):
        raise Unauthorized("the token is malformed") from None
    now = time.time() if now is None else now
    if claims.exp < now:
        raise TokenExpired("the token has expired; ask for a new one")
    if max_ttl_seconds is not None and claims.exp > now + max_ttl_seconds:
        raise Unauthorized(f"the token lives longer than the {max_ttl_seconds}s this shop allows; ask for a new one")
    problem = user_id_problem(claims.sub)
    if problem is not None:
        raise Unauthorized(f"the token's user id (sub) {problem}; ask for a new one")
    return claims.sub


def user_id_problem(user_id: str) -> str | None:
    """What makes a user id unusable (it is stored and used in keys), or None when it is fine."""
    if not 1 <= len(user_id) <= MAX_USER_ID_CHARS:
        return f"must be 1-{MAX_USER_ID_CHARS} characters"
    for ch in user_id:
        if unicodedata.category(ch) in ("Cc", "Cs"):  # tab and line breaks too: no id has them
            return f"contains a control character (U+{ord(ch):04X})"
    return None


def _sign(secret: str, payload: str) -> str:
    signed = f"{VERSION}.{payload}".encode("utf-8", "surrogatepass")
    return _b64(hmac.new(secret.encode(), signed, hashlib.sha256).digest())


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
