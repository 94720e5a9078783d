"""Indexing throughput and freshness of the real pipeline (outbox -> poller -> mailbox -> workers).

    python bench/indexing.py [--products 10000] [--freshness-updates 200] [--no-local]

Starts an embedded PostgreSQL (default durability settings) in a temporary directory. For
the bundled sample catalog and a synthetic catalog it queues every product, starts the
indexer actors and measures the time from the first event to the last product indexed.
Next to it: the same model embedding the same chunk texts in a plain loop (the ceiling).
Then the hash embedder (events/s) and freshness: commit-to-stored latency of single edits.

    python bench/indexing.py --kills [--backlog 10000] [--kill-count 5] [--kills-model hash]

Crash recovery instead: a migrated database gets a backlog (`shopagent catalog import` of
--backlog synthetic products, one outbox event each); on a fresh copy of it two real
`shopagent run --role indexer` processes drain it, timed from their spawn to every event
finished; then on another copy the same with --kill-count kill -9s of one of them, evenly
spaced over 10-80 % of the first drain's time (each once that process answers /readyz 200),
each killed one started again at once, as an orchestrator would.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as `python bench/NAME.py`: the checkout goes first on the path instead of bench/, so that
# bench/mcp.py cannot shadow the mcp package; the shared helpers are bench.common.
sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import contextlib
import gzip
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import anyio
import httpx
import msgspec
import psutil

from bench.common import Provenance, free_port, grid, scratch
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.local.minilm import MiniLMEmbedder
from shopagent.adapters.postgres.database import connect, ensure_database
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from shopagent.adapters.postgres.vector_index import drop_vector_index, ensure_vector_index, vector_index_name
from shopagent.application.indexing import IndexProducts
from shopagent.application.ports import VectorIndexSpec
from shopagent.application.store_pages import IndexStorePages
from shopagent.bootstrap import SAMPLE_CATALOG, roster_for
from shopagent.domain.catalog import ProductInput, ProductPatch, VariationInput
from shopagent.domain.indexing import chunk_product
from shopagent.entrypoints.catalog_files import read_catalog_file
from shopagent.runtime.supervisor import Supervisor
from shopagent.settings import EmbeddingSettings, IndexerSettings, Secret, Secrets, Settings, load_settings
from shopagent.wiring.policies import embedding_model_id, indexing_policy
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS

WORDS = [
    "warm",
    "soft",
    "light",
    "durable",
    "waterproof",
    "breathable",
    "classic",
    "modern",
    "slim",
    "relaxed",
    "cotton",
    "wool",
    "leather",
    "suede",
    "linen",
    "denim",
    "canvas",
    "mesh",
    "rubber",
    "sole",
    "lining",
    "collar",
    "hood",
    "pocket",
    "zip",
    "button",
    "seam",
    "stitch",
    "winter",
    "summer",
    "spring",
    "autumn",
    "rain",
    "snow",
    "beach",
    "city",
    "office",
    "trail",
    "hiking",
    "running",
    "travel",
    "evening",
    "weekend",
    "comfortable",
    "elegant",
    "sturdy",
    "cosy",
    "airy",
    "stretchy",
    "recycled",
    "organic",
    "premium",
    "everyday",
    "versatile",
    "tailored",
    "cropped",
    "long",
]
KINDS = ["Boot", "Sneaker", "Sandal", "Coat", "Jacket", "Sweater", "Shirt", "Trousers", "Dress", "Scarf"]


def synthetic_catalog(count: int, seed: int = 7) -> list[ProductInput]:
    rng = random.Random(seed)  # noqa: S311 - synthetic data, not cryptography
    products = []
    for n in range(count):
        kind = rng.choice(KINDS)
        sentences = [
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16))).capitalize() + "."
            for _ in range(rng.randint(3, 6))
        ]
        products.append(
            ProductInput(
                slug=f"synthetic-{n}",
                name=f"{rng.choice(WORDS).title()} {rng.choice(WORDS).title()} {kind} {n}",
                category=kind + "s",
                price=Decimal(f"{rng.randint(10, 400)}.{rng.randint(0, 99):02d}"),
                description=" ".join(sentences),
                brand=rng.choice(["Nordkap", "Pacer", "Lumen", "Brisa", "Oakfield"]),
                material=f"{rng.choice(WORDS)} {rng.choice(WORDS)}",
                variations=[VariationInput(color="black", size="M", quantity=rng.randint(0, 9))],
            )
        )
    return products


def settings_for(dsn: str, model: str, bulk_load_events: int = IndexerSettings().bulk_load_events) -> Settings:
    return Settings(
        secrets=Secrets(database_url=Secret(dsn)),
        embedding=EmbeddingSettings(model=model),
        indexer=IndexerSettings(bulk_load_events=bulk_load_events),
    )


async def fresh_database(server: EmbeddedPostgres, name: str) -> str:
    await ensure_database(server.dsn("postgres"), name)
    return server.dsn(name)


async def load(services, products: list[ProductInput]) -> None:
    """Build the (empty) vector index, as a first start does, then create the products
    (events queue up; no indexer runs yet)."""
    await services.index_keeper.prepare()
    await services.index_keeper.settle()
    assert not services.index_keeper.pending
    pending = list(products)

    async def creator() -> None:
        while pending:
            await services.catalog.create_product(pending.pop())

    async with anyio.create_task_group() as tg:
        for _ in range(8):
            tg.start_soon(creator)


async def run_pipeline_until_indexed(services, total: int) -> tuple[float, float]:
    """Seconds from starting the indexer on a full backlog to every product indexed and the
    vector index built, and how many of those went to building the vector index at the end."""
    done = 0
    finished = anyio.Event()

    def counted(event, outcome) -> None:
        nonlocal done
        done += 1
        if done >= total:
            finished.set()

    services.index_product = IndexProducts(
        services.catalog.repository, services.outbox, services.chunk_store, services.indexing_unit,
        services.embedder, indexing_policy(services.settings), on_indexed=counted, keeper=services.index_keeper,
        leases=services.leases,
    )  # fmt: skip
    supervisor = Supervisor(roster_for(INDEXER_ACTORS, services))
    began = time.perf_counter()
    async with anyio.create_task_group() as tg:
        await tg.start(supervisor.run)
        await finished.wait()
        stored = time.perf_counter()
        while services.index_keeper.pending:  # noqa: ASYNC110 - a flag of the use case, polled by the timer
            await anyio.sleep(0.005)
        ready = time.perf_counter()
        tg.cancel_scope.cancel()
    return ready - began, ready - stored


async def raw_embedding_seconds(embedder, products, budget: int, batch: int) -> tuple[float, int]:
    from shopagent.domain.catalog import CatalogRules
    from shopagent.domain.validation import validate_product

    rules = CatalogRules.create("EUR", Settings().catalog.colors, Settings().catalog.sizes, {})
    texts = [c.content for p in products for c in chunk_product(validate_product(p, rules), budget)]
    began = time.perf_counter()
    for start in range(0, len(texts), batch):
        await embedder.embed_documents(texts[start : start + batch])
    return time.perf_counter() - began, len(texts)


async def freshness(services, updates: int) -> list[float]:
    """Commit-to-stored latency (ms) of single name edits while the pipeline idles."""
    stored_at: dict[int, float] = {}
    waiting: dict[int, anyio.Event] = {}

    def seen(event, outcome) -> None:
        stored_at[event.product_id] = time.perf_counter()
        if event.product_id in waiting:
            waiting[event.product_id].set()

    services.index_product = IndexProducts(
        services.catalog.repository, services.outbox, services.chunk_store, services.indexing_unit,
        services.embedder, indexing_policy(services.settings), on_indexed=seen, keeper=services.index_keeper,
        leases=services.leases,
    )  # fmt: skip
    products = await services.catalog.list_products(limit=updates)
    latencies = []
    supervisor = Supervisor(roster_for(INDEXER_ACTORS, services))
    async with anyio.create_task_group() as tg:
        await tg.start(supervisor.run)
        await anyio.sleep(1)  # let any backlog drain
        for n, product in enumerate(products):
            waiting[product.id] = stored = anyio.Event()
            await services.catalog.update_product(product.id, ProductPatch(name=f"Renamed product {n}"))
            committed = time.perf_counter()
            with anyio.fail_after(10):
                await stored.wait()
            latencies.append((stored_at[product.id] - committed) * 1000)
        tg.cancel_scope.cancel()
    return latencies


async def searchable_freshness(services, updates: int) -> tuple[list[float], list[float]]:
    """Commit-to-searchable latency (ms) of single edits, the same way for a product and for a
    store page: each edit writes a word nothing else has, then the search (the product search's
    public call, the store-information search) is asked for it every 5 ms until it is found."""
    from shopagent.domain.store_pages import StorePageInput

    products = await services.catalog.list_products(limit=updates)
    await services.store_pages.create(StorePageInput(slug="bench-page", title="Delivery", text="Delivery times."))
    # Real words no product has (the search never "corrects" a real word, while a made-up one
    # could be, until its vocabulary refreshes): one per edit.
    lexicon = gzip.decompress((REPO / "shopagent/adapters/local/words/en.txt.gz").read_bytes()).decode().split()
    rare = [w for w in lexicon if len(w) >= 11 and w.isalpha()][::97][: len(products)]
    product_ms: list[float] = []
    page_ms: list[float] = []

    async def until(found) -> float:
        began = time.perf_counter()
        with anyio.fail_after(10):
            while not await found():  # noqa: ASYNC110 - polling the public search is what is measured
                await anyio.sleep(0.005)
        return (time.perf_counter() - began) * 1000

    policy = indexing_policy(services.settings)
    pages = IndexStorePages(services.store_pages.repository, services.passages, services.indexing_unit,
                            services.embedder, policy.token_budget)  # fmt: skip
    services.index_product = IndexProducts(
        services.catalog.repository, services.outbox, services.chunk_store, services.indexing_unit, services.embedder,
        policy,
        keeper=services.index_keeper, leases=services.leases, pages=pages,
    )  # fmt: skip
    supervisor = Supervisor(roster_for(INDEXER_ACTORS, services))
    async with anyio.create_task_group() as tg:
        await tg.start(supervisor.run)
        await anyio.sleep(1)  # let any backlog drain
        for n, product in enumerate(products):
            word = rare[n]
            await services.catalog.update_product(product.id, ProductPatch(name=f"Renamed {word}"))

            async def product_found(word=word, product=product) -> bool:
                hits = (await services.search.search(services.search.request(word, 5))).products
                return any(h.product_id == product.id for h in hits)

            product_ms.append(await until(product_found))
            text = f"Delivery times. We ship {word} parcels within two days."
            await services.store_pages.put("bench-page", StorePageInput(slug="bench-page", title="Delivery", text=text))

            async def page_found(word=word) -> bool:
                return any(word in p.text for p in (await services.store_information.search(word)).passages)

            page_ms.append(await until(page_found))
        tg.cancel_scope.cancel()
    return product_ms, page_ms


def table(rows: list[tuple[str, str]]) -> None:
    width = max(len(a) for a, _ in rows)
    print(f"{'measure'.ljust(width)}  value\n{'-' * width}  -----")
    for a, b in rows:
        print(f"{a.ljust(width)}  {b}")


async def bulk_load_against_baseline(services, label: str, seconds: float, building: float) -> list[tuple[str, str]]:
    """The bulk load's time against its floor: storing the chunks (the same run up to the last
    product stored) plus pgvector building the same index alone, by a plain `CREATE INDEX` of
    the same definition over the same vectors. Then the same standalone build with the other
    element type (full-precision `vector` against `halfvec`)."""
    name = vector_index_name("hash-384")
    async with services.pool.acquire() as conn:
        definition = await conn.fetchval("SELECT pg_get_indexdef(to_regclass($1))", name)
        vectors = await conn.fetchval("SELECT count(*) FROM product_chunk")
        await conn.execute(f"SET maintenance_work_mem = '{VectorIndexSpec().build_memory_mb}MB'")
        if "halfvec" in definition:
            other = definition.replace("::halfvec(", "::vector(").replace("halfvec_cosine_ops", "vector_cosine_ops")
        else:
            other = definition.replace("::vector(", "::halfvec(").replace("vector_cosine_ops", "halfvec_cosine_ops")
        builds = {}
        for which, statement in (("same", definition), ("other", other), ("restored", definition)):
            await conn.execute(f'DROP INDEX IF EXISTS "{name}"')
            began = time.perf_counter()
            await conn.execute(statement, timeout=3600)
            builds[which] = time.perf_counter() - began
    stored = seconds - building
    floor = stored + builds["same"]
    kind, other_kind = ("halfvec", "vector") if "halfvec" in definition else ("vector", "halfvec")
    return [
        (
            f"{label}: bulk load / (store only + standalone CREATE INDEX)",
            f"{seconds / floor:.2f} ({seconds:.2f} s against {stored:.2f} s + {builds['same']:.2f} s)",
        ),
        (
            f"standalone CREATE INDEX over {vectors} vectors: {kind} (used) / {other_kind}",
            f"{builds['same']:.2f} s / {builds['other']:.2f} s ({builds['same'] / builds['other']:.2f})",
        ),
    ]


# (m, ef_construction) pairs whose build cost --index-builds measures; recall: bench/search.py.
BUILD_SPECS = [(16, 64), (16, 40), (16, 32), (12, 40), (8, 32)]


async def index_build_costs(server: EmbeddedPostgres, products: list[ProductInput]) -> list[tuple[str, str]]:
    """Store the catalog's chunks (hash embedder), then time building the vector index with
    each of BUILD_SPECS over them."""
    dsn = await fresh_database(server, "bench_hash_builds")
    rows = []
    async with open_services(settings_for(dsn, "hash"), INDEXER_ACTORS, embedder=HashEmbedder()) as services:
        await load(services, products)
        await run_pipeline_until_indexed(services, len(products))
        async with services.pool.acquire() as conn:
            vectors = await conn.fetchval("SELECT count(*) FROM product_chunk")
        for m, ef_construction in BUILD_SPECS:
            await drop_vector_index(services.pool, "hash-384")
            began = time.perf_counter()
            await ensure_vector_index(services.pool, "hash-384", 384, VectorIndexSpec(m, ef_construction))
            seconds = time.perf_counter() - began
            rows.append(
                (
                    f"build over {vectors} vectors, m = {m}, ef_construction = {ef_construction}",
                    f"{seconds:.2f} s ({vectors / seconds:.0f} vectors/s)",
                )
            )
    return rows


# -- --kills: a backlog drained by two real indexer processes, with and without kill -9 --------

REPO = Path(__file__).resolve().parent.parent
KILL_SPREAD = (0.10, 0.80)  # kills evenly spaced over this share of the drain without kills
_SPAWNED: list[subprocess.Popen[bytes]] = []  # every indexer started, for the last-resort cleanup


def kill_leftovers() -> None:
    """SIGKILL every indexer process group still alive (a crash or Ctrl-C of the bench)."""
    for proc in _SPAWNED:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


class IndexerProcess:
    """`python -m shopagent run --role indexer` with an ops port of its own, in its own session
    (so a Ctrl-C of the bench does not reach it; the bench ends it)."""

    def __init__(self, label: str, env: dict[str, str], log_dir: Path) -> None:
        self.label = label
        self.port = free_port()
        self.log = log_dir / f"{label}.log"
        self.spawned = time.perf_counter()
        self.ready_at: float | None = None  # perf_counter() of its first /readyz 200
        self.ready = anyio.Event()
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "shopagent", "run", "--role", "indexer"],
                env={**env, "SHOPAGENT_OPS__PORT": str(self.port)},
                cwd=REPO,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        _SPAWNED.append(self.proc)

    async def wait_ready(self, client: httpx.AsyncClient, timeout: float = 120) -> None:
        """Until /readyz answers 200 (now, not once before)."""
        with anyio.fail_after(timeout):
            while True:
                if self.proc.poll() is not None:
                    raise SystemExit(f"indexer {self.label} exited with {self.proc.returncode}; see {self.log}")
                with contextlib.suppress(httpx.HTTPError):
                    if (await client.get(f"http://127.0.0.1:{self.port}/readyz")).status_code == 200:
                        return
                await anyio.sleep(0.02)

    async def watch_ready(self, client: httpx.AsyncClient) -> None:
        with contextlib.suppress(SystemExit):  # killed before it was ready: no figure
            await self.wait_ready(client)
            self.ready_at = time.perf_counter()
            self.ready.set()

    async def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        await anyio.to_thread.run_sync(self.proc.wait)

    async def stop(self) -> None:
        """SIGTERM, as an orchestrator stops it; SIGKILL to the group if it lingers."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            with anyio.move_on_after(20):
                while self.proc.poll() is None:  # noqa: ASYNC110 - a child process, no event to wait on
                    await anyio.sleep(0.05)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        await anyio.to_thread.run_sync(self.proc.wait)


@dataclass
class DrainRun:
    kills_planned: list[float]
    ready: float = 0.0  # both first indexers answering /readyz 200, seconds after their spawn
    drained: float | None = None  # every event finished, seconds after the spawn; None: timed out
    index_built: float | None = None  # the vector index valid, seconds after the spawn
    kills: list[float] = field(default_factory=list)  # when each kill -9 happened
    restarts_ready: list[float] = field(default_factory=list)  # spawn to /readyz 200 of each restart
    redelivered: int = 0  # events claimed again after a lost lease or a failure
    dead: int = 0
    without_chunks: int = 0
    without_record: int = 0
    stale: int = 0
    left_pending: int = 0


def kill_schedule(count: int, base: float) -> list[float]:
    low, high = KILL_SPREAD
    if count == 1:
        return [base * (low + high) / 2]
    return [base * (low + (high - low) * n / (count - 1)) for n in range(count)]


def child_env(dsn: str, model: str, data_dir: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SHOPAGENT_") and k != "GEMINI_API_KEY"}
    return base | {
        # The shopagent beside this script (also when it is a copy of another checkout).
        "PYTHONPATH": os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "SHOPAGENT_DATABASE_URL": dsn,
        "SHOPAGENT_DATA_DIR": str(data_dir),
        "SHOPAGENT_EMBEDDING__MODEL": model,
        "SHOPAGENT_LOGGING__FORMAT": "json",
    }


def shopagent_cli(*args: str, env: dict[str, str]) -> str:
    done = subprocess.run(  # noqa: S603 - our own entry point
        [sys.executable, "-m", "shopagent", *args], env=env, cwd=REPO, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"shopagent {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout.strip()


async def prepare_backlog(server: EmbeddedPostgres, name: str, count: int, model: str, work: Path) -> None:
    """A migrated database holding `count` imported products and their `count` pending events;
    each run gets a fresh copy of it (CREATE DATABASE ... TEMPLATE)."""
    dsn = await fresh_database(server, name)
    env = child_env(dsn, model, work)
    shopagent_cli("migrate", env=env)
    catalog = work / "backlog.jsonl"
    catalog.write_bytes(b"\n".join(msgspec.json.encode(p) for p in synthetic_catalog(count)))
    began = time.perf_counter()
    said = shopagent_cli("catalog", "import", str(catalog), env=env)
    log(f"{said.splitlines()[-1]} in {time.perf_counter() - began:.1f} s")
    conn = await connect(dsn)
    try:
        pending = await conn.fetchval("SELECT count(*) FROM outbox_event WHERE status = 'pending'")
    finally:
        await conn.close()
    if pending != count:
        raise SystemExit(f"expected {count} pending events after the import, found {pending}")


def log(message: str) -> None:
    print(f"[kills] {message}", file=sys.stderr, flush=True)


async def drain_run(
    server: EmbeddedPostgres, template: str, name: str, model: str, kill_at: list[float], work: Path, timeout: float
) -> DrainRun:
    """Start two indexers on a fresh copy of the backlog; kill -9 indexer `a` at `kill_at`
    (seconds after the start, each time once its /readyz is 200) and start it again at once;
    time the drain; check what the index holds."""
    admin = await connect(server.dsn("postgres"))
    try:
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    finally:
        await admin.close()
    dsn = server.dsn(name)
    env = child_env(dsn, model, work)
    model_id = embedding_model_id(settings_for(dsn, model))
    run = DrainRun(kills_planned=kill_at)
    logs = work / name
    logs.mkdir()
    started: list[IndexerProcess] = []
    conn = await connect(dsn)
    try:
        async with httpx.AsyncClient(timeout=2) as client, anyio.create_task_group() as tg:

            def spawn(label: str) -> IndexerProcess:
                indexer = IndexerProcess(label, env, logs)
                started.append(indexer)
                tg.start_soon(indexer.watch_ready, client)
                return indexer

            began = time.perf_counter()  # the drain is timed from here: both indexers spawned at once
            first = [spawn("a-0"), spawn("b-0")]
            slots = {"a": first[0], "b": first[1]}

            async def both_ready() -> None:
                for indexer in first:
                    await indexer.ready.wait()
                run.ready = max(i.ready_at or 0 for i in first) - began

            async def killer() -> None:
                for n, at in enumerate(kill_at, start=1):
                    await anyio.sleep(max(0.0, began + at - time.perf_counter()))
                    await slots["a"].ready.wait()  # its first 200 recorded (no kill before that) ...
                    await slots["a"].wait_ready(client)  # ... and ready now
                    run.kills.append(time.perf_counter() - began)
                    await slots["a"].kill9()
                    slots["a"] = spawn(f"a-{n}")  # as an orchestrator would, at once
                    log(f"{name}: kill -9 #{n} of indexer a at {run.kills[-1]:.2f} s (planned {at:.2f} s)")

            tg.start_soon(both_ready)
            tg.start_soon(killer)
            last_report = 0.0
            with anyio.move_on_after(timeout):
                while True:
                    pending = await conn.fetchval("SELECT count(*) FROM outbox_event WHERE status = 'pending'")
                    now = time.perf_counter() - began
                    if pending == 0:
                        run.drained = now
                        break
                    if now - last_report >= 5:
                        last_report = now
                        log(f"{name}: {now:5.1f} s, {pending} event(s) pending")
                    await anyio.sleep(0.05)
            if run.drained is not None:
                log(f"{name}: every event finished at {run.drained:.2f} s")
                index = vector_index_name(model_id)
                with anyio.move_on_after(300):
                    while not await conn.fetchval(  # noqa: ASYNC110 - built by another process: no event
                        "SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)", index
                    ):
                        await anyio.sleep(0.1)
                    run.index_built = time.perf_counter() - began
            tg.cancel_scope.cancel()
        for indexer in started:
            await indexer.stop()
        run.restarts_ready = [i.ready_at - i.spawned for i in started[2:] if i.ready_at is not None]
        run.left_pending = await conn.fetchval("SELECT count(*) FROM outbox_event WHERE status = 'pending'")
        run.redelivered = await conn.fetchval(
            # Once `attempts` counted claims; since lost leases are counted apart, it counts failures.
            "SELECT count(*) FROM outbox_event WHERE lost_leases > 0 OR attempts > 0"
            if await conn.fetchval(
                "SELECT EXISTS (SELECT FROM information_schema.columns "
                "WHERE table_name = 'outbox_event' AND column_name = 'lost_leases')"
            )
            else "SELECT count(*) FROM outbox_event WHERE attempts > 1"
        )
        run.dead = await conn.fetchval("SELECT count(*) FROM outbox_event WHERE status = 'dead'")
        run.without_chunks = await conn.fetchval(
            "SELECT count(*) FROM product p WHERE NOT EXISTS "
            "(SELECT 1 FROM product_chunk c WHERE c.product_id = p.id AND c.model = $1)",
            model_id,
        )
        run.without_record = await conn.fetchval(
            "SELECT count(*) FROM product p WHERE NOT EXISTS "
            "(SELECT 1 FROM product_index i WHERE i.product_id = p.id AND i.model = $1)",
            model_id,
        )
        run.stale = await conn.fetchval(
            "SELECT count(*) FROM product_index i JOIN product p ON p.id = i.product_id "
            "WHERE i.model = $1 AND i.product_version <> p.version",
            model_id,
        )
    finally:
        with anyio.CancelScope(shield=True):
            for indexer in started:
                if indexer.proc.poll() is None:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(indexer.proc.pid, signal.SIGKILL)
                    await anyio.to_thread.run_sync(indexer.proc.wait)
            await conn.close()
    return run


def since_ready(run: DrainRun) -> float | None:
    return None if run.drained is None else run.drained - run.ready


def in_seconds(value: float | None) -> str:
    return "not within the timeout" if value is None else f"{value:.2f} s"


async def kill_section(args: argparse.Namespace, work: Path) -> None:
    """`measure_kills`, stopped cleanly (indexers and PostgreSQL ended) on SIGINT or SIGTERM."""
    stopped_by: list[signal.Signals] = []
    async with anyio.create_task_group() as tg:

        async def stop_on_signal() -> None:
            with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                async for signum in signals:
                    stopped_by.append(signum)
                    tg.cancel_scope.cancel()

        tg.start_soon(stop_on_signal)
        await measure_kills(args, work)
        tg.cancel_scope.cancel()
    if stopped_by:
        raise SystemExit(f"stopped by {stopped_by[0].name}; indexers and PostgreSQL ended")


async def measure_kills(args: argparse.Namespace, scratch_dir: Path) -> None:
    """Two indexer processes drain a fresh backlog of `args.backlog` events, once left alone and
    once with `args.kill_count` kill -9s of one of them spread over the drain."""
    load_before = os.getloadavg()[0]
    work = scratch_dir / "kills"
    work.mkdir()
    server = EmbeddedPostgres(work / "data")
    model = args.kills_model
    try:
        await anyio.to_thread.run_sync(server.start)
        log(f"importing a backlog of {args.backlog} products into a migrated database ({work})")
        await prepare_backlog(server, "bench_kills_backlog", args.backlog, model, work)
        calm = await drain_run(server, "bench_kills_backlog", "bench_kills_0", model, [], work, args.drain_timeout)
        if calm.drained is None:
            raise SystemExit(f"the backlog was not drained within {args.drain_timeout:.0f} s without kills")
        schedule = kill_schedule(args.kill_count, calm.drained)
        killed = await drain_run(
            server, "bench_kills_backlog", f"bench_kills_{args.kill_count}", model, schedule, work, args.drain_timeout
        )
    finally:
        kill_leftovers()
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(server.stop)
        shutil.rmtree(work, ignore_errors=True)
    left = [p for p in psutil.Process().children(recursive=True) if p.is_running()]
    k = args.kill_count
    restarts = statistics.median(killed.restarts_ready) if killed.restarts_ready else None
    rows = [
        ("measure", "no kills", f"{k} x kill -9"),
        (
            "kill -9 of indexer a, s after the start (planned)",
            "-",
            ", ".join(f"{t:.1f}" for t in killed.kills) + f" ({', '.join(f'{t:.1f}' for t in killed.kills_planned)})",
        ),
        ("restarted indexer: spawn to /readyz 200, median", "-", in_seconds(restarts)),
        ("both indexers /readyz 200, s after their spawn", in_seconds(calm.ready), in_seconds(killed.ready)),
        ("every event finished, s after the spawn", in_seconds(calm.drained), in_seconds(killed.drained)),
        ("the same, s after both were ready", in_seconds(since_ready(calm)), in_seconds(since_ready(killed))),
        ("vector index built, s after the spawn", in_seconds(calm.index_built), in_seconds(killed.index_built)),
        ("events still pending at the end", str(calm.left_pending), str(killed.left_pending)),
        ("events taken again (a lost lease or a failure)", str(calm.redelivered), str(killed.redelivered)),
        ("dead letters", str(calm.dead), str(killed.dead)),
        ("products without chunks", str(calm.without_chunks), str(killed.without_chunks)),
        ("products without an index record", str(calm.without_record), str(killed.without_record)),
        ("stale chunks (product_index.product_version <> version)", str(calm.stale), str(killed.stale)),
    ]
    if killed.drained is not None:
        ratio, after_ready = killed.drained / calm.drained, since_ready(killed) / since_ready(calm)
        rows.append(("drain with kills / without", "", f"{ratio:.2f}x ({after_ready:.2f}x from both ready)"))
    print(f"\nbacklog: {args.backlog} events (`shopagent catalog import`), two `shopagent run --role indexer`, "
          f"embedding model {model}\n")  # fmt: skip
    grid(rows)
    indexer = msgspec.structs.asdict(load_settings(REPO / "config.toml", {}).indexer)
    print(f"\n{os.cpu_count()} CPUs (load average over 1 min at the start {load_before:.1f}, at the end "
          f"{os.getloadavg()[0]:.1f}); indexer settings: {indexer}")  # fmt: skip
    print(f"indexer processes left behind: {len(left) or 'none'}")


async def main(args: argparse.Namespace, work: Path, provenance: Provenance) -> None:
    if args.kills:
        await kill_section(args, work)
        print(provenance.line())
        return
    rows: list[tuple[str, str]] = []
    sample = [item for _, item in read_catalog_file(SAMPLE_CATALOG) if isinstance(item, ProductInput)]
    synthetic = synthetic_catalog(args.products)
    server = EmbeddedPostgres(work / "data")
    await anyio.to_thread.run_sync(server.start)
    if args.index_builds:
        try:
            table(await index_build_costs(server, synthetic))
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(server.stop)
        print(provenance.line())
        return
    try:
        catalogs = [("sample", sample), (f"synthetic {args.products}", synthetic)][1 if args.quick else 0 :]
        if not args.no_local:
            local = await MiniLMEmbedder.load()
            for label, products in catalogs:
                dsn = await fresh_database(server, f"bench_local_{len(products)}")
                settings = settings_for(dsn, "local")
                async with open_services(settings, INDEXER_ACTORS, embedder=local) as services:
                    await load(services, products)
                    seconds, _ = await run_pipeline_until_indexed(services, len(products))
                raw_seconds, texts = await raw_embedding_seconds(
                    local, products, settings.embedding.chunk_token_budget, settings.embedding.batch_size
                )
                pipeline_rate, raw_rate = len(products) / seconds, len(products) / raw_seconds
                rows += [
                    (f"{label}: pipeline, local model", f"{pipeline_rate:.0f} products/s ({seconds:.1f} s)"),
                    (f"{label}: plain embedding loop, same texts", f"{raw_rate:.0f} products/s ({texts} texts)"),
                    (f"{label}: pipeline / plain loop", f"{pipeline_rate / raw_rate:.2f}"),
                ]
        for label, products in catalogs:
            dsn = await fresh_database(server, f"bench_hash_{len(products)}")
            async with open_services(settings_for(dsn, "hash"), INDEXER_ACTORS, embedder=HashEmbedder()) as services:
                await load(services, products)
                seconds, building = await run_pipeline_until_indexed(services, len(products))
                rows.append(
                    (
                        f"{label}: pipeline, hash embedder",
                        f"{len(products) / seconds:.0f} events/s ({seconds:.2f} s; {building:.2f} s of it building "
                        "the vector index at the end)",
                    )
                )
                if products is synthetic:
                    rows += await bulk_load_against_baseline(services, label, seconds, building)
                    latencies = await freshness(services, args.freshness_updates)
                    searchable = await searchable_freshness(services, min(args.freshness_updates, 50))
        # The same with the vector index kept live through the load (bulk loading off): every
        # chunk grows the HNSW graph as it is stored.
        dsn = await fresh_database(server, "bench_hash_live_index")
        settings = settings_for(dsn, "hash", bulk_load_events=0)
        async with open_services(settings, INDEXER_ACTORS, embedder=HashEmbedder()) as services:
            await load(services, synthetic)
            seconds, _ = await run_pipeline_until_indexed(services, len(synthetic))
            rows.append(
                (
                    f"synthetic {args.products}: same, vector index kept live (bulk_load_events = 0)",
                    f"{len(synthetic) / seconds:.0f} events/s ({seconds:.2f} s)",
                )
            )
        quantiles = statistics.quantiles(latencies, n=100)
        rows.append(
            (
                f"freshness, hash embedder ({len(latencies)} edits)",
                f"p50 {quantiles[49]:.0f} ms, p95 {quantiles[94]:.0f} ms",
            )
        )
        product_ms, page_ms = searchable
        rows += [
            (f"edit to searchable: product ({len(product_ms)} edits)", f"p50 {statistics.median(product_ms):.0f} ms"),
            (f"edit to searchable: store page ({len(page_ms)} edits)", f"p50 {statistics.median(page_ms):.0f} ms"),
            ("store page / product (p50)", f"{statistics.median(page_ms) / statistics.median(product_ms):.2f}"),
        ]
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(server.stop)
    table(rows)
    print(f"\n2 CPUs expected; workers={Settings().indexer.workers}, batch_size={Settings().embedding.batch_size}")
    print(provenance.line())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--products", type=int, default=10_000)
    parser.add_argument("--freshness-updates", type=int, default=200)
    parser.add_argument("--no-local", action="store_true", help="skip the local-model runs")
    parser.add_argument(
        "--index-builds", action="store_true", help="only time building the vector index with several HNSW settings"
    )
    parser.add_argument(
        "--kills",
        action="store_true",
        help="only time two indexer processes draining a backlog, left alone and with kill -9s of one of them",
    )
    parser.add_argument("--backlog", type=int, default=10_000, help="--kills: products (events) in the backlog")
    parser.add_argument("--kill-count", type=int, default=5, help="--kills: kill -9s in the second run")
    parser.add_argument(
        "--kills-model", choices=["hash", "local"], default="hash", help="--kills: the indexers' embedding model"
    )
    parser.add_argument(
        "--drain-timeout", type=float, default=900, help="--kills: give up on a drain after this many seconds"
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes, no local model: a check that it runs")
    arguments = parser.parse_args()
    if arguments.quick:
        arguments.products, arguments.freshness_updates, arguments.no_local = 200, 5, True
        arguments.backlog, arguments.kill_count = 300, 1
    provenance = Provenance()
    with scratch("shopagent-bench-indexing-") as folder:
        try:
            anyio.run(main, arguments, folder, provenance, backend="asyncio")
        finally:
            kill_leftovers()
