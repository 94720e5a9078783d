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
from shopagent.application.limits import RateLimit
from shopagent.application.ports.operations import Taken
from shopagent.bootstrap import build_public_app
from shopagent.domain.errors import RateLimitExceeded
from shopagent.domain.tokens import issue_token
from shopagent.settings import AdminSettings, ChatSettings, Secret
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
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
        results: list[Taken] = []

        async def take() -> None:
            results.append(await limits.take("k", 60, 5))

        async with anyio.create_task_group() as tg:
            for _ in range(12):
                tg.start_soon(take)
        assert sum(r.tokens for r in results) == 5  # exactly the burst, however they interleave
        waits = [r.wait for r in results if not r.tokens]
        assert len(waits) == 7 and all(0 < w <= 1.0 for w in waits)  # 60 per minute: one back within a second
        async with services.pool.acquire() as conn:
            await conn.execute("UPDATE rate_bucket SET updated_at = updated_at - interval '3 seconds'")
        assert (await limits.take("k", 60, 5)).tokens == 1  # refilled meanwhile
        async with services.pool.acquire() as conn:
            await conn.execute("UPDATE rate_bucket SET updated_at = updated_at - interval '2 hours'")
        assert await limits.forget_idle(3600) == 1


async def test_a_take_of_many_gets_what_the_bucket_holds_and_concurrent_batches_never_overspend(settings):
    async with open_services(settings, frozenset(), embedder=HashEmbedder()) as services:
        limits = PostgresRateLimits(services.pool)
        results: list[Taken] = []

        async def take() -> None:
            results.append(await limits.take("k", 60, 25, most=4))

        async with anyio.create_task_group() as tg:
            for _ in range(10):
                tg.start_soon(take)
        assert sum(r.tokens for r in results) == 25  # the whole burst, in batches of at most 4
        assert all(0 <= r.tokens <= 4 for r in results)
        assert [r for r in results if not r.tokens] and all(0 < r.wait <= 1.0 for r in results if not r.tokens)


class CountingStore:
    """The real store, counting its round trips."""

    def __init__(self, store: PostgresRateLimits) -> None:
        self.store = store
        self.takes = 0

    async def take(self, key: str, per_minute: float, burst: int, most: int = 1) -> Taken:
        self.takes += 1
        return await self.store.take(key, per_minute, burst, most)


async def test_replicas_taking_batches_admit_exactly_the_burst_with_a_tenth_of_the_round_trips(settings):
    async with open_services(settings, frozenset(), embedder=HashEmbedder()) as services:
        store = CountingStore(PostgresRateLimits(services.pool))
        replicas = [RateLimit(store, per_minute=1, burst=100) for _ in range(2)]
        outcomes: list[bool] = []

        async def request(limit: RateLimit, key: str) -> None:
            try:
                await limit.take(key)
                outcomes.append(True)
            except RateLimitExceeded:
                outcomes.append(False)

        for _ in range(60):  # one after the other, alternating replicas
            for limit in replicas:
                await request(limit, "one-by-one")
        assert (outcomes.count(True), outcomes.count(False)) == (100, 20)
        assert store.takes == 10 + 20  # batches of 10, and each refusal asked the store

        outcomes.clear()
        # All at once, as many requests to each replica as the whole burst: the batches may go to
        # either replica in any share (a replica's unused tokens are lost to the other meanwhile,
        # RateLimit's docstring), and with fewer requests than it holds it would leave some unused.
        async with anyio.create_task_group() as tg:
            for i in range(250):
                tg.start_soon(request, replicas[i % 2], "at-once")
        assert (outcomes.count(True), outcomes.count(False)) == (100, 150)
