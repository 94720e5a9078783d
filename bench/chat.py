"""Chat endpoint throughput and latency against a plain endpoint on the same server, and
the offline assistant's turn time in real conversations.

    python bench/chat.py [--requests 400] [--concurrency 8] [--conversations 40] [--quick]

One process, an embedded PostgreSQL, a small catalog indexed with the hash embedder. The
chat endpoint runs the real stack (token check, rate limiter, agent loop, in-process MCP
search, conversation insert) with a zero-latency scripted model that makes one tool call
per turn. The baseline is a plain Starlette endpoint doing one database round trip, served
by the same embedded uvicorn. Both are driven by the same HTTP client over loopback.

The offline assistant (the rule-based concierge that `shopagent demo` runs without a model
key) is then timed on the sample catalog indexed with the real local model, one customer at
a time, through six-turn conversations (a request, a size, "cheaper ones?", details of the
second one, a question about it answered from its description, thanks): each turn's wall
time over HTTP, embedding the query (and a description's sentences) included. The
baseline is the scripted model's turn over the same catalog and server. The database lives in
a temporary folder that is removed at the end; `--quick` runs tiny sizes (a smoke run).
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as `python bench/NAME.py`: the checkout goes first on the path instead of bench/, so that
# bench/mcp.py cannot shadow the mcp package; the shared helpers are bench.common.
sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import secrets
import statistics
import sys
import time
from decimal import Decimal
from functools import partial
from itertools import islice
from pathlib import Path

import anyio
import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from bench.common import Provenance, free_port, scratch
from shopagent.actors.http import run_http
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.local.minilm import MiniLMEmbedder
from shopagent.adapters.memory.chat import ScriptedChatModel, calls, says
from shopagent.adapters.postgres.database import ensure_database
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from shopagent.application.catalog import import_products
from shopagent.bootstrap import SAMPLE_CATALOG, build_public_app
from shopagent.domain.catalog import ProductInput, VariationInput
from shopagent.domain.chat import FunctionResponse
from shopagent.domain.tokens import issue_token
from shopagent.entrypoints.catalog_files import read_catalog_file
from shopagent.runtime.asgi import bind_tcp, serve_asgi
from shopagent.settings import ChatSettings, EmbeddingSettings, HttpSettings, Secret, Secrets, Settings
from shopagent.wiring.policies import listening
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS

BENCH_SECRET = secrets.token_urlsafe(32)


def one_tool_call(messages):
    answered = any(isinstance(p, FunctionResponse) for p in messages[-1].parts)
    return says("Here you go.") if answered else calls(("product-semantic-search", {"query": "warm boots", "limit": 3}))


async def drive(client: httpx.AsyncClient, make_request, total: int, concurrency: int) -> tuple[float, list[float]]:
    latencies: list[float] = []
    remaining = iter(range(total))

    async def worker() -> None:
        for _ in remaining:
            began = time.perf_counter()
            response = await make_request(client)
            latencies.append((time.perf_counter() - began) * 1000)
            response.raise_for_status()

    began = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for _ in range(concurrency):
            tg.start_soon(worker)
    return time.perf_counter() - began, latencies


def q(values: list[float], n: int) -> float:
    return statistics.quantiles(values, n=100)[n - 1]


async def main(args: argparse.Namespace) -> None:
    provenance = Provenance()
    with scratch("shopagent-bench-chat-") as work:
        await measure(args, provenance, EmbeddedPostgres(work))


async def measure(args: argparse.Namespace, provenance: Provenance, server: EmbeddedPostgres) -> None:
    await anyio.to_thread.run_sync(server.start)
    try:
        await ensure_database(server.dsn("postgres"), "bench_chat")
        port = free_port()
        settings = Settings(
            secrets=Secrets(database_url=Secret(server.dsn("bench_chat")), auth_secret=Secret(BENCH_SECRET)),
            embedding=EmbeddingSettings(model="hash"),
            http=HttpSettings(port=port),
            chat=ChatSettings(rate_per_minute=1e9, rate_burst=1_000_000),
        )
        async with open_services(settings, INDEXER_ACTORS | {"http"}, embedder=HashEmbedder()) as services:
            for n in range(50):
                await services.catalog.create_product(
                    ProductInput(slug=f"boot-{n}", name=f"Warm Winter Boot {n}", category="Boots",
                                 price=Decimal("99.00"),
                                 description="A warm lined boot for snowy days.",
                                 variations=[VariationInput(color="black", size="42", quantity=5)])
                )  # fmt: skip
            while events := await services.outbox.claim(100, 60, 5, "bench"):
                await services.index_product.index(events)
            await services.search.refresh()  # its words read from the finished index, whatever the load

            async def ping(request: Request) -> JSONResponse:
                async with services.pool.acquire() as conn:
                    return JSONResponse({"value": await conn.fetchval("SELECT count(*) FROM product")})

            plain = Starlette(routes=[Route("/ping", ping)])
            plain_sock = bind_tcp("127.0.0.1", 0)
            plain_port = plain_sock.getsockname()[1]
            model = ScriptedChatModel(one_tool_call)
            headers = {"Authorization": f"Bearer {issue_token(BENCH_SECRET, 'bench-user')}"}
            async with anyio.create_task_group() as tg:
                await tg.start(
                    partial(run_http, listening(settings, "http"), partial(build_public_app, services, model))
                )
                await tg.start(partial(serve_asgi, plain, plain_sock, name="plain", grace_seconds=1))
                async with httpx.AsyncClient(timeout=30) as client:
                    chat_url = f"http://127.0.0.1:{port}/api/assistant-agent/chat"
                    ping_url = f"http://127.0.0.1:{plain_port}/ping"

                    def chat(c: httpx.AsyncClient):
                        return c.post(chat_url, json={"query": "warm boots please"}, headers=headers)

                    def plain_call(c: httpx.AsyncClient):
                        return c.get(ping_url)

                    await drive(client, chat, 50, args.concurrency)  # warm up both
                    await drive(client, plain_call, 50, args.concurrency)
                    chat_seconds, chat_latency = await drive(client, chat, args.requests, args.concurrency)
                    plain_seconds, plain_latency = await drive(client, plain_call, args.requests, args.concurrency)
                tg.cancel_scope.cancel()
        offline, scripted = await offline_turns(server, args.conversations, args.sample_products)
    finally:
        await anyio.to_thread.run_sync(server.stop)
    chat_rate, plain_rate = args.requests / chat_seconds, args.requests / plain_seconds
    rows = [
        ("chat endpoint (1 tool call, new conversation stored)",
         f"{chat_rate:.0f} turns/s, p50 {q(chat_latency, 50):.1f} ms, p95 {q(chat_latency, 95):.1f} ms"),
        ("plain endpoint (1 database round trip)",
         f"{plain_rate:.0f} req/s, p50 {q(plain_latency, 50):.1f} ms, p95 {q(plain_latency, 95):.1f} ms"),
        ("throughput ratio chat / plain", f"{chat_rate / plain_rate:.2f}"),
        ("per-turn overhead (p50 difference)", f"{q(chat_latency, 50) - q(plain_latency, 50):.1f} ms"),
        ("offline assistant turn (sample catalog, local model)",
         f"p50 {statistics.median(offline):.1f} ms, p95 {q(offline, 95):.1f} ms, max {max(offline):.1f} ms"),
        ("scripted-model turn, same catalog (baseline)",
         f"p50 {statistics.median(scripted):.1f} ms, p95 {q(scripted, 95):.1f} ms"),
        ("offline / scripted (p50)", f"{statistics.median(offline) / statistics.median(scripted):.2f}"),
    ]  # fmt: skip
    width = max(len(a) for a, _ in rows)
    for a, b in rows:
        print(f"{a.ljust(width)}  {b}")
    print(f"\n{args.requests} requests, {args.concurrency} concurrent, over loopback HTTP; "
          f"{len(offline)} offline-assistant turns in {args.conversations} conversations, one at a time")  # fmt: skip
    print(provenance.line())


CONVERSATIONS = [
    ["warm winter boots", "in size 42?", "cheaper ones?", "tell me more about the second one",
     "is it waterproof?", "thanks!"],
    ["schwarze Sneaker unter 100 Euro", "in Größe 42?", "günstiger?", "die zweite?", "ist die aus Leder?", "danke"],
    ["a linen shirt for summer", "in white?", "anything else?", "compare the first two",
     "which of them is lighter?", "thank you"],
    ["robe d'été légère", "en rouge ?", "moins cher ?", "le premier", "est-ce qu'elle se lave en machine ?", "merci"],
]  # fmt: skip


async def offline_turns(
    server: EmbeddedPostgres, conversations: int, products: int | None
) -> tuple[list[float], list[float]]:
    """Turn times of the offline assistant and of the scripted model, over the sample catalog
    (its first `products` only, when given)."""
    await ensure_database(server.dsn("postgres"), "bench_offline")
    port = free_port()
    settings = Settings(
        secrets=Secrets(database_url=Secret(server.dsn("bench_offline")), auth_secret=Secret(BENCH_SECRET)),
        http=HttpSettings(port=port),
        chat=ChatSettings(rate_per_minute=1e9, rate_burst=1_000_000),
    )
    headers = {"Authorization": f"Bearer {issue_token(BENCH_SECRET, 'bench-user')}"}
    url = f"http://127.0.0.1:{port}/api/assistant-agent/chat"
    async with open_services(settings, INDEXER_ACTORS | {"http"}, embedder=await MiniLMEmbedder.load()) as services:
        await import_products(services.catalog, islice(read_catalog_file(SAMPLE_CATALOG), products))
        while events := await services.outbox.claim(64, 60, 5, "bench"):
            await services.index_product.index(events)
        await services.search.refresh()  # its words read from the finished index, whatever the load
        timings: dict[str, list[float]] = {}
        for name, model in (("offline", None), ("scripted", ScriptedChatModel(one_tool_call))):
            times = timings.setdefault(name, [])
            async with anyio.create_task_group() as tg:
                await tg.start(
                    partial(run_http, listening(settings, "http"), partial(build_public_app, services, model))
                )
                async with httpx.AsyncClient(timeout=30) as client:
                    for n in range(conversations + 2):  # the first two warm up
                        conversation_id = None
                        for text in CONVERSATIONS[n % len(CONVERSATIONS)]:
                            body = {"query": text, **({"conversationId": conversation_id} if conversation_id else {})}
                            began = time.perf_counter()
                            response = await client.post(url, json=body, headers=headers)
                            elapsed = (time.perf_counter() - began) * 1000
                            response.raise_for_status()
                            conversation_id = response.json()["conversationId"]
                            if n >= 2:
                                times.append(elapsed)
                tg.cancel_scope.cancel()
    return timings["offline"], timings["scripted"]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--conversations", type=int, default=40, help="offline-assistant conversations timed")
    parser.add_argument("--sample-products", type=int, help="the offline assistant's catalog: the sample's first N")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run, not figures")
    arguments = parser.parse_args()
    if arguments.quick:
        arguments.requests, arguments.concurrency, arguments.conversations = 20, 2, 1
        arguments.sample_products = 30
    anyio.run(main, arguments, backend="asyncio")
