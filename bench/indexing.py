"""Indexing throughput and freshness of the real pipeline (outbox -> poller -> mailbox -> workers).

    python bench/indexing.py [--products 10000] [--freshness-updates 200] [--no-local]

Starts an embedded PostgreSQL (default durability settings) in a temporary directory. For
the bundled sample catalog and a synthetic catalog it queues every product, starts the
indexer actors and measures the time from the first event to the last product indexed.
Next to it: the same model embedding the same chunk texts in a plain loop (the ceiling).
Then the hash embedder (events/s) and freshness: commit-to-stored latency of single edits.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.local.minilm import MiniLMEmbedder
from shopagent.adapters.postgres.database import ensure_database
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from shopagent.adapters.postgres.index_store import drop_vector_index, ensure_vector_index
from shopagent.application.indexing import IndexProducts
from shopagent.application.ports import VectorIndexSpec
from shopagent.bootstrap import (
    INDEXER_ACTORS,
    SAMPLE_CATALOG,
    indexing_policy,
    open_services,
    roster_for,
)
from shopagent.domain.catalog import ProductInput, ProductPatch, VariationInput
from shopagent.domain.indexing import chunk_product
from shopagent.entrypoints.catalog_files import read_catalog_file
from shopagent.runtime.supervisor import Supervisor
from shopagent.settings import EmbeddingSettings, IndexerSettings, Secret, Secrets, Settings

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
        services.catalog.repository, services.index_store, services.embedder,
        indexing_policy(services.settings), on_indexed=counted, keeper=services.index_keeper,
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
    from shopagent.domain.catalog import CatalogRules, validate_product

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
        services.catalog.repository, services.index_store, services.embedder,
        indexing_policy(services.settings), on_indexed=seen, keeper=services.index_keeper,
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


def table(rows: list[tuple[str, str]]) -> None:
    width = max(len(a) for a, _ in rows)
    print(f"{'measure'.ljust(width)}  value\n{'-' * width}  -----")
    for a, b in rows:
        print(f"{a.ljust(width)}  {b}")


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


async def main(args: argparse.Namespace) -> None:
    rows: list[tuple[str, str]] = []
    sample = [item for _, item in read_catalog_file(SAMPLE_CATALOG) if isinstance(item, ProductInput)]
    synthetic = synthetic_catalog(args.products)
    server = EmbeddedPostgres(Path(tempfile.mkdtemp(prefix="shopagent-bench-")))
    await anyio.to_thread.run_sync(server.start)
    if args.index_builds:
        try:
            table(await index_build_costs(server, synthetic))
        finally:
            await anyio.to_thread.run_sync(server.stop)
        return
    try:
        catalogs = [("sample", sample), (f"synthetic {args.products}", synthetic)]
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
                    latencies = await freshness(services, args.freshness_updates)
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
    finally:
        await anyio.to_thread.run_sync(server.stop)
    table(rows)
    print(f"\n2 CPUs expected; workers={Settings().indexer.workers}, batch_size={Settings().embedding.batch_size}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--products", type=int, default=10_000)
    parser.add_argument("--freshness-updates", type=int, default=200)
    parser.add_argument("--no-local", action="store_true", help="skip the local-model runs")
    parser.add_argument(
        "--index-builds", action="store_true", help="only time building the vector index with several HNSW settings"
    )
    anyio.run(main, parser.parse_args(), backend="asyncio")
