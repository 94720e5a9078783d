"""The MCP path: shopagent's MCP server against the SDK's own `MCPServer` doing the same work,
and against calling the use case directly.

    python bench/mcp.py [--calls 300] [--concurrent-calls 50] [--clients 8] [--rounds 3] [--quick]

One process, one embedded PostgreSQL (in a temporary directory under TMPDIR, removed at the
end) holding the bundled sample catalog (200 products), indexed with the hash embedder so
that query embedding costs nothing and the figures are about the MCP path. Three contenders
run the same two use cases, the details of one product and a search (limit 5, no filter):

- direct: `CatalogSearch.details` / `CatalogSearch.search` called in the process;
- shopagent: the production MCP stack, as `shopagent run --role mcp` serves it (`run_mcp`:
  the embedded uvicorn, bearer key, the rate limit kept in PostgreSQL, request metrics, the
  tools' own metrics), over Streamable HTTP on loopback;
- reference: the SDK's high-level `MCPServer` with two tools calling the same use cases and
  returning the same JSON (`dict[str, Any]`), served as the SDK's
  `run_streamable_http_async` serves it (a plain `uvicorn.Server`) with the same transport
  options as ours (stateless, JSON responses, the same DNS-rebinding protection for
  loopback), and the same `outputSchema` as ours (the SDK derives none from `dict[str, Any]`
  worth the name, so ours is set on its tools: the client then validates the same schema);
- no limit: shopagent's stack without its rate limit (a fourth row, for what the limit costs:
  one PostgreSQL statement per request, and the pool's reset of the connection after it).

Every MCP call goes through the real client (`mcp.Client` over `streamable_http_client`,
which is a `ClientSession`: it validates each result against the tool's outputSchema), one
session per simulated client held for the whole run. Each round measures, for each tool,
sequential calls (p50/p95) and `--clients` clients calling at once (calls/s); the
contenders take turns within each measure and the order rotates from round to round, so a
change of load on the machine falls on all of them alike.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as `python bench/NAME.py`: the checkout goes first on the path instead of bench/, so that
# bench/mcp.py cannot shadow the mcp package; the shared helpers are bench.common.
sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import contextlib
import cProfile
import json
import os
import socket
import statistics
import time
from collections.abc import Awaitable, Callable, Iterator
from functools import partial
from typing import Any

import anyio
import httpx2
import msgspec
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from bench.common import Provenance, scratch
from shopagent.actors.mcp import run_mcp, transport_security
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from shopagent.application.catalog import import_products
from shopagent.application.search import CatalogSearch
from shopagent.bootstrap import INDEXER_ACTORS, SAMPLE_CATALOG, open_services
from shopagent.entrypoints.catalog_files import read_catalog_file
from shopagent.entrypoints.mcp.schemas import details_schemas, search_schemas
from shopagent.entrypoints.mcp.server import DETAILS_TOOL, SEARCH_TOOL
from shopagent.runtime.asgi import bind_tcp
from shopagent.settings import EmbeddingSettings, McpSettings, Secret, Secrets, Settings

KEY = "bench-mcp-key"
QUERIES = Path(__file__).resolve().parent.parent / "shopagent" / "sample_data" / "eval_queries.jsonl"
FAST_OPTIONS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}
Call = Callable[[int], Awaitable[Any]]  # the n-th call of a measure
UNLIMITED = "no limit"  # shopagent's stack without its rate limit


def build_reference(search: CatalogSearch, currency: str) -> MCPServer:
    """The SDK's way: decorated functions; arguments validated by the SDK (pydantic)."""
    # Its default log level (INFO) would also configure the root logger with a rich handler.
    reference = MCPServer("reference", log_level="WARNING")

    @reference.tool(name=DETAILS_TOOL)
    async def details(productId: int) -> dict[str, Any]:
        return msgspec.to_builtins(await search.details(productId))

    @reference.tool(name=SEARCH_TOOL)
    async def product_search(query: str, limit: int = 5, filters: dict[str, Any] | None = None) -> dict[str, Any]:
        f = filters or {}
        request = search.request(
            query, limit, colors=f.get("colors", []), sizes=f.get("sizes", []), in_stock=f.get("inStock", False)
        )
        return msgspec.to_builtins(await search.search(request))

    rules = search.rules
    outputs = {
        DETAILS_TOOL: details_schemas(currency)[1],
        SEARCH_TOOL: search_schemas(list(rules.colors), list(rules.sizes), currency)[1],
    }
    for tool in reference._tool_manager.list_tools():
        tool.fn_metadata.output_schema = outputs[tool.name]  # read live by the SDK (see FuncMetadata)
    return reference


class _Uvicorn(uvicorn.Server):
    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.up = anyio.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        self.up.set()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield  # Ctrl-C stops the whole benchmark (and cleans up), not this server alone


async def serve_reference(app: Any, sock: socket.socket, *, task_status=anyio.TASK_STATUS_IGNORED) -> None:
    """As `MCPServer.run_streamable_http_async` does: uvicorn with its defaults."""
    server = _Uvicorn(uvicorn.Config(app, log_level="warning"))
    done = anyio.Event()

    async def serve() -> None:
        try:
            with anyio.CancelScope(shield=True):  # stopped by should_exit, never cancelled
                await server.serve(sockets=[sock])
        finally:
            done.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(serve)
        try:
            with anyio.fail_after(30):
                await server.up.wait()
            task_status.started()
            await anyio.sleep_forever()
        finally:
            with anyio.CancelScope(shield=True):  # a graceful stop, as on Ctrl-C
                server.should_exit = True
                with anyio.move_on_after(5):
                    await done.wait()
            sock.close()


def percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


async def sequential(call: Call, n: int) -> tuple[list[float], float]:
    """Each call's wall time (ms), and the CPU time of this process per call (ms): client and
    server together, PostgreSQL apart; steadier than wall time on a loaded machine."""
    times = []
    cpu = time.process_time()
    for i in range(n):
        began = time.perf_counter()
        await call(i)
        times.append((time.perf_counter() - began) * 1000)
    return times, (time.process_time() - cpu) * 1000 / n


async def concurrent(calls: list[Call], n: int) -> float:
    """`len(calls)` clients, each making `n` calls one after the other; calls per second."""

    async def client(k: int, call: Call) -> None:
        for i in range(n):
            await call(k * n + i)

    began = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for k, call in enumerate(calls):
            tg.start_soon(client, k, call)
    return len(calls) * n / (time.perf_counter() - began)


def mcp_call(client: Client, tool: str, arguments: Callable[[int], dict[str, Any]]) -> Call:
    async def call(i: int) -> Any:
        result = await client.call_tool(tool, arguments(i))
        assert not result.is_error and result.structured_content, result.content
        return result

    return call


async def main(args: argparse.Namespace) -> None:
    provenance = Provenance()
    with scratch("shopagent-bench-mcp-") as data_dir:
        postgres = EmbeddedPostgres(data_dir, options=FAST_OPTIONS)
        await anyio.to_thread.run_sync(postgres.start)
        try:
            rows = await measure(args, postgres.dsn("postgres"))
        finally:
            await anyio.to_thread.run_sync(postgres.stop)
    print_table(rows, args)
    print(provenance.line())


async def measure(args: argparse.Namespace, dsn: str) -> dict[tuple[str, str], list[dict[str, float]]]:
    secrets = Secrets(database_url=Secret(dsn), mcp_api_key=Secret(KEY))
    ports = [bind_tcp("127.0.0.1", 0) for _ in range(3)]
    ours_port, unlimited_port = ports[0].getsockname()[1], ports[2].getsockname()[1]
    ports[0].close()  # run_mcp binds its own, as in production
    ports[2].close()
    # The production limit is kept (one PostgreSQL transaction per request), set high enough
    # never to refuse a benchmark call.
    mcp = McpSettings(port=ours_port, rate_per_minute=1e9, rate_burst=1_000_000_000)
    settings = Settings(secrets=secrets, embedding=EmbeddingSettings(model="hash"), mcp=mcp)
    async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=HashEmbedder()) as services:
        summary = await import_products(services.catalog, read_catalog_file(SAMPLE_CATALOG))
        assert not summary.rejected, summary.rejected
        while events := await services.outbox.claim(64, 60, 5, "bench"):
            await services.index_product.index(events)
        async with services.pool.acquire() as conn:
            ids = [r["id"] for r in await conn.fetch("SELECT id FROM product ORDER BY id")]
        queries = [json.loads(line)["query"] for line in QUERIES.read_text().splitlines() if line.strip()]
        search = services.search
        assert search is not None and services.mcp_server is not None
        reference = build_reference(search, settings.store.currency)
        reference_app = reference.streamable_http_app(
            stateless_http=True,
            json_response=True,
            host="127.0.0.1",
            transport_security=transport_security(McpSettings()),
            max_request_body_size=settings.mcp.max_body_bytes,
        )
        assert isinstance(transport_security(McpSettings()), TransportSecuritySettings)

        def details_args(i: int) -> dict[str, Any]:
            return {"productId": ids[i * 7 % len(ids)]}

        def search_args(i: int) -> dict[str, Any]:
            return {"query": queries[i % len(queries)], "limit": 5}

        async def direct_details(i: int) -> Any:
            return await search.details(details_args(i)["productId"])

        async def direct_search(i: int) -> Any:
            return await search.search(search.request(queries[i % len(queries)], 5))

        async with anyio.create_task_group() as tg:
            await tg.start(partial(run_mcp, settings, services.mcp_server, limit=_limit(services, settings),
                                   metrics=services.metrics))  # fmt: skip
            # The same, without the rate limit: what the limit costs.
            unlimited = msgspec.structs.replace(settings, mcp=msgspec.structs.replace(mcp, port=unlimited_port))
            await tg.start(partial(run_mcp, unlimited, services.mcp_server, metrics=services.metrics))
            await tg.start(serve_reference, reference_app, ports[1])
            urls = {"shopagent": f"http://127.0.0.1:{ours_port}/mcp",
                    "reference": f"http://127.0.0.1:{ports[1].getsockname()[1]}/mcp",
                    UNLIMITED: f"http://127.0.0.1:{unlimited_port}/mcp"}  # fmt: skip
            rows = await run_rounds(args, urls, {DETAILS_TOOL: (direct_details, details_args),
                                                 SEARCH_TOOL: (direct_search, search_args)})  # fmt: skip
            tg.cancel_scope.cancel()
    return rows


def _limit(services: Any, settings: Settings) -> Any:
    from shopagent.adapters.postgres.rate_limits import PostgresRateLimits
    from shopagent.application.limits import RateLimit

    return RateLimit(PostgresRateLimits(services.pool), settings.mcp.rate_per_minute, settings.mcp.rate_burst)


async def run_rounds(args, urls: dict[str, str], tools) -> dict[tuple[str, str], list[dict[str, float]]]:
    async with contextlib.AsyncExitStack() as exits:
        clients: dict[str, list[Client]] = {}
        for name, url in urls.items():
            clients[name] = []
            for _ in range(args.clients):
                http = await exits.enter_async_context(httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}))
                client = await exits.enter_async_context(Client(streamable_http_client(url, http_client=http)))
                clients[name].append(client)
            print(f"{name}: protocol {clients[name][0].protocol_version}", file=sys.stderr)
        rows: dict[tuple[str, str], list[dict[str, float]]] = {}
        contenders = ["direct", "shopagent", "reference", UNLIMITED]
        for tool, (direct, arguments) in tools.items():  # warm-up: every path and session once
            for name in urls:
                for client in clients[name]:
                    await mcp_call(client, tool, arguments)(0)
            await direct(0)
        for round_no in range(args.rounds):
            order = contenders[round_no % 4 :] + contenders[: round_no % 4]
            for tool, (direct, arguments) in tools.items():
                figures: dict[str, dict[str, float]] = {name: {} for name in contenders}
                for name in order:
                    call = direct if name == "direct" else mcp_call(clients[name][0], tool, arguments)
                    with profiling(args, name, tool):
                        times, cpu = await sequential(call, args.calls)
                    figures[name].update(p50=percentile(times, 50), p95=percentile(times, 95), cpu=cpu)
                for name in order:
                    calls = (
                        [direct] * args.clients
                        if name == "direct"
                        else [mcp_call(c, tool, arguments) for c in clients[name]]
                    )
                    figures[name]["rate"] = await concurrent(calls, args.concurrent_calls)
                for name in contenders:
                    rows.setdefault((tool, name), []).append(figures[name])
                    f = figures[name]
                    print(f"round {round_no + 1} {tool:26} {name:10} p50 {f['p50']:6.2f} ms  p95 {f['p95']:6.2f} ms  "
                          f"cpu {f['cpu']:5.2f} ms  {f['rate']:6.0f} calls/s", file=sys.stderr)  # fmt: skip
        return rows


@contextlib.contextmanager
def profiling(args: argparse.Namespace, name: str, tool: str) -> Iterator[None]:
    """With `--profile DIR`: cProfile of each contender's sequential calls, one file per tool."""
    if not args.profile:
        yield
        return
    profile = cProfile.Profile()
    profile.enable()
    try:
        yield
    finally:
        profile.disable()
        profile.dump_stats(Path(args.profile) / f"{name}-{tool}.prof")


def print_table(rows: dict[tuple[str, str], list[dict[str, float]]], args: argparse.Namespace) -> None:
    def median(tool: str, name: str, key: str) -> float:
        return statistics.median(f[key] for f in rows[(tool, name)])

    def spread(tool: str, name: str, key: str, fmt: str) -> str:
        values = [f[key] for f in rows[(tool, name)]]
        return format(min(values), fmt) if len(values) == 1 else f"{min(values):{fmt}}-{max(values):{fmt}}"

    print(f"{args.rounds} round(s): {args.calls} sequential calls per tool and contender, "
          f"{args.clients} clients x {args.concurrent_calls} calls at once; medians over the rounds, "
          f"ranges in brackets")  # fmt: skip
    header = ("tool", "contender", "seq p50 ms", "seq p95 ms", "CPU ms/call", f"{args.clients} clients calls/s",
              "p50 / reference", "calls/s / reference", "p50 - direct ms")  # fmt: skip
    lines = [header]
    for tool in (DETAILS_TOOL, SEARCH_TOOL):
        for name in ("direct", "shopagent", "reference", UNLIMITED):
            p50, rate = median(tool, name, "p50"), median(tool, name, "rate")
            ref_p50, ref_rate = median(tool, "reference", "p50"), median(tool, "reference", "rate")
            lines.append((
                tool, name,
                f"{p50:.2f} ({spread(tool, name, 'p50', '.2f')})",
                f"{median(tool, name, 'p95'):.2f}",
                f"{median(tool, name, 'cpu'):.2f}",
                f"{rate:.0f} ({spread(tool, name, 'rate', '.0f')})",
                "" if name == "direct" else f"{p50 / ref_p50:.2f}",
                "" if name == "direct" else f"{rate / ref_rate:.2f}",
                "" if name == "direct" else f"+{p50 - median(tool, 'direct', 'p50'):.2f}",
            ))  # fmt: skip
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    for line in lines:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=300, help="sequential calls per tool, contender and round")
    parser.add_argument("--concurrent-calls", type=int, default=50, help="calls per client when clients call at once")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one round: a smoke test of seconds")
    parser.add_argument("--profile", metavar="DIR", help="write a cProfile of each sequential measure to DIR")
    parsed = parser.parse_args()
    if parsed.quick:
        parsed.calls, parsed.concurrent_calls, parsed.rounds = 10, 3, 1
    os.environ.setdefault("SHOPAGENT_LOG_LEVEL", "WARNING")
    anyio.run(main, parsed, backend="asyncio")
