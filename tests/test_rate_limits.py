"""Rate limits live in PostgreSQL: two replicas of the app share one budget, not two."""

from __future__ import annotations

import contextlib

import anyio
import httpx
import msgspec
import pytest

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.memory.chat import ScriptedChatModel, says
from shopagent.adapters.postgres.rate_limits import PostgresRateLimits
from shopagent.bootstrap import INDEXER_ACTORS, build_public_app, open_services
from shopagent.domain.tokens import issue_token
from shopagent.settings import AdminSettings, ChatSettings, Secret
from tests.helpers import AUTH_SECRET

pytestmark = pytest.mark.anyio

ADMIN_KEY = "admin-key-of-16-bytes-or-more"


@contextlib.asynccontextmanager
async def replicas(settings, n: int = 2):
    """`n` instances of the public app over one database, as N processes would be."""
    secrets = msgspec.structs.replace(
        settings.secrets, admin_api_key=Secret(ADMIN_KEY), auth_secret=Secret(AUTH_SECRET)
    )
    settings = msgspec.structs.replace(
        settings, secrets=secrets, chat=ChatSettings(rate_per_minute=1, rate_burst=2),
        admin=AdminSettings(rate_per_minute=1, rate_burst=3),
    )  # fmt: skip
    async with (
        open_services(settings, INDEXER_ACTORS | {"http"}, embedder=HashEmbedder()) as services,
        contextlib.AsyncExitStack() as stack,
    ):
        clients = []
        for _ in range(n):
            app = build_public_app(services, ScriptedChatModel(lambda messages: says("hi")))
            await stack.enter_async_context(app.router.lifespan_context(app))
            client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://api.test")
            clients.append(await stack.enter_async_context(client))
        yield services, clients


async def test_the_chat_limit_is_shared_by_the_replicas(settings):
    headers = {"Authorization": f"Bearer {issue_token(AUTH_SECRET, 'ana')}"}
    async with replicas(settings) as (_, (a, b)):
        codes = [(await c.post("/api/assistant-agent/chat", json={"query": "hi"}, headers=headers)).status_code
                 for c in (a, b, a, b)]  # fmt: skip
        other_user = await b.post("/api/assistant-agent/chat", json={"query": "hi"},
                                  headers={"Authorization": f"Bearer {issue_token(AUTH_SECRET, 'bob')}"})  # fmt: skip
        limited = await a.post("/api/assistant-agent/chat", json={"query": "hi"}, headers=headers)
    assert codes == [200, 200, 429, 429]  # a burst of 2 in all, not 2 per replica
    assert other_user.status_code == 200  # per user
    assert limited.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(limited.headers["retry-after"]) <= 60


async def test_the_admin_api_is_limited_across_the_replicas(settings):
    headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
    async with replicas(settings) as (_, (a, b)):
        codes = [(await c.get("/api/admin/products", headers=headers)).status_code for c in (a, b, a, b)]
        wrong_key = await a.get("/api/admin/products", headers={"Authorization": "Bearer nope"})
    assert codes == [200, 200, 200, 429]
    assert wrong_key.status_code == 401  # checked before the budget


async def test_a_bucket_refills_with_time_and_concurrent_takes_never_overspend(settings):
    async with open_services(settings, frozenset(), embedder=HashEmbedder()) as services:
        limits = PostgresRateLimits(services.pool)
        results: list[float | None] = []

        async def take() -> None:
            results.append(await limits.take("k", 60, 5))

        async with anyio.create_task_group() as tg:
            for _ in range(12):
                tg.start_soon(take)
        assert sum(r is None for r in results) == 5  # exactly the burst, however they interleave
        waits = [r for r in results if r is not None]
        assert all(0 < w <= 1.0 for w in waits)  # 60 per minute: one back within a second
        async with services.pool.acquire() as conn:
            await conn.execute("UPDATE rate_bucket SET updated_at = updated_at - interval '3 seconds'")
        assert await limits.take("k", 60, 5) is None  # refilled meanwhile
        async with services.pool.acquire() as conn:
            await conn.execute("UPDATE rate_bucket SET updated_at = updated_at - interval '2 hours'")
        assert await limits.forget_idle(3600) == 1
