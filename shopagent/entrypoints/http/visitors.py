"""Anonymous visitors: POST /api/assistant-agent/visitor-token, for shops without a backend.

Off by default (`http.anonymous_chat`): then a shop's own backend mints a token for each
customer it knows. When on, every call makes up a new user id (`visitor-<random>`), so a
visitor sees only the conversations of the token they hold; the token is short-lived and
the calls are rate-limited per client address (per minute and per hour). The chat budget of
visitors is kept per client address, not per token, so more tokens buy no more messages, and
all visitors together share one budget per minute, so that anonymous chat cannot drain a paid
model.

The client address is the connection's; uvicorn replaces it with the one in
`X-Forwarded-For` only when the connection comes from an address in FORWARDED_ALLOW_IPS
(default: loopback, i.e. a reverse proxy on the same host). A header sent by anyone else is
ignored, so it cannot be used to dodge the limit.
"""

from __future__ import annotations

import ipaddress
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from shopagent.application.limits import RateLimit
from shopagent.domain.tokens import issue_token
from shopagent.entrypoints.http.errors import ApiError
from shopagent.entrypoints.http.openapi import ApiRoute, Operation

_encoder = msgspec.json.Encoder()
VISITOR_PREFIX = "visitor-"


def is_visitor(user: str) -> bool:
    """Whether `user` is an anonymous visitor's made-up id (the shop's own ids must not use the prefix)."""
    return user.startswith(VISITOR_PREFIX)


def client_address(request: Request) -> str:
    """The client's address as budgets count it: an IPv6 address by its /64 network, which one
    subscriber usually holds whole (else each of its 2^64 addresses would get a budget)."""
    host = request.client.host if request.client else "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return host


@dataclass(frozen=True)
class VisitorBudgets:
    """`tokens_per_hour`: tokens minted per client address (an hourly bucket, beside the
    per-minute one); `messages`: the chat messages of all visitors together."""

    tokens_per_hour: RateLimit
    messages: RateLimit


class VisitorToken(msgspec.Struct, rename="camel", kw_only=True):
    token: str
    user_id: str
    expires_at: datetime


def visitor_routes(
    auth_secret: str, limiter: RateLimit, *, enabled: bool, ttl_seconds: int, budgets: VisitorBudgets | None = None
) -> list[Route]:
    """`limiter` (and the hourly budget of `budgets`) is taken per client address before a token is made."""

    async def visitor_token(request: Request) -> Response:
        if not enabled:
            raise ApiError(
                403,
                "anonymous_chat_disabled",
                "this shop does not hand out visitor tokens; its site must provide a chat token "
                "(or the shop sets http.anonymous_chat = true)",
            )
        address = client_address(request)
        await limiter.take(f"visitor:{address}")
        if budgets is not None:
            await budgets.tokens_per_hour.take(f"visitor-hour:{address}")
        user = f"{VISITOR_PREFIX}{secrets.token_urlsafe(12)}"
        now = time.time()
        body = VisitorToken(
            token=issue_token(auth_secret, user, ttl_seconds, now=now),
            user_id=user,
            expires_at=datetime.fromtimestamp(int(now + ttl_seconds), UTC),
        )
        return Response(_encoder.encode(body), media_type="application/json", headers={"Cache-Control": "no-store"})

    return [
        ApiRoute("/api/assistant-agent/visitor-token", visitor_token, method="POST", operation=Operation(
            "A short-lived chat token for a new anonymous visitor (only with http.anonymous_chat)",
            response=VisitorToken, security=None, errors=(403, 429))),
    ]  # fmt: skip
