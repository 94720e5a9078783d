"""Search: the vector leg's plan choice (recall@10 and latency per filter selectivity, the
counting plan choice it replaced as the baseline, both forced plans), fused latency, and
the MCP-over-HTTP overhead.

    python bench/search.py [--products 50000] [--queries 200] [--quick]

Everything lives in one temporary folder (TMPDIR honoured) removed on exit, also on an
exception, Ctrl-C or SIGTERM. Builds, in an embedded PostgreSQL there, a catalog of
`--products` products whose texts are drawn from a shop vocabulary (kinds, materials,
qualities, uses, description sentences); every text piece is embedded by the local
MiniLM model, and each product's two chunk vectors (title; description) are the normalised
sums of its pieces' vectors. MiniLM mean-pools its token states, so this stays close to
embedding the joined text (the run prints the mean cosine between the two on a sample) at
a fraction of the cost: on 2 shared cores the model embeds only a few dozen texts per
second. Queries ("<quality> <kind> for <use>") are embedded by the model itself. For
filters of about 50 %, 10 %, 1 % and 0.1 % selectivity and none, it reports, each against
an exact sequential search with the same filters: recall@10 and latency of the vector leg
with the plan chosen from statistics (now: by estimated cost, or by `--threshold`) and with a
counting query first against a fixed 2,000 (before), with each plan forced (to check the cost
estimate's boundary), and the fused search's latency.
Query embedding is excluded (a table lookup here; the model adds ~3 ms).
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as `python bench/NAME.py`: the checkout goes first on the path instead of bench/, so that
# bench/mcp.py cannot shadow the mcp package; the shared helpers are bench.common.
sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import socket
import statistics
import sys
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

from bench.common import Provenance, scratch
from shopagent.actors.mcp import run_mcp
from shopagent.adapters.local.minilm import MiniLMEmbedder
from shopagent.adapters.postgres.catalog import PostgresCatalog
from shopagent.adapters.postgres.database import ensure_database, open_pool
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from shopagent.adapters.postgres.search import PostgresSearchIndex, SearchTuning
from shopagent.adapters.postgres.search_sql import FILTER_PARAMETERS, filter_args, filters_clause
from shopagent.adapters.postgres.vector_index import ensure_vector_index
from shopagent.application.ports import VectorIndexSpec
from shopagent.application.search import CatalogSearch
from shopagent.domain.ranking import VECTOR_ONLY
from shopagent.domain.synonyms import builtin_synonyms
from shopagent.domain.vocabulary import Synonyms
from shopagent.entrypoints.mcp.server import build_mcp_server
from shopagent.settings import McpSettings, Secret, Secrets, Settings
from shopagent.wiring.database import prepare_schema
from shopagent.wiring.policies import catalog_rules, mcp_serving

DIM = 384
MODEL = "bench-minilm-384"
COLORS = ["black", "white", "grey", "navy", "blue", "green", "beige", "brown"]  # the common ones
SIZES = ["XS", "S", "M", "L", "XL"]
KINDS = {
    "Shoes": ["hiking boot", "chelsea boot", "running shoe", "trail sneaker", "sandal", "loafer", "ankle boot",
              "rain boot", "slipper", "espadrille"],
    "Outerwear": ["parka", "rain jacket", "down coat", "trench coat", "fleece jacket", "softshell jacket",
                  "puffer vest", "wool coat", "windbreaker", "denim jacket"],
    "Knitwear": ["crew neck sweater", "cardigan", "turtleneck", "hoodie", "knit vest", "zip sweater"],
    "Shirts & tops": ["t-shirt", "oxford shirt", "linen shirt", "polo shirt", "tank top", "flannel shirt",
                      "blouse", "henley"],
    "Trousers": ["chinos", "jeans", "cargo trousers", "joggers", "shorts", "linen trousers", "leggings"],
    "Dresses": ["summer dress", "wrap dress", "maxi dress", "shirt dress", "knit dress"],
    "Accessories": ["scarf", "beanie", "leather belt", "backpack", "tote bag", "gloves", "sun hat", "wallet"],
    "Home": ["wool blanket", "linen bedding", "cotton towel", "ceramic mug", "cushion cover", "throw pillow"],
}  # fmt: skip
MATERIALS = ["merino wool", "organic cotton", "recycled polyester", "full-grain leather", "suede", "linen",
             "denim", "cashmere", "nylon", "fleece", "canvas", "bamboo", "silk", "waxed cotton", "rubber"]  # fmt: skip
QUALITIES = ["warm", "lightweight", "waterproof", "breathable", "classic", "slim fit", "oversized", "cosy",
             "durable", "elegant", "stretchy", "packable", "insulated", "quick-drying", "soft", "sturdy"]  # fmt: skip
USES = ["winter hikes", "city commutes", "the office", "beach days", "rainy weekends", "travel", "running",
        "evenings out", "lounging at home", "festivals", "camping", "snowy mornings", "summer heat", "yoga",
]  # fmt: skip
SENTENCES = [
    "Keeps you {q} on {u}.", "Made from {m} for {u}.", "A {q} piece that works for {u}.",
    "Cut from {m}, it feels {q} all day.", "Our best seller for {u}.", "Designed with {u} in mind.",
    "The {m} shell sheds light rain.", "Double stitched seams and a {q} finish.",
    "Pairs well with anything you wear for {u}.", "Easy to care for: machine wash cold.",
]  # fmt: skip


class TableEmbedder:
    """Embeds a query "q<n> ..." as the n-th prepared query vector, and a category name (which the
    ranking compares queries with) as its prepared vector; both embedded by the model beforehand."""

    model_id = MODEL
    dimension = DIM

    def __init__(self, queries: np.ndarray, categories: dict[str, np.ndarray]) -> None:
        self.queries = queries
        self.categories = categories

    async def embed_query(self, text: str) -> np.ndarray:
        return self.queries[int(text.split()[0][1:])]

    async def embed_documents(self, texts):
        unknown = [t for t in texts if t not in self.categories]
        if unknown:
            raise TypeError(f"the benchmark inserts chunk vectors directly (asked for {unknown[:3]})")
        return np.stack([self.categories[t] for t in texts])

    async def aclose(self) -> None:
        pass


class CountingSearchIndex(PostgresSearchIndex):
    """The plan choice before: count the matching products (up to the threshold) first, then
    exact distances over the ids counted or the HNSW plan. The baseline of this run."""

    async def _nearest(self, conn, vector, model, dimension, args, filters, limit, need):
        threshold = self._tuning.exact_below_products or 2_000  # the fixed count of before
        if filters.any:
            matching = await conn.fetch(
                f"SELECT p.id FROM product p WHERE {filters_clause(1, filters)} LIMIT ${FILTER_PARAMETERS + 1}",
                *args,
                threshold,
            )
            if len(matching) < threshold:
                rows = await conn.fetch(
                    "SELECT c.product_id, min(c.embedding <=> $1) AS distance FROM product_chunk c "
                    "WHERE c.model = $2 AND c.product_id = ANY($3::bigint[]) GROUP BY c.product_id "
                    "ORDER BY distance, c.product_id LIMIT $4",
                    Vector(vector), model, [r["id"] for r in matching], limit,
                )  # fmt: skip
                return [r["product_id"] for r in rows]
        return await self._approximate(conn, vector, model, dimension, args, filters, limit, need)


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)


class Pieces:
    """Every text piece products are made of, embedded once by the model."""

    def __init__(self, embedder: MiniLMEmbedder, rng: np.random.Generator, sentences: int, limit: int) -> None:
        kinds = [(category, kind) for category, group in KINDS.items() for kind in group]
        titles = [(category, f"{material} {kind}") for category, kind in kinds for material in MATERIALS]
        traits = [f"{quality} for {use}" for quality in QUALITIES for use in USES]
        titles = [titles[n] for n in sorted(rng.permutation(len(titles))[:limit])]
        self.categories = [category for category, _ in titles]
        self.titles = [title for _, title in titles]
        self.traits = [traits[n] for n in sorted(rng.permutation(len(traits))[:limit])]
        self.sentences = list(dict.fromkeys(
            SENTENCES[int(rng.integers(len(SENTENCES)))].format(
                q=QUALITIES[int(rng.integers(len(QUALITIES)))], u=USES[int(rng.integers(len(USES)))],
                m=MATERIALS[int(rng.integers(len(MATERIALS)))])
            for _ in range(sentences)
        ))  # fmt: skip
        texts = self.titles + self.traits + self.sentences
        began = time.perf_counter()
        vectors = np.concatenate([embedder.embed_sync(texts[n : n + 64]) for n in range(0, len(texts), 64)])
        self.seconds = time.perf_counter() - began
        self.count = len(texts)
        self.title_vectors = vectors[: len(self.titles)]
        self.trait_vectors = vectors[len(self.titles) : len(self.titles) + len(self.traits)]
        self.sentence_vectors = vectors[len(self.titles) + len(self.traits) :]


def compose(pieces: Pieces, rng: np.random.Generator, products: int):
    """Each product's texts and its two chunk vectors (title; description) from its pieces."""
    title = rng.integers(0, len(pieces.titles), products)
    trait = rng.integers(0, len(pieces.traits), products)
    said = rng.integers(0, len(pieces.sentences), (products, 2))
    names = [
        f"{pieces.traits[t].split(' for ')[0].title()} {pieces.titles[n].title()}"
        for n, t in zip(title, trait, strict=False)
    ]
    categories = [pieces.categories[n] for n in title]
    descriptions = [
        f"A {pieces.traits[t]}. {pieces.sentences[a]} {pieces.sentences[b]}"
        for t, (a, b) in zip(trait, said, strict=False)
    ]
    title_vectors = unit(pieces.title_vectors[title] + pieces.trait_vectors[trait])
    description_vectors = unit(
        pieces.title_vectors[title] + pieces.trait_vectors[trait]
        + pieces.sentence_vectors[said[:, 0]] + pieces.sentence_vectors[said[:, 1]]
    )  # fmt: skip
    return names, categories, descriptions, title_vectors, description_vectors


async def build_catalog(pool, products: int, rng: np.random.Generator, args, pieces: Pieces) -> tuple[float, list]:
    names, categories, descriptions, title_vectors, description_vectors = compose(pieces, rng, products)
    prices = np.round(rng.uniform(10, 400, size=products), 2)
    discounted = rng.random(products) < 0.25
    listed = [Decimal(f"{price:.2f}") for price in prices]
    paid = [Decimal(f"{prices[i] * 0.8:.2f}") if discounted[i] else listed[i] for i in range(products)]
    async with pool.acquire() as conn:
        await conn.copy_records_to_table(
            "product",
            columns=["slug", "name", "category", "description", "price", "discount_price", "currency", "price_low",
                     "price_high"],
            records=[
                (f"p-{i}", names[i], categories[i], descriptions[i], listed[i], paid[i] if discounted[i] else None,
                 "EUR", paid[i], paid[i])
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
        at = {product_id: n for n, product_id in enumerate(ids)}
        # As the catalog writes them: the key that tells a product's variations apart, and the price each sells at.
        keyed = [(*v, f"{v[1]}\x1f{v[2]}", paid[at[v[0]]]) for v in variations]
        await conn.copy_records_to_table(
            "product_variation",
            columns=["product_id", "color", "size", "quantity", "reserved", "variant_key", "paid_price"],
            records=keyed,
        )
        chunks = []
        for n, product_id in enumerate(ids):
            chunks.append((product_id, MODEL, 0, "title", names[n], b"0", Vector(title_vectors[n])))
            chunks.append((product_id, MODEL, 1, "description", descriptions[n], b"1", Vector(description_vectors[n])))
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
        await conn.execute("ANALYZE")
    began = time.perf_counter()
    await ensure_vector_index(pool, MODEL, DIM, VectorIndexSpec(m=args.m, ef_construction=args.ef_construction))
    return time.perf_counter() - began, list(zip(names, descriptions, strict=False))


def percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def query_texts(rng: np.random.Generator, count: int) -> list[str]:
    kinds = [kind for group in KINDS.values() for kind in group]
    return [
        f"{QUALITIES[int(rng.integers(len(QUALITIES)))]} {kinds[int(rng.integers(len(kinds)))]} "
        f"for {USES[int(rng.integers(len(USES)))]}"
        for _ in range(count)
    ]


async def main(args: argparse.Namespace, work: Path, provenance: Provenance) -> None:
    rng = np.random.default_rng(11)
    embedder_model = await MiniLMEmbedder.load()
    pieces = Pieces(embedder_model, rng, args.sentences, args.pieces)
    phrases = query_texts(rng, args.queries)
    queries = np.stack([embedder_model.embed_sync([t])[0] for t in phrases])
    server = EmbeddedPostgres(work / "data")
    await anyio.to_thread.run_sync(server.start)
    try:
        await ensure_database(server.dsn("postgres"), "bench_search")
        dsn = server.dsn("bench_search")
        settings = Settings(secrets=Secrets(database_url=Secret(dsn), mcp_api_key=Secret("bench-key")))
        await prepare_schema(dsn, settings)
        async with open_pool(dsn, min_size=2, max_size=4, connect_timeout=10, command_timeout=600) as pool:
            built, texts_of = await build_catalog(pool, args.products, rng, args, pieces)
            sample = [f"{name}. {description}" for name, description in texts_of[:50]]
            whole = embedder_model.embed_sync(sample)
            async with pool.acquire() as conn:
                stored = await conn.fetch(
                    "SELECT embedding FROM product_chunk WHERE ordinal = 1 ORDER BY product_id LIMIT 50"
                )
            composed = np.stack([r["embedding"].to_numpy() for r in stored])
            agreement = float(np.mean(np.sum(unit(whole) * composed, axis=1)))
            texts = [f"q{n} {phrase}" for n, phrase in enumerate(phrases)]
            embedder = TableEmbedder(queries, {c: embedder_model.embed_sync([c])[0] for c in KINDS})
            tuning = SearchTuning(ef_search=args.ef_search, exact_below_products=args.threshold)
            index = PostgresSearchIndex(pool, "english", tuning)
            rules = catalog_rules(settings)
            variants = {
                "now": CatalogSearch(embedder, index, PostgresCatalog(pool), rules),
                "before": CatalogSearch(
                    embedder, CountingSearchIndex(pool, "english", tuning), PostgresCatalog(pool), rules
                ),
                "exact": CatalogSearch(
                    embedder,
                    PostgresSearchIndex(
                        pool, "english", SearchTuning(ef_search=args.ef_search, exact_below_products=10**9)
                    ),
                    PostgresCatalog(pool),
                    rules,
                ),
                "hnsw": CatalogSearch(
                    embedder,
                    PostgresSearchIndex(
                        pool, "english", SearchTuning(ef_search=args.ef_search, exact_below_products=0)
                    ),
                    PostgresCatalog(pool),
                    rules,
                ),
            }
            rows = [
                ("catalog", f"{args.products} products, 2 chunks each; {pieces.count} text pieces embedded in "
                            f"{pieces.seconds:.0f} s; HNSW index built in {built:.1f} s"),
                ("composed vs whole-text embedding", f"mean cosine {agreement:.3f} over {len(sample)} products"),
            ]  # fmt: skip
            rows += await measure_selectivities(pool, variants, index, queries, texts, args)
            rows += await measure_vocabulary(index)
            rows += await measure_mcp(settings, variants["now"], texts, args)
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(server.stop)
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"{name.ljust(width)}  {value}")
    print(provenance.line())


FILTERS = [
    ("~50 %", {"max_price": Decimal("205.00")}),
    ("~10 %", {"colors": ["red"]}),
    ("~1 %", {"colors": ["red"], "sizes": ["M"], "in_stock": True}),
    ("~0.1 %", {"colors": ["purple"]}),
]


async def measure_vocabulary(index: PostgresSearchIndex) -> list[tuple[str, str]]:
    """The typo vocabulary's re-read (in the background, every half `vocabulary_refresh_seconds`):
    its words alone, then with the built-in synonym phrases looked up in the titles."""
    phrases = Synonyms(builtin_synonyms("en")).phrases()
    medians, named = {}, 0
    for asked in ([], phrases):
        runs = []
        for _ in range(3):
            began = time.perf_counter()
            named = len((await index.vocabulary(asked)).phrases)
            runs.append((time.perf_counter() - began) * 1000)
        medians[len(asked)] = statistics.median(runs)
    words_only, both = medians[0], medians[len(phrases)]
    return [(
        "typo vocabulary re-read, median of 3",
        f"{words_only:.0f} ms its words; {both:.0f} ms with {len(phrases)} synonym phrases looked up "
        f"({named} in the titles): {both / words_only:.2f}x",
    )]  # fmt: skip


async def measure_selectivities(pool, variants, index, queries, texts, args) -> list[tuple[str, str]]:
    rows = [(
        "filter (matching / estimated)",
        "recall@10 and vector-leg p50: now (statistics) | before (count first) | exact forced | HNSW forced"
        " || fused p50 now | before",
    )]  # fmt: skip
    total = args.products
    for label, filters in [*FILTERS, ("none", {})]:
        request = variants["now"].request("q0", 10, **filters)
        async with pool.acquire() as conn:
            matching = await conn.fetchval(
                f"SELECT count(*) FROM product p WHERE {filters_clause(1)}", *filter_args(request.filters)
            )
        estimated = await index.estimated_matching(request.filters)
        recalls = {name: [] for name in variants}
        vector_ms = {name: [] for name in variants}
        fused_ms = {"now": [], "before": []}
        for n in range(len(queries)):
            request = variants["now"].request(texts[n], 10, **filters)
            truth = set(await index.exact_nearest(queries[n], MODEL, request.filters, 10))
            order = list(variants.items())
            order = order[n % len(order) :] + order[: n % len(order)]  # rotate: no variant always runs first
            for name, search in order:
                began = time.perf_counter()
                result = await search.search(request, VECTOR_ONLY)
                vector_ms[name].append((time.perf_counter() - began) * 1000)
                found = {h.product_id for h in result.products}
                recalls[name].append(len(truth & found) / len(truth) if truth else 1.0)
            # The fused searches after every vector variant, taking turns at going first, so neither
            # always follows the forced HNSW walk (which evicts what the others have cached).
            for name in list(fused_ms)[n % 2 :] + list(fused_ms)[: n % 2]:
                began = time.perf_counter()
                await variants[name].search(request)
                fused_ms[name].append((time.perf_counter() - began) * 1000)
        cells = " | ".join(
            f"{statistics.mean(recalls[name]):.3f} {percentile(vector_ms[name], 50):.1f} ms" for name in variants
        )
        fused = " | ".join(f"{percentile(fused_ms[name], 50):.1f} ms" for name in fused_ms)
        rows.append((f"{label} ({matching / total:.2%}: {matching} / {estimated:.0f})", f"{cells} || {fused}"))
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
        await tg.start(partial(run_mcp, mcp_serving(settings), server))
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
    parser.add_argument("--sentences", type=int, default=600, help="description sentences to embed")
    parser.add_argument("--pieces", type=int, default=10_000, help="at most this many titles and traits to embed")
    parser.add_argument(
        "--threshold", type=int, default=None, help="a fixed exact_below_products (default: the plan by estimated cost)"
    )
    parser.add_argument("--m", type=int, default=16)
    parser.add_argument("--ef-construction", type=int, default=64)
    parser.add_argument("--ef-search", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a check that the script runs")
    arguments = parser.parse_args()
    if arguments.quick:
        arguments.products, arguments.queries, arguments.sentences, arguments.pieces = 1_000, 6, 30, 40
    provenance = Provenance()
    with scratch("shopagent-bench-search-") as folder:
        anyio.run(main, arguments, folder, provenance, backend="asyncio")
