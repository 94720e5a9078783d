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
  a PostgreSQL statement for one request in ten, the other nine taking the tokens held);
- client floor: a server that answers every `tools/call` with a result recorded from
  shopagent beforehand (same size and shape, the id put in), and passes every other request to
  shopagent's app: what the SDK's client and the HTTP exchange cost with no tool work at all.

Besides the SDK's client, each server is measured from the other end: the same `tools/call`
sent as raw HTTP/1.1 bytes on one kept-alive connection (headers as the SDK's client sends
them), the answer read by its Content-Length, so the time is the server's own (its HTTP
parsing, checks, the tool, the encoding) plus a loopback round trip.

Every MCP call goes through the real client (`mcp.Client` over `streamable_http_client`,
which is a `ClientSession`: it validates each result against the tool's outputSchema), one
session per simulated client held for the whole run. Each round measures, for each tool,
sequential calls (p50/p95) and `--clients` clients calling at once (calls/s). The contenders
take turns call by call (sequential: call i of each, in an order that rotates with i; at once:
turns of 10 calls per client), so a change of the machine's speed, which on a shared 2-core
machine moves wall times by up to 2x within minutes, falls on all of them alike; compare the
rows of one run.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as `python bench/NAME.py`: the checkout goes first on the path instead of bench/, so that
# bench/mcp.py cannot shadow the mcp package; the shared helpers are bench.common.
sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import asyncio
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
from urllib.parse import urlsplit

import anyio
import httpx2
import msgspec
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from bench.common import Provenance, scratch
from shopagent.actors.mcp import build_mcp_app, run_mcp, transport_security
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from shopagent.application.catalog import import_products
from shopagent.application.search import CatalogSearch
from shopagent.bootstrap import SAMPLE_CATALOG
from shopagent.entrypoints.catalog_files import read_catalog_file
from shopagent.entrypoints.mcp.schemas import details_schemas, search_schemas
from shopagent.entrypoints.mcp.server import DETAILS_TOOL, SEARCH_TOOL
from shopagent.runtime.asgi import bind_tcp
from shopagent.settings import EmbeddingSettings, McpSettings, Secret, Secrets, Settings
from shopagent.wiring.policies import mcp_serving
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS

KEY = "bench-mcp-key"
QUERIES = Path(__file__).resolve().parent.parent / "shopagent" / "sample_data" / "eval_queries.jsonl"
FAST_OPTIONS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}
Call = Callable[[int], Awaitable[Any]]  # the n-th call of a measure
UNLIMITED = "no limit"  # shopagent's stack without its rate limit
FLOOR = "client floor"  # recorded answers: the client's and HTTP's own cost
SERVERS = ["shopagent", "reference", UNLIMITED, FLOOR]
CONTENDERS = ["direct", *SERVERS]
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


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


class Interleaved:
    """Sequential calls of several contenders taken in turns (call i of each, in an order that
    rotates with i), so a change of the machine's speed during a measure falls on all alike:
    each call's wall time (ms), and the CPU time of this process per call (ms): client and
    server together, PostgreSQL apart; steadier than wall time on a loaded machine."""

    def __init__(self, profile_dir: str | None = None) -> None:
        self.times: dict[str, list[float]] = {}
        self.cpu: dict[str, float] = {}
        self._profiles: dict[str, cProfile.Profile] = {}
        self._profile_dir = profile_dir

    async def run(self, calls: dict[str, Call], n: int) -> None:
        names = list(calls)
        for i in range(n):
            for name in names[i % len(names) :] + names[: i % len(names)]:
                profile = self._profile(name)
                began, cpu = time.perf_counter(), time.process_time()
                if profile is not None:
                    profile.enable()
                await calls[name](i)
                if profile is not None:
                    profile.disable()
                self.cpu[name] = self.cpu.get(name, 0.0) + time.process_time() - cpu
                self.times.setdefault(name, []).append((time.perf_counter() - began) * 1000)

    def cpu_per_call(self, name: str) -> float:
        return self.cpu[name] * 1000 / len(self.times[name])

    def _profile(self, name: str) -> cProfile.Profile | None:
        if self._profile_dir is None:
            return None
        return self._profiles.setdefault(name, cProfile.Profile())

    def dump_profiles(self, suffix: str) -> None:
        """With `--profile DIR`: one cProfile file per contender."""
        for name, profile in self._profiles.items():
            profile.dump_stats(Path(self._profile_dir or ".") / f"{name}-{suffix}.prof")


async def concurrent(calls: list[Call], n: int) -> float:
    """`len(calls)` clients, each making `n` calls one after the other; the seconds it took."""

    async def client(k: int, call: Call) -> None:
        for i in range(n):
            await call(k * n + i)

    began = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for k, call in enumerate(calls):
            tg.start_soon(client, k, call)
    return time.perf_counter() - began


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
    ports = [bind_tcp("127.0.0.1", 0) for _ in range(4)]
    ours_port, unlimited_port = ports[0].getsockname()[1], ports[2].getsockname()[1]
    ports[0].close()  # run_mcp binds its own, as in production
    ports[2].close()
    # The production limit is kept, set high enough never to refuse a benchmark call.
    mcp = McpSettings(port=ours_port, rate_per_minute=1e9, rate_burst=1_000_000_000)
    settings = Settings(secrets=secrets, embedding=EmbeddingSettings(model="hash"), mcp=mcp)
    async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=HashEmbedder()) as services:
        summary = await import_products(services.catalog, read_catalog_file(SAMPLE_CATALOG))
        assert not summary.rejected, summary.rejected
        while events := await services.outbox.claim(64, 60, 5, "bench"):
            await services.index_product.index(events)
        await services.search.refresh()  # its words read from the finished index, whatever the load
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

        tools = {DETAILS_TOOL: (direct_details, details_args), SEARCH_TOOL: (direct_search, search_args)}
        async with anyio.create_task_group() as tg:
            await tg.start(partial(run_mcp, mcp_serving(settings), services.mcp_server,
                                   limit=_limit(services, settings), metrics=services.metrics))  # fmt: skip
            # The same, without the rate limit: what the limit costs.
            unlimited = msgspec.structs.replace(settings, mcp=msgspec.structs.replace(mcp, port=unlimited_port))
            await tg.start(partial(run_mcp, mcp_serving(unlimited), services.mcp_server, metrics=services.metrics))
            await tg.start(serve_reference, reference_app, ports[1])
            urls = {"shopagent": f"http://127.0.0.1:{ours_port}/mcp",
                    "reference": f"http://127.0.0.1:{ports[1].getsockname()[1]}/mcp",
                    UNLIMITED: f"http://127.0.0.1:{unlimited_port}/mcp",
                    FLOOR: f"http://127.0.0.1:{ports[3].getsockname()[1]}/mcp"}  # fmt: skip
            async with RawHttp(urls["shopagent"]) as raw:  # one answer of each tool, for the floor
                recorded = {tool: await raw.call(tool, arguments(0)) for tool, (_, arguments) in tools.items()}
            floor = build_mcp_app(services.mcp_server, mcp_serving(settings))  # its discover and tools/list
            await tg.start(serve_reference, recorded_answers(floor, recorded), ports[3])
            rows = await run_rounds(args, urls, tools)
            tg.cancel_scope.cancel()
    return rows


def _limit(services: Any, settings: Settings) -> Any:
    from shopagent.adapters.postgres.rate_limits import PostgresRateLimits
    from shopagent.application.limits import RateLimit

    return RateLimit(PostgresRateLimits(services.pool), settings.mcp.rate_per_minute, settings.mcp.rate_burst)


class RawHttp:
    """`tools/call` as raw HTTP/1.1 bytes on one kept-alive connection: the server's side alone."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self._address = (parts.hostname or "127.0.0.1", parts.port or 80)
        self._head = (f"POST {parts.path} HTTP/1.1\r\nhost: {parts.netloc}\r\nauthorization: Bearer {KEY}\r\n"
                      "accept: application/json, text/event-stream\r\ncontent-type: application/json\r\n"
                      "mcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\n")  # fmt: skip
        self._ids = 0

    async def __aenter__(self) -> RawHttp:
        await self.reconnect()
        return self

    async def reconnect(self) -> None:
        """A new connection (the server closes an idle one after its keep-alive timeout, 5 s)."""
        if hasattr(self, "_writer"):
            self._writer.close()
        self._reader, self._writer = await asyncio.open_connection(*self._address)

    async def __aexit__(self, *exc: object) -> None:
        self._writer.close()

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The JSON-RPC response (its result checked: not a tool error)."""
        self._ids += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self._ids, "method": "tools/call",
                           "params": {"name": tool, "arguments": arguments, "_meta": META}}).encode()  # fmt: skip
        head = f"{self._head}mcp-name: {tool}\r\ncontent-length: {len(body)}\r\n\r\n".encode()
        self._writer.write(head + body)
        lines = (await self._reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        length = next(int(line.split(":")[1]) for line in lines if line.lower().startswith("content-length:"))
        answer = json.loads(await self._reader.readexactly(length))
        assert lines[0].split()[1] == "200" and answer["result"]["isError"] is False, (lines[0], answer)
        return answer


def raw_call(connection: RawHttp, tool: str, arguments: Callable[[int], dict[str, Any]]) -> Call:
    async def call(i: int) -> Any:
        return await connection.call(tool, arguments(i))

    return call


def recorded_answers(app: Any, recorded: dict[str, dict[str, Any]]) -> Any:
    """`tools/call` answered at once with `recorded[tool]` (the request's id put in); any other
    request (the client's discovery, its tools/list) goes to `app`."""
    bodies = {
        tool: json.dumps({**answer, "id": 0}, separators=(",", ":")).encode() for tool, answer in recorded.items()
    }

    async def answer(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or (b"mcp-method", b"tools/call") not in scope["headers"]:
            await app(scope, receive, send)
            return
        body, more = b"", True
        while more:
            message = await receive()
            body, more = body + message.get("body", b""), message.get("more_body", False)
        request = json.loads(body)
        reply = bodies[request["params"]["name"]].replace(
            b'"id":0,', b'"id":%s,' % json.dumps(request["id"]).encode(), 1
        )
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(reply)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": reply})

    return answer


async def run_rounds(args, urls: dict[str, str], tools) -> dict[tuple[str, str], list[dict[str, float]]]:
    async with contextlib.AsyncExitStack() as exits:
        clients: dict[str, list[Client]] = {}
        raws: dict[str, RawHttp] = {}
        for name, url in urls.items():
            clients[name] = []
            for _ in range(args.clients):
                http = await exits.enter_async_context(httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}))
                client = await exits.enter_async_context(Client(streamable_http_client(url, http_client=http)))
                clients[name].append(client)
            raws[name] = await exits.enter_async_context(RawHttp(url))
            print(f"{name}: protocol {clients[name][0].protocol_version}", file=sys.stderr)
        rows: dict[tuple[str, str], list[dict[str, float]]] = {}
        for tool, (direct, arguments) in tools.items():  # warm-up: every path and session once
            for name in urls:
                for client in clients[name]:
                    await mcp_call(client, tool, arguments)(0)
                await raws[name].call(tool, arguments(0))
            await direct(0)
        burst = min(10, args.concurrent_calls)  # calls per client in one turn of the concurrent measure
        for round_no in range(args.rounds):
            for tool, (direct, arguments) in tools.items():
                calls = {name: mcp_call(clients[name][0], tool, arguments) for name in SERVERS}
                sequential = Interleaved(args.profile)
                await sequential.run({"direct": direct, **calls}, args.calls)
                sequential.dump_profiles(f"{tool}-round{round_no + 1}")
                server_side = Interleaved()
                for raw in raws.values():
                    await raw.reconnect()  # an idle one may have been closed meanwhile
                await server_side.run({name: raw_call(raws[name], tool, arguments) for name in SERVERS}, args.calls)
                seconds = dict.fromkeys(CONTENDERS, 0.0)
                for turn in range(max(1, args.concurrent_calls // burst)):  # the contenders in turns
                    for name in CONTENDERS[turn % len(CONTENDERS) :] + CONTENDERS[: turn % len(CONTENDERS)]:
                        group = (
                            [direct] * args.clients
                            if name == "direct"
                            else [mcp_call(c, tool, arguments) for c in clients[name]]
                        )
                        seconds[name] += await concurrent(group, burst)
                done = args.clients * burst * max(1, args.concurrent_calls // burst)
                for name in CONTENDERS:
                    times = sequential.times[name]
                    f = {"p50": percentile(times, 50), "p95": percentile(times, 95),
                         "cpu": sequential.cpu_per_call(name), "rate": done / seconds[name]}  # fmt: skip
                    if name != "direct":
                        f["server"] = percentile(server_side.times[name], 50)
                    rows.setdefault((tool, name), []).append(f)
                    print(f"round {round_no + 1} {tool:26} {name:12} p50 {f['p50']:6.2f} ms  p95 {f['p95']:6.2f} ms  "
                          f"server side {f.get('server', 0):5.2f} ms  cpu {f['cpu']:5.2f} ms  {f['rate']:6.0f} calls/s",
                          file=sys.stderr)  # fmt: skip
        return rows


def print_table(rows: dict[tuple[str, str], list[dict[str, float]]], args: argparse.Namespace) -> None:
    def median(tool: str, name: str, key: str) -> float:
        return statistics.median(f[key] for f in rows[(tool, name)])

    def spread(tool: str, name: str, key: str, fmt: str) -> str:
        values = [f[key] for f in rows[(tool, name)]]
        return format(min(values), fmt) if len(values) == 1 else f"{min(values):{fmt}}-{max(values):{fmt}}"

    print(f"{args.rounds} round(s): {args.calls} sequential calls per tool and contender, "
          f"{args.clients} clients x {args.concurrent_calls} calls at once; medians over the rounds, "
          f"ranges in brackets")  # fmt: skip
    header = ("tool", "contender", "seq p50 ms", "seq p95 ms", "server side p50 ms", "CPU ms/call",
              f"{args.clients} clients calls/s", "p50 / reference", "calls/s / reference",
              "p50 - direct ms")  # fmt: skip
    lines = [header]
    for tool in (DETAILS_TOOL, SEARCH_TOOL):
        direct = median(tool, "direct", "p50")
        ref_p50, ref_rate = median(tool, "reference", "p50"), median(tool, "reference", "rate")
        for name in CONTENDERS:
            p50, rate = median(tool, name, "p50"), median(tool, name, "rate")
            server = "" if name == "direct" else f"{median(tool, name, 'server'):.2f}"
            lines.append((
                tool, name,
                f"{p50:.2f} ({spread(tool, name, 'p50', '.2f')})",
                f"{median(tool, name, 'p95'):.2f}",
                server,
                f"{median(tool, name, 'cpu'):.2f}",
                f"{rate:.0f} ({spread(tool, name, 'rate', '.0f')})",
                "" if name == "direct" else f"{p50 / ref_p50:.2f}",
                "" if name == "direct" else f"{rate / ref_rate:.2f}",
                "" if name == "direct" else f"+{p50 - direct:.2f}",
            ))  # fmt: skip
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    for line in lines:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip())
    for tool in (DETAILS_TOOL, SEARCH_TOOL):
        gap = median(tool, "shopagent", "p50") - median(tool, "direct", "p50")
        client = median(tool, FLOOR, "p50") - median(tool, FLOOR, "server")
        server = median(tool, "shopagent", "server") - median(tool, FLOOR, "server")
        print(f"{tool}: shopagent is {gap:.2f} ms above the direct call at p50; the SDK's client takes "
              f"{client:.2f} ms with any server (the client floor less its server side); shopagent's server "
              f"{server:.2f} ms more than one sending a recorded answer (the tool's own work included)")  # fmt: skip


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
