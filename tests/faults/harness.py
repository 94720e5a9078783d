"""The fault suite's harness: a PostgreSQL each test owns (so it can stop and start it), real
`python -m shopagent` processes over it, and small clients for their HTTP, MCP and ops ports.

Nothing here sleeps to synchronise: waits are on conditions (`eventually`, log lines,
process exit), each with a bound.
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import asyncpg
import httpx
import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from shopagent.adapters.postgres.database import ensure_database
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from shopagent.domain.tokens import issue_token
from tests.conftest import FAST_OPTIONS
from tests.factories import product_input
from tests.fake_openai import reply, serving
from tests.helpers import AUTH_SECRET, ShopagentProcess, shopagent

log = logging.getLogger("tests.faults")

DATABASE = "shopagent"
ADMIN_KEY = "fault-suite-admin-key-0123456789"
MCP_KEY = "fault-suite-mcp-key-0123456789"
HASH_MODEL = "hash-384"  # what the hash embedder (384 dimensions) records on chunks
HIGH_RATE = {"RATE_PER_MINUTE": "600000", "RATE_BURST": "100000"}


# -- PostgreSQL ------------------------------------------------------------------------------


class OwnedPostgres:
    """A database of its own on the suite's embedded PostgreSQL, which the test owning it may
    stop and start again at will (the server keeps its data directory and socket, so the DSN
    stays valid); the fixtures hand the server on running."""

    def __init__(self, server: EmbeddedPostgres, database: str = DATABASE) -> None:
        self.server = server
        self.database = database

    @property
    def running(self) -> bool:
        return self.server.alive()

    async def start(self) -> None:
        await anyio.to_thread.run_sync(self.server.start)

    async def stop(self) -> None:
        await anyio.to_thread.run_sync(self.server.stop)
        assert not (self.server.pgdata / "postmaster.pid").exists(), "the server is still running"

    @property
    def dsn(self) -> str:
        return self.server.dsn(self.database)

    @contextlib.asynccontextmanager
    async def connect(self) -> AsyncIterator[asyncpg.Connection]:
        async with self.connect_to(self.database) as conn:
            yield conn

    @contextlib.asynccontextmanager
    async def connect_to(self, database: str) -> AsyncIterator[asyncpg.Connection]:
        conn = await asyncpg.connect(self.server.dsn(database), timeout=10)
        try:
            yield conn
        finally:
            await conn.close()

    async def fetchval(self, sql: str, *args: Any) -> Any:
        async with self.connect() as conn:
            return await conn.fetchval(sql, *args)

    async def fetch(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        async with self.connect() as conn:
            return await conn.fetch(sql, *args)

    async def fetchrow(self, sql: str, *args: Any) -> asyncpg.Record | None:
        async with self.connect() as conn:
            return await conn.fetchrow(sql, *args)


def embedded_server(data_dir: Path) -> EmbeddedPostgres:
    return EmbeddedPostgres(data_dir, options=FAST_OPTIONS)


async def build_migrated_cluster(data_dir: Path) -> None:
    """initdb, create the shopagent database and migrate it with the real `shopagent migrate`,
    then stop: a cluster that tests copy instead of doing all that each time."""
    pg = OwnedPostgres(embedded_server(data_dir))
    await pg.start()
    try:
        await ensure_database(pg.server.dsn("postgres"), DATABASE)
        async with shopagent("migrate", env={"SHOPAGENT_DATABASE_URL": pg.dsn}) as proc:
            code = await proc.wait_exit(timeout=60)
        assert code == 0, (proc.stdout, proc.logs)
    finally:
        await pg.stop()


@contextlib.asynccontextmanager
async def database_copy(pg: OwnedPostgres, name: str | None = None) -> AsyncIterator[OwnedPostgres]:
    """A new database on `pg`'s server copied from `pg`'s (`CREATE DATABASE ... TEMPLATE`, a
    fraction of a second), dropped at the end; the server is started again first if the test
    left it stopped."""
    copy = OwnedPostgres(pg.server, name or f"fault_{uuid.uuid4().hex[:12]}")
    async with pg.connect_to("postgres") as admin:
        await admin.execute(f'CREATE DATABASE "{copy.database}" TEMPLATE "{pg.database}"')
    try:
        yield copy
    finally:
        with anyio.CancelScope(shield=True):
            if not copy.running:
                await copy.start()
            async with pg.connect_to("postgres") as admin:
                await admin.execute(f'DROP DATABASE "{copy.database}" WITH (FORCE)')


def copy_cluster(template: Path, data_dir: Path) -> None:
    """Copy a stopped cluster's data directory, keeping owners and modes (PostgreSQL insists on
    0700, and as root the cluster belongs to the service user)."""
    assert not (template / "postgres" / "postmaster.pid").exists(), f"{template} is not stopped"
    data_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-a", str(template / "postgres"), str(data_dir / "postgres")], check=True)


# -- processes ---------------------------------------------------------------------------------


def service_env(pg: OwnedPostgres, **extra: str) -> dict[str, str]:
    """Environment of a shopagent process over the test's PostgreSQL: hash embedder, keys, and
    rate limits out of the way of the load loops. `extra` adds or overrides variables."""
    env = {
        "SHOPAGENT_DATABASE_URL": pg.dsn,
        "SHOPAGENT_EMBEDDING__MODEL": "hash",
        "SHOPAGENT_MCP_API_KEY": MCP_KEY,
        "SHOPAGENT_ADMIN_API_KEY": ADMIN_KEY,
        "SHOPAGENT_CHAT__PROVIDER": "offline",
    }
    for section in ("CHAT", "ADMIN", "MCP"):
        env |= {f"SHOPAGENT_{section}__{key}": value for key, value in HIGH_RATE.items()}
    return env | extra


@contextlib.asynccontextmanager
async def run_role(role: str, env: Mapping[str, str], *, wait_ready: bool = True) -> AsyncIterator[ShopagentProcess]:
    """`shopagent run --role ROLE`; by default it has logged that every actor is ready."""
    async with shopagent("run", "--role", role, env=env) as proc:
        if wait_ready:
            await proc.wait_for_log("all actors ready", timeout=60)
        yield proc


async def all_ready(*procs: ShopagentProcess, timeout: float = 60) -> None:
    """Wait for several processes starting together (their start-ups overlap)."""
    async with anyio.create_task_group() as tg:
        for proc in procs:
            tg.start_soon(partial(proc.wait_for_log, "all actors ready", timeout=timeout))


def holder_pattern(proc: ShopagentProcess) -> str:
    """A POSIX regex matching the `locked_by` of an indexer process's claims
    (`indexer/<host>/<pid>/<random>`)."""
    return f"^indexer/[^/]*/{proc.process.pid}/"


def http_url(proc: ShopagentProcess) -> str:
    return f"http://127.0.0.1:{proc.env['SHOPAGENT_HTTP__PORT']}"


def mcp_url(proc: ShopagentProcess) -> str:
    return f"http://127.0.0.1:{proc.env['SHOPAGENT_MCP__PORT']}/mcp"


def alive(proc: ShopagentProcess) -> bool:
    return proc.process.returncode is None


async def readyz(proc: ShopagentProcess, timeout: float = 5) -> tuple[int | None, dict]:
    """Status and body of the process's /readyz; (None, {"error": ...}) if it does not answer.

    Tests time recoveries with this, so it must cost next to nothing itself: a client that
    would verify certificates loads the CA bundle first, 0.15 s of CPU on a busy 2-core machine
    and up to 0.9 s when it is overloaded, for a plain-HTTP request that never uses it."""
    try:
        async with httpx.AsyncClient(timeout=timeout, verify=False) as client:  # noqa: S501 - plain HTTP
            response = await client.get(f"{proc.ops_url}/readyz")
        return response.status_code, response.json()
    except (httpx.TransportError, ValueError) as exc:
        return None, {"error": repr(exc)}


async def poll(check: Callable[[], Awaitable[Any]], timeout: float, interval: float = 0.05) -> Any:
    """Like `eventually`, but gives up quietly: the first truthy result of `check()`, else its
    last one once `timeout` has passed (so a test can report what it saw, then assert)."""
    deadline = time.monotonic() + timeout
    while True:
        result = await check()
        if result or time.monotonic() >= deadline:
            return result
        await anyio.sleep(interval)  # nothing announces these conditions


def dependency(body: dict, name: str) -> dict | None:
    return next((d for d in body.get("dependencies") or [] if d.get("name") == name), None)


def restarts(body: dict) -> dict[str, int]:
    return {a["name"]: a["restarts"] for a in body["actors"]}


# -- clients -----------------------------------------------------------------------------------


def chat_headers(user: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {issue_token(AUTH_SECRET, user)}"}


ADMIN_HEADERS = {"Authorization": f"Bearer {ADMIN_KEY}"}
MCP_HEADERS = {"Authorization": f"Bearer {MCP_KEY}", "Accept": "application/json, text/event-stream"}


def product_body(n: int, **changes: Any) -> dict:
    """A valid product (admin API / catalog file shape), different words for each `n`."""
    rng = random.Random(n)  # noqa: S311 - varied test data, not secrets
    adjectives = ["warm", "light", "rugged", "classic", "soft", "breathable", "waterproof", "slim", "roomy", "vintage"]
    things = [
        ("Boot", "Boots"), ("Sneaker", "Sneakers"), ("Parka", "Jackets"), ("Scarf", "Accessories"),
        ("Sweater", "Knitwear"), ("Loafer", "Shoes"), ("Beanie", "Accessories"), ("Chino", "Trousers"),
    ]  # fmt: skip
    thing, category = things[n % len(things)]
    adjective = adjectives[(n // len(things)) % len(adjectives)]
    sentences = [
        f"A {adjective} {thing.lower()} for every day.",
        f"Model {n} is cut from {rng.choice(['wool', 'leather', 'cotton', 'linen', 'suede'])}.",
        f"It pairs well with {rng.choice(['jeans', 'chinos', 'a parka', 'a blazer'])}.",
        f"Care: {rng.choice(['hand wash', 'wipe clean', 'machine wash at 30'])}.",
    ]
    base = msgspec.to_builtins(
        product_input(
            f"fault-{n}-{thing.lower()}",
            name=f"{adjective.title()} {thing} No. {n}",
            category=category,
            description=" ".join(sentences),
            brand=rng.choice(["Nordkap", "Alba", "Fjell", "Korsa"]),
        )
    )
    return base | changes


def write_catalog(path: Path, count: int) -> Path:
    path.write_text(json.dumps([product_body(n) for n in range(count)]))
    return path


async def import_catalog(env: Mapping[str, str], path: Path) -> str:
    async with shopagent("catalog", "import", str(path), env=env) as proc:
        code = await proc.wait_exit(timeout=120)
    assert code == 0, (proc.stdout, proc.logs)
    return proc.stdout


def result_text(result: dict) -> str:
    return "\n".join(c.get("text", "") for c in result.get("content", []))


def sse_events(text: str) -> list[tuple[str, Any]]:
    """(event, data) of each server-sent event in `text`; comments (pings) left out."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        kind, data = None, []
        for line in block.split("\n"):
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if kind is not None:
            events.append((kind, json.loads("\n".join(data)) if data else None))
    return events


# -- index integrity ---------------------------------------------------------------------------


async def index_report(pg: OwnedPostgres, model: str = HASH_MODEL) -> dict[str, int]:
    """Counts that must all be 0 (except `products` and `events`) once indexing has settled."""
    async with pg.connect() as conn:
        row = await conn.fetchrow(
            """
            SELECT
              (SELECT count(*) FROM product) AS products,
              (SELECT count(*) FROM outbox_event) AS events,
              (SELECT count(*) FROM outbox_event WHERE status = 'pending') AS pending,
              (SELECT count(*) FROM outbox_event WHERE status = 'dead') AS dead,
              (SELECT count(*) FROM product p WHERE NOT EXISTS
                 (SELECT 1 FROM product_chunk c WHERE c.product_id = p.id AND c.model = $1)) AS without_chunks,
              (SELECT count(*) FROM (SELECT 1 FROM product_chunk GROUP BY product_id, model, ordinal
                 HAVING count(*) > 1) d) AS duplicate_chunks,
              (SELECT count(*) FROM (SELECT product_id FROM product_chunk WHERE model = $1 GROUP BY product_id
                 HAVING min(ordinal) <> 0 OR max(ordinal) + 1 <> count(*)) g) AS gapped_chunk_sets,
              (SELECT count(*) FROM product p LEFT JOIN product_index i ON i.product_id = p.id
                 WHERE i.product_id IS NULL OR i.product_version <> p.version OR i.model <> $1) AS stale,
              (SELECT count(*) FROM product_chunk WHERE model <> $1) AS other_model_chunks
            """,
            model,
        )
    return dict(row)


async def outbox_done(pg: OwnedPostgres) -> bool:
    return await pg.fetchval("SELECT count(*) = 0 FROM outbox_event WHERE status <> 'done'")


# -- a chat model that takes as long as the test wants -------------------------------------------


@dataclass
class SlowOpenAI:
    """An OpenAI-compatible server: answers at once while `hold` is off; with it on, a request
    waits until the test ends (a turn that outlasts any grace period)."""

    base_url: str = ""
    hold: bool = False
    requests: list[dict] = field(default_factory=list)
    _released: anyio.Event = field(default_factory=anyio.Event)
    _changed: anyio.Event = field(default_factory=anyio.Event)

    async def handle(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        self._changed.set()
        self._changed = anyio.Event()
        if self.hold:
            await self._released.wait()
            return JSONResponse({"error": {"message": "released", "type": "server_error"}}, status_code=500)
        answer = reply(f"Answer number {len(self.requests)}.")
        return JSONResponse(answer.payload, status_code=answer.status)

    async def wait_requests(self, count: int, timeout: float) -> None:
        with anyio.fail_after(timeout):
            while len(self.requests) < count:
                await self._changed.wait()


@contextlib.asynccontextmanager
async def slow_openai() -> AsyncIterator[SlowOpenAI]:
    async with serving(SlowOpenAI(), name="slow-openai") as fake:
        try:
            yield fake
        finally:
            fake._released.set()  # the held requests end first, so the server stops at once


# -- measuring -----------------------------------------------------------------------------------


@dataclass
class Outcome:
    """One request of a load loop: when it started and ended (monotonic), and how it went."""

    kind: str
    started: float
    ended: float
    ok: bool
    status: int | None = None  # HTTP status; None for a transport failure
    code: str | None = None  # the error code, or the MCP result text when isError
    detail: str = ""

    @property
    def seconds(self) -> float:
        return self.ended - self.started


def now() -> float:
    return time.monotonic()


def new_user() -> str:
    return f"fault-{uuid.uuid4().hex[:10]}"
