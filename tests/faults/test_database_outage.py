"""PostgreSQL stopped and started again under load: every process stays up, answers a fast 503
(MCP: a tool error) while it is away, is ready again about a second after it is back, and
the indexer picks up where it left off."""

from __future__ import annotations

from collections import Counter

import anyio
import httpx
import pytest

from tests.faults.harness import (
    ADMIN_HEADERS,
    MCP_HEADERS,
    Outcome,
    OwnedPostgres,
    alive,
    all_ready,
    chat_headers,
    dependency,
    http_url,
    index_report,
    mcp_url,
    new_user,
    now,
    poll,
    product_body,
    readyz,
    restarts,
    result_text,
    run_role,
    service_env,
)
from tests.helpers import ShopagentProcess, eventually

pytestmark = pytest.mark.anyio

OUTAGE_SECONDS = 6.0
FAST_ANSWER_SECONDS = 2.0  # the most a request may take while the database is away
RECOVERY_SECONDS = 1.0  # after PostgreSQL is back, requests succeed and /readyz is 200 within this
# A restart budget the outage overruns more than twice: 5 restarts backing off 0.1, 0.2, 0.4,
# 0.8, 1 s are spent within 2.5 s, so a process whose actors crashed on the outage would have
# exited well before its end.
SUPERVISOR = {
    "SHOPAGENT_RUNTIME__RESTART_BACKOFF_SECONDS": "0.1",
    "SHOPAGENT_RUNTIME__RESTART_BACKOFF_MAX_SECONDS": "1",
    "SHOPAGENT_RUNTIME__RESTART_MAX": "5",
}
SEED_PRODUCTS = 8
PACE_SECONDS = 0.05  # between two requests of one load loop


class Load:
    """Three loops of requests (admin API, chat API, MCP tool calls) recording every outcome."""

    def __init__(self, chat: ShopagentProcess, mcp: ShopagentProcess, product_ids: list[int]) -> None:
        self.http = http_url(chat)
        self.mcp = mcp_url(mcp)
        self.product_ids = product_ids
        self.outcomes: list[Outcome] = []
        self.stop = anyio.Event()

    async def run(self) -> None:
        async with httpx.AsyncClient(timeout=10) as client, anyio.create_task_group() as tg:
            tg.start_soon(self._loop, client, self._admin)
            tg.start_soon(self._loop, client, self._chat)
            tg.start_soon(self._loop, client, self._mcp)

    async def _loop(self, client: httpx.AsyncClient, request) -> None:
        n = 0
        while not self.stop.is_set():
            started = now()
            try:
                outcome = await request(client, n, started)
            except httpx.TransportError as exc:
                outcome = Outcome(request.__name__[1:], started, now(), ok=False, detail=repr(exc))
            self.outcomes.append(outcome)
            n += 1
            await anyio.sleep(PACE_SECONDS)  # pacing, not synchronisation

    async def _admin(self, client: httpx.AsyncClient, n: int, started: float) -> Outcome:
        product_id = self.product_ids[n % len(self.product_ids)]
        url = f"{self.http}/api/admin/products/{product_id}"
        if n % 2:
            response = await client.put(url, json={"rating": round(1 + (n % 40) / 10, 1)}, headers=ADMIN_HEADERS)
        else:
            response = await client.get(url, headers=ADMIN_HEADERS)
        return _http_outcome("admin", started, response)

    async def _chat(self, client: httpx.AsyncClient, n: int, started: float) -> Outcome:
        response = await client.post(
            f"{self.http}/api/assistant-agent/chat", json={"query": "warm boots"}, headers=chat_headers(new_user())
        )
        return _http_outcome("chat", started, response)

    async def _mcp(self, client: httpx.AsyncClient, n: int, started: float) -> Outcome:
        arguments = {"query": "boots", "limit": 3}
        params = {"name": "product-semantic-search", "arguments": arguments}
        request = {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}
        response = await client.post(self.mcp, json=request, headers=MCP_HEADERS)
        if response.status_code != 200:
            return _http_outcome("mcp", started, response)
        result = response.json().get("result") or {}
        if result.get("isError"):
            return Outcome("mcp", started, now(), ok=False, status=200, code="isError", detail=result_text(result))
        return Outcome("mcp", started, now(), ok=True, status=200)

    def of(self, kind: str, since: float = 0.0, until: float = float("inf")) -> list[Outcome]:
        return [o for o in self.outcomes if o.kind == kind and o.started >= since and o.ended <= until]


def _http_outcome(kind: str, started: float, response: httpx.Response) -> Outcome:
    ended = now()
    if response.status_code < 400:
        return Outcome(kind, started, ended, ok=True, status=response.status_code)
    try:
        code = response.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        code = None
    return Outcome(kind, started, ended, ok=False, status=response.status_code, code=code, detail=response.text[:300])


def is_outage_answer(o: Outcome) -> bool:
    """The answer the spec asks for while the database is away."""
    if o.kind == "mcp":
        text = o.detail.lower()
        return o.status == 200 and o.code == "isError" and "temporarily unavailable" in text and "catalog" in text
    return o.status == 503 and o.code == "database_unavailable"


async def _seed(pg: OwnedPostgres, chat: ShopagentProcess) -> list[int]:
    async with httpx.AsyncClient(base_url=http_url(chat), headers=ADMIN_HEADERS, timeout=30) as client:
        ids = []
        for n in range(SEED_PRODUCTS):
            created = await client.post("/api/admin/products", json=product_body(n))
            assert created.status_code == 201, created.text
            ids.append(created.json()["id"])

    async def indexed() -> bool:
        report = await index_report(pg)
        return report["pending"] == 0 and report["stale"] == 0 and report["products"] == SEED_PRODUCTS

    await eventually(indexed, timeout=30, interval=0.1)
    return ids


async def test_postgres_stopped_and_started_under_load(pg):
    env = service_env(pg, **SUPERVISOR, SHOPAGENT_REAPER__INTERVAL_SECONDS="1")
    async with (
        run_role("mcp", env, wait_ready=False) as mcp,
        run_role("indexer,reaper", env, wait_ready=False) as indexer,
    ):
        await mcp.wait_for_log("all actors ready", timeout=60)  # the chat instance checks it at start
        chat_env = env | {"SHOPAGENT_CHAT__MCP_URL": mcp_url(mcp)}
        async with run_role("chat", chat_env, wait_ready=False) as chat:
            await all_ready(chat, indexer)
            procs = {"chat": chat, "mcp": mcp, "indexer": indexer}
            pids = {name: p.process.pid for name, p in procs.items()}
            product_ids = await _seed(pg, chat)
            load = Load(chat, mcp, product_ids)
            dsn_before = pg.dsn
            async with anyio.create_task_group() as tg:
                tg.start_soon(load.run)
                await eventually(lambda: _all_kinds(load, ok=True), timeout=30)  # warm: each loop succeeded

                await pg.stop()
                down_at = now()
                # Readiness says the database is down (a probe may take a moment to notice).
                outage_ready = {name: await poll(lambda p=p: _unready(p), timeout=5) for name, p in procs.items()}
                outage_ready = {name: r or await readyz(procs[name]) for name, r in outage_ready.items()}
                await poll(lambda: _all_kinds(load, since=down_at, count=3), timeout=OUTAGE_SECONDS - 1)
                await anyio.sleep(max(0.0, down_at + OUTAGE_SECONDS - now()))  # the outage lasts this long
                exited_during_outage = {name: p.process.returncode for name, p in procs.items() if not alive(p)}
                starting_at = now()
                await pg.start()
                up_at = now()

                ready_after = {}
                for name, proc in procs.items():
                    ready = await poll(lambda p=proc: _ready(p), timeout=RECOVERY_SECONDS + 5)
                    ready_after[name] = now() - up_at if ready else float("inf")
                settled = up_at + RECOVERY_SECONDS
                await poll(lambda: _all_kinds(load, since=settled, count=3), timeout=15)
                load.stop.set()

            # An edit made after the restart is indexed.
            edited = product_ids[0]
            edit_at = now()
            async with httpx.AsyncClient(base_url=http_url(chat), headers=ADMIN_HEADERS, timeout=10) as client:
                response = await client.put(f"/api/admin/products/{edited}", json={"name": "Recovered Lantern Boot"})
            edit_indexed = response.status_code == 200 and await poll(lambda: _indexed(pg, edited), timeout=10)
            edit_indexed_in = now() - edit_at if edit_indexed else float("inf")

            final = {name: await readyz(p) for name, p in procs.items()}
            exited = {name: p.process.returncode for name, p in procs.items() if not alive(p)}

    outage = {kind: load.of(kind, since=down_at, until=starting_at) for kind in KINDS}
    after = {kind: load.of(kind, since=up_at) for kind in KINDS}
    print(f"outage {starting_at - down_at:.1f}s; answers while down: "
          + ", ".join(f"{k} {len(v)} (slowest {max((o.seconds for o in v), default=0):.2f}s)"
                      for k, v in outage.items()))  # fmt: skip
    print("answers while down, by kind: " + "; ".join(
        f"{k}: " + ", ".join(f"{n}x {a}" for a, n in Counter(_answer(o) for o in v).most_common(3))
        for k, v in outage.items()))  # fmt: skip
    print("ready again after " + ", ".join(f"{k} {v:.2f}s" for k, v in ready_after.items())
          + "; first success after " + ", ".join(
              f"{k} {min((o.ended - up_at for o in v if o.ok), default=float('inf')):.2f}s" for k, v in after.items())
          + f"; the edit after the restart was indexed in {edit_indexed_in:.2f}s")  # fmt: skip

    # No process exited, none was restarted, the indexer's actors were never restarted.
    assert exited_during_outage == {} and exited == {}, (exited_during_outage, exited, _tails(procs))
    assert {name: p.process.pid for name, p in procs.items()} == pids
    assert pg.dsn == dsn_before  # the same socket, so the processes' DSN still leads to it

    # While the database was away: /readyz 503 "unavailable", database down.
    for name, (status, body) in outage_ready.items():
        assert status == 503 and body["ready"] is False and body.get("status") == "unavailable", (name, body)
        assert (dependency(body, "database") or {}).get("state") == "down", (name, body)

    # Every request in the outage got the outage answer, fast; never a 500 or a dropped connection.
    for kind, outcomes in outage.items():
        assert len(outcomes) >= 3, (kind, outcomes)
        wrong = [o for o in outcomes if not is_outage_answer(o)]
        assert wrong == [], (kind, len(wrong), wrong[:3])
        slow = [o for o in outcomes if o.seconds >= FAST_ANSWER_SECONDS]
        assert slow == [], (kind, slow[:3])
    neither = [o for o in load.outcomes if not (o.ok or is_outage_answer(o))]
    assert neither == [], neither[:5]

    # Back within about a second: ready, and every request started a second after the restart succeeded.
    for name, seconds in ready_after.items():
        assert seconds <= RECOVERY_SECONDS, (name, seconds, final[name])
    for kind in KINDS:
        settled_outcomes = load.of(kind, since=settled)
        assert settled_outcomes, kind
        late_failures = [o for o in settled_outcomes if not o.ok]
        assert late_failures == [], (kind, late_failures[:3])
    for name, (status, body) in final.items():
        assert status == 200 and body["status"] == "ready", (name, body)
        assert (dependency(body, "database") or {}).get("state") == "up", (name, body)
    indexer_restarts = restarts(final["indexer"][1])
    assert indexer_restarts["outbox-poller"] == 0 and indexer_restarts["embedding-pool"] == 0, final["indexer"]
    assert edit_indexed_in < 5


KINDS = ("admin", "chat", "mcp")


def _answer(o: Outcome) -> str:
    if o.ok:
        return f"{o.status} ok"
    return f"{o.status} {o.code} {o.detail[:80]!r}" if o.kind == "mcp" else f"{o.status} {o.code}"


def _tails(procs: dict[str, ShopagentProcess]) -> dict[str, list[str]]:
    return {name: [e.get("message", "")[:200] for e in p.logs[-5:]] for name, p in procs.items()}


async def _all_kinds(load: Load, *, since: float = 0.0, ok: bool = False, count: int = 1) -> bool:
    """Whether each loop has `count` outcomes started since `since` (successes, with `ok`)."""
    return all(len([o for o in load.of(kind, since=since) if o.ok or not ok]) >= count for kind in KINDS)


async def _unready(proc: ShopagentProcess) -> tuple[int | None, dict] | None:
    status, body = await readyz(proc)
    return (status, body) if status != 200 else None


async def _ready(proc: ShopagentProcess) -> bool:
    status, _ = await readyz(proc)
    return status == 200


async def _indexed(pg: OwnedPostgres, product_id: int) -> bool:
    return bool(
        await pg.fetchval(
            "SELECT i.product_version = p.version FROM product p JOIN product_index i ON i.product_id = p.id "
            "WHERE p.id = $1",
            product_id,
        )
    )
