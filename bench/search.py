"""Search: vector-leg recall against exact search, vector-only and fused latency, and the
MCP-over-HTTP overhead.

    python bench/search.py [--products 50000] [--queries 200]

Builds, in a temporary embedded PostgreSQL, a synthetic catalog of `--products` products
with 3 chunks each (384-d vectors around 300 topic centres, like real text embeddings that
cluster by subject), its HNSW index, and each product's full-text document (its name and
description use words of its topic, as real products' texts do). For filters of about
50 %, 10 %, 1 % and 0.1 % selectivity it runs the vector leg alone and an exact sequential
search with the same filters and reports recall@10, then the latency of the vector leg
alone and of the fused search (both legs, evidence, ranking) and their ratio. Queries are
"<topic word> <topic word>" with the query vector near that topic. Then it calls the
`product-semantic-search` MCP tool over HTTP on loopback and compares with calling the use
case directly. Query embedding is a table lookup here; the local model adds ~3 ms.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
import time
from decimal import Decimal
from functools import partial
from pathlib import Path

import anyio
import httpx2
import msgspec
import numpy as np
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from pgvector import Vector

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shopagent.actors.mcp import run_mcp
from shopagent.adapters.postgres.catalog import PostgresCatalog
from shopagent.adapters.postgres.database import ensure_database, open_pool
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from shopagent.adapters.postgres.search import PostgresSearchIndex, SearchTuning
from shopagent.adapters.postgres.vector_index import ensure_vector_index
from shopagent.application.ports import VectorIndexSpec
from shopagent.application.search import CatalogSearch
from shopagent.bootstrap import catalog_rules, prepare_schema
from shopagent.domain.ranking import VECTOR_ONLY
from shopagent.entrypoints.mcp.server import build_mcp_server
from shopagent.settings import McpSettings, Secret, Secrets, Settings

DIM = 384
MODEL = "bench-384"
TOPICS = 300
COLORS = ["black", "white", "grey", "navy", "blue", "green", "beige", "brown"]  # the common ones
SIZES = ["XS", "S", "M", "L", "XL"]


class TableEmbedder:
    """Embeds a query "q<n>" as the n-th prepared query vector (what a model would do, for free)."""

    model_id = MODEL
    dimension = DIM

    def __init__(self, queries: np.ndarray) -> None:
        self.queries = queries

    async def embed_query(self, text: str) -> np.ndarray:
        return self.queries[int(text.split()[0][1:])]

    async def embed_documents(self, texts):
        raise TypeError("the benchmark inserts chunk vectors directly")

    async def aclose(self) -> None:
        pass


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def topic_words(rng: np.random.Generator) -> list[list[str]]:
    """Four made-up words per topic (no two topics share one)."""
    letters = np.array(list("abcdefghijklmnoprstuvwy"))
    words: list[str] = []
    while len(words) < TOPICS * 4:
        word = "".join(rng.choice(letters, size=int(rng.integers(5, 9))))
        if word not in words:
            words.append(word)
    return [words[n * 4 : n * 4 + 4] for n in range(TOPICS)]


async def build_catalog(pool, products: int, rng: np.random.Generator, args, words) -> np.ndarray:
    centres = unit(rng.normal(size=(TOPICS, DIM)))
    topic = rng.integers(0, TOPICS, size=products)
    prices = np.round(rng.uniform(10, 400, size=products), 2)
    discounted = rng.random(products) < 0.25
    async with pool.acquire() as conn:
        await conn.copy_records_to_table(
            "product",
            columns=["slug", "name", "category", "description", "price", "discount_price", "currency"],
            records=[
                (f"p-{i}", f"Product {i} {words[topic[i]][i % 2]}", "Things",
                 f"A {words[topic[i]][2]} thing for {words[topic[i]][3]} and {words[topic[(i * 7) % products]][0]}.",
                 Decimal(f"{prices[i]:.2f}"), Decimal(f"{prices[i] * 0.8:.2f}") if discounted[i] else None, "EUR")
                for i in range(products)
            ],
        )  # fmt: skip
        ids = [r["id"] for r in await conn.fetch("SELECT id FROM product ORDER BY id")]
        variations = []
        for n, product_id in enumerate(ids):
            roll = rng.random()
            # ~10 % of products come in red, ~1 % in red M (in stock), ~0.1 % in purple.
            if roll < 0.001:
                variations.append((product_id, "purple", "M", 3, 0))
            elif roll < 0.011:
                variations.append((product_id, "red", "M", 3, 0))
            elif roll < 0.10:
                variations.append((product_id, "red", SIZES[n % 5] if SIZES[n % 5] != "M" else "L", 3, 0))
            for size in rng.choice(SIZES, size=2, replace=False):
                variations.append((product_id, COLORS[n % len(COLORS)], str(size), int(rng.integers(0, 6)), 0))
        await conn.copy_records_to_table(
            "product_variation", columns=["product_id", "color", "size", "quantity", "reserved"], records=variations
        )
        chunks = []
        for n, product_id in enumerate(ids):
            vectors = unit(centres[topic[n]] + rng.normal(scale=0.7 / np.sqrt(DIM), size=(3, DIM)))
            for ordinal in range(3):
                chunks.append((product_id, MODEL, ordinal, "bench", f"chunk {ordinal}", b"%d" % ordinal,
                               Vector(vectors[ordinal])))  # fmt: skip
        await conn.copy_records_to_table(
            "product_chunk",
            columns=["product_id", "model", "ordinal", "kind", "content", "content_hash", "embedding"],
            records=chunks,
        )
        await conn.execute(
            """
            INSERT INTO product_index (product_id, model, product_version, chunk_set_hash, text_config, document, words)
            SELECT id, $1, version, '\\x00', 'english',
                   setweight(to_tsvector('english', name || ' ' || category), 'A')
                   || setweight(to_tsvector('english', description), 'D'),
                   setweight(to_tsvector('simple', name || ' ' || category), 'A') || to_tsvector('simple', description)
            FROM product
            """,
            MODEL,
        )
        await conn.execute("SET maintenance_work_mem = '1GB'")
        await conn.execute("ANALYZE")
    began = time.perf_counter()
    await ensure_vector_index(pool, MODEL, DIM, VectorIndexSpec(m=args.m, ef_construction=args.ef_construction))
    print(f"built the HNSW index over {len(chunks)} chunks in {time.perf_counter() - began:.0f} s", file=sys.stderr)
    return topic


def percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1]


async def main(args: argparse.Namespace) -> None:
    rng = np.random.default_rng(11)
    server = EmbeddedPostgres(Path(tempfile.mkdtemp(prefix="shopagent-bench-")))
    await anyio.to_thread.run_sync(server.start)
    try:
        await ensure_database(server.dsn("postgres"), "bench_search")
        dsn = server.dsn("bench_search")
        settings = Settings(secrets=Secrets(database_url=Secret(dsn), mcp_api_key=Secret("bench-key")))
        await prepare_schema(dsn, settings)
        async with open_pool(dsn, min_size=2, max_size=4, connect_timeout=10, command_timeout=600) as pool:
            words = topic_words(rng)
            topic = await build_catalog(pool, args.products, rng, args, words)
            async with pool.acquire() as conn:
                centres = await conn.fetch(
                    f"SELECT product_id, embedding FROM product_chunk WHERE ordinal = 0 ORDER BY product_id "
                    f"LIMIT {TOPICS * 3}"
                )
                first_id = await conn.fetchval("SELECT min(id) FROM product")
            seeds = np.stack([r["embedding"].to_numpy() for r in centres])
            picks = rng.integers(0, len(seeds), args.queries)
            queries = unit(seeds[picks] + rng.normal(scale=0.3 / np.sqrt(DIM), size=(args.queries, DIM)))
            texts = []
            for n, pick in enumerate(picks):
                own = words[topic[centres[pick]["product_id"] - first_id]]
                texts.append(f"q{n} {own[n % 2]} {own[2 + n % 2]}")
            embedder = TableEmbedder(queries)
            index = PostgresSearchIndex(pool, "english", SearchTuning(ef_search=args.ef_search))
            search = CatalogSearch(embedder, index, PostgresCatalog(pool), catalog_rules(settings))
            began = time.perf_counter()
            vocabulary = await search.vocabulary()
            loaded = time.perf_counter() - began
            rows = [("typo vocabulary", f"{len(vocabulary)} words read in {loaded * 1000:.0f} ms (once a minute)")]
            rows += await measure_selectivities(pool, search, index, queries, texts, args)
            rows += await measure_mcp(settings, search, texts, args)
    finally:
        await anyio.to_thread.run_sync(server.stop)
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"{name.ljust(width)}  {value}")


FILTERS = [
    ("~50 %", {"max_price": Decimal("205.00")}),
    ("~10 %", {"colors": ["red"]}),
    ("~1 %", {"colors": ["red"], "sizes": ["M"], "in_stock": True}),
    ("~0.1 %", {"colors": ["purple"]}),
]


async def measure_selectivities(pool, search: CatalogSearch, index, queries, texts, args) -> list[tuple[str, str]]:
    rows = [
        ("filter", "selectivity | recall@10 (vector leg) | vector p50 / p95 | fused p50 / p95 | fused/vector | plan")
    ]
    total = args.products
    for label, filters in [*FILTERS, ("none", {})]:
        request = search.request("q0", 10, **filters)
        async with pool.acquire() as conn:
            matching = await conn.fetchval(
                "SELECT count(*) FROM product p WHERE coalesce(p.discount_price, p.price) <= coalesce($1, 1e9) "
                "AND (cardinality($2::text[]) = 0 OR EXISTS (SELECT 1 FROM product_variation v WHERE "
                "v.product_id = p.id AND v.color = ANY($2) AND (cardinality($3::text[]) = 0 OR v.size = ANY($3)) "
                "AND (NOT $4 OR v.quantity > v.reserved)))",
                request.filters.max_price, list(request.filters.colors), list(request.filters.sizes),
                request.filters.in_stock,
            )  # fmt: skip
        recalls, vector_ms, fused_ms = [], [], []
        for n in range(len(queries)):
            request = search.request(texts[n], 10, **filters)
            # Alternate which runs first, so neither always finds the other's pages cached.
            for weights, times in ((VECTOR_ONLY, vector_ms), (None, fused_ms))[:: 1 if n % 2 else -1]:
                began = time.perf_counter()
                result = await search.search(request, weights)
                times.append((time.perf_counter() - began) * 1000)
                if weights is VECTOR_ONLY:
                    hits = result.products
            truth = set(await index.exact_nearest(queries[n], MODEL, request.filters, 10))
            recalls.append(len(truth & {h.product_id for h in hits}) / len(truth) if truth else 1.0)
        exact = filters and matching < SearchTuning().exact_below_products
        plan = "exact (few matches)" if exact else "HNSW, iterative scan"
        v50, f50 = percentile(vector_ms, 50), percentile(fused_ms, 50)
        rows.append((
            f"{label} ({matching} of {total} products)",
            f"{matching / total:.2%} | {statistics.mean(recalls):.3f} | {v50:.1f} / {percentile(vector_ms, 95):.1f} ms"
            f" | {f50:.1f} / {percentile(fused_ms, 95):.1f} ms | {f50 / v50:.2f}x | {plan}",
        ))  # fmt: skip
    return rows


async def measure_mcp(settings: Settings, search: CatalogSearch, texts, args) -> list[tuple[str, str]]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = msgspec.structs.replace(settings, mcp=McpSettings(port=port))
    server = build_mcp_server(search, "Bench", "EUR")
    direct, over_http = [], []
    for n in range(args.queries):
        began = time.perf_counter()
        await search.search(search.request(texts[n], 5))
        direct.append((time.perf_counter() - began) * 1000)
    async with anyio.create_task_group() as tg:
        await tg.start(partial(run_mcp, settings, server))
        headers = {"Authorization": "Bearer bench-key"}
        async with (
            httpx2.AsyncClient(headers=headers) as http,
            Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)) as client,
        ):
            for n in range(args.queries):
                began = time.perf_counter()
                result = await client.call_tool("product-semantic-search", {"query": texts[n], "limit": 5})
                over_http.append((time.perf_counter() - began) * 1000)
                assert not result.is_error, result.content
        tg.cancel_scope.cancel()
    d50, h50 = percentile(direct, 50), percentile(over_http, 50)
    return [
        ("use case (fused), direct call (limit 5, no filter)", f"p50 {d50:.1f} ms"),
        ("MCP tool over HTTP (same queries)", f"p50 {h50:.1f} ms, p95 {percentile(over_http, 95):.1f} ms"),
        ("MCP overhead", f"{h50 / d50:.2f}x, +{h50 - d50:.1f} ms"),
    ]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--products", type=int, default=50_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--m", type=int, default=16)
    parser.add_argument("--ef-construction", type=int, default=64)
    parser.add_argument("--ef-search", type=int, default=100)
    anyio.run(main, parser.parse_args(), backend="asyncio")
