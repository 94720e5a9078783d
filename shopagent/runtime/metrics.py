"""Prometheus metrics on a registry of the process's own (no global state).

`Metrics` holds the registry and the instruments the process records on as things happen.
Values known only when asked (actor states, pool usage, rows in the database) come from
*sources*: async functions run just before each scrape, each within a timeout, so that a
slow or absent dependency costs the scrape that source's series and nothing else. Scrapes
run one at a time, which also bounds the load they put on the database.

`RequestMetrics` is a pure ASGI middleware that counts and times HTTP requests by route
template (never the raw path: every id would make a series of its own), and keeps count of the
event streams open.

The process's memory, CPU and open files (`process_*`), the Python version (`python_info`) and
the build (`shopagent_build_info`) are on the registry too. The `_created` series of counters and
histograms are left out of the exposition: they double the series and say only when the process
started, which `process_start_time_seconds` says once.
"""

from __future__ import annotations

import copy
import logging
import platform
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from importlib import metadata

import anyio
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("shopagent.metrics")

Source = Callable[[], Awaitable[Iterable[Metric]]]

# Chat turns, and so the chat request, can take up to the turn timeout (120 s by default).
HTTP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
MODEL_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0)
TOOL_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
EMBEDDING_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


class _Scraped(Collector):
    """The families the sources gave for the scrape in progress."""

    def __init__(self) -> None:
        self.families: list[Metric] = []

    def collect(self) -> Iterator[Metric]:
        return iter(self.families)

    def describe(self) -> list[Metric]:
        return []  # names vary with what each scrape finds; nothing to check at registration


class _WithoutCreated:
    """A registry's families without the `_created` samples of its counters and histograms."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self._registry = registry

    def collect(self) -> Iterator[Metric]:
        for family in self._registry.collect():
            created = family.name + "_created"
            kept = [s for s in family.samples if s.name != created]
            if len(kept) != len(family.samples):
                family = copy.copy(family)
                family.samples = kept
            yield family


def _version() -> str:
    try:
        return metadata.version("shopagent")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


class Metrics:
    """The process's registry and instruments. Build one per process (the composition root
    does) and pass it to what records; two processes, or two tests, never share one."""

    def __init__(self, *, source_timeout_seconds: float = 5.0) -> None:
        self.registry = CollectorRegistry()
        self._timeout = source_timeout_seconds
        self._sources: list[tuple[str, Source]] = []
        self._scraped = _Scraped()
        self._scraping = anyio.Lock()
        r = self.registry
        self.http_requests = Counter(
            "shopagent_http_requests", "HTTP requests answered, by server, route template, method and status.",
            ["server", "route", "method", "status"], registry=r,
        )  # fmt: skip
        self.http_duration = Histogram(
            "shopagent_http_request_duration_seconds", "Time to answer an HTTP request (a whole event stream).",
            ["server", "route", "method"], buckets=HTTP_BUCKETS, registry=r,
        )  # fmt: skip
        self.connections_closed = Counter(
            "shopagent_connections_closed", "Connections a server closed by its connection rules, by reason: "
            "header_timeout, body_timeout, evicted (its place taken at the cap), over_capacity (refused, 503).",
            ["server", "reason"], registry=r,
        )  # fmt: skip
        self.client_disconnects = Counter(
            "shopagent_http_client_disconnects", "Requests whose client went away before its request was read "
            "or answered (not counted in shopagent_http_requests).", ["server", "route"], registry=r,
        )  # fmt: skip
        self.mcp_tool_calls = Counter(
            "shopagent_mcp_tool_calls", "MCP tool calls served, by tool and outcome.", ["tool", "outcome"], registry=r
        )
        self.mcp_tool_duration = Histogram(
            "shopagent_mcp_tool_duration_seconds", "Time to run an MCP tool call.", ["tool"],
            buckets=TOOL_BUCKETS, registry=r,
        )  # fmt: skip
        self.chat_turns = Counter(
            "shopagent_chat_turns", "Chat turns, by provider and outcome (ok, or the error).",
            ["provider", "outcome"], registry=r,
        )  # fmt: skip
        self.chat_steps = Counter(
            "shopagent_chat_steps", "Agent steps (one model request each), by provider.", ["provider"], registry=r
        )
        self.chat_tool_calls = Counter(
            "shopagent_chat_tool_calls", "Tool calls the agent made, by tool and outcome.", ["tool", "outcome"],
            registry=r,
        )  # fmt: skip
        self.model_duration = Histogram(
            "shopagent_model_request_duration_seconds", "Time a chat model took to reply (failures included).",
            ["provider", "model"], buckets=MODEL_BUCKETS, registry=r,
        )  # fmt: skip
        self.model_tokens = Counter(
            "shopagent_model_tokens", "Tokens chat models reported, by provider and direction (input, output).",
            ["provider", "direction"], registry=r,
        )  # fmt: skip
        self.index_events = Counter(
            "shopagent_index_events_processed", "Outbox events the indexer finished or failed, by outcome.",
            ["outcome"], registry=r,
        )  # fmt: skip
        self.embedding_duration = Histogram(
            "shopagent_embedding_duration_seconds", "Time to embed a batch of documents or one query.",
            ["model", "kind"], buckets=EMBEDDING_BUCKETS, registry=r,
        )  # fmt: skip
        self.embedding_batch = Histogram(
            "shopagent_embedding_batch_size", "Texts per document embedding call.", ["model"],
            buckets=BATCH_BUCKETS, registry=r,
        )  # fmt: skip
        self.event_streams = Gauge(
            "shopagent_event_streams_open", "Event streams (text/event-stream answers) open now, by server.",
            ["server"], registry=r,
        )  # fmt: skip
        self.searches_without_strong_match = Counter(
            "shopagent_searches_without_strong_match", "Searches that found nothing graded strong (the shop may "
            "not carry what was asked), by tool; the shoppers' own searches included.", ["tool"], registry=r,
        )  # fmt: skip
        self.rate_limited = Counter(
            "shopagent_rate_limited", "Requests refused (429) by a rate limit, by limiter.", ["limiter"], registry=r
        )
        self.reaper_sweeps = Counter(
            "shopagent_reaper_sweeps", "Reaper sweeps run, by sweep and outcome (ok, skipped: the database "
            "was away or full, failed).", ["sweep", "outcome"], registry=r,
        )  # fmt: skip
        self.reaper_released = Counter(
            "shopagent_reaper_released", "What reaper sweeps released, by sweep (expired-leases: outbox "
            "leases that ran out; stuck-conversations; idle-rate-limits).", ["sweep"], registry=r,
        )  # fmt: skip
        self.leases_lost = Counter(
            "shopagent_index_leases_lost", "Outbox leases this indexer held and lost before it finished the event "
            "(they ran out, and the reaper or another indexer took them).", registry=r,
        )  # fmt: skip
        Gauge(
            "shopagent_build_info", "The running build: always 1, with the version as a label.",
            ["version", "python"], registry=r,
        ).labels(_version(), platform.python_version()).set(1)  # fmt: skip
        ProcessCollector(registry=r)  # process_*: memory, CPU seconds, open and max file descriptors
        PlatformCollector(registry=r)  # python_info
        r.register(self._scraped)

    def add_source(self, name: str, source: Source) -> None:
        """Run `source` before every scrape; its families are part of that scrape only."""
        self._sources.append((name, source))

    async def render(self) -> bytes:
        """The Prometheus text exposition of everything, the sources read anew."""
        async with self._scraping:
            families: list[Metric] = []
            for name, source in self._sources:
                families.extend(await self._read(name, source))
            self._scraped.families = families
            try:
                return generate_latest(_WithoutCreated(self.registry))
            finally:
                self._scraped.families = []

    async def _read(self, name: str, source: Source) -> list[Metric]:
        with anyio.move_on_after(self._timeout):
            try:
                return list(await source())
            except Exception as exc:  # a scrape answers with what it has
                log.warning("metrics source %s failed: %s", name, exc)
                return []
        log.warning("metrics source %s gave nothing within %gs", name, self._timeout)
        return []


def route_templates(routes: Callable[[], Sequence[BaseRoute]]) -> Callable[[Scope], str]:
    """The template of the route a request goes to ("/api/conversations/{conversation_id}"),
    or "other" for a path no route has."""

    def route_of(scope: Scope) -> str:
        for route in routes():
            match, _ = route.matches(scope)
            if match is not Match.NONE:
                return getattr(route, "path", "other")
        return "other"

    return route_of


class RequestMetrics:
    """Counts each HTTP request and observes its duration, by `server`, route and method.

    The route is resolved before the app runs (routing rewrites parts of the scope); a
    request the app fails without answering counts as the 500 the server sends for it. A client
    that goes away before its answer has started (a body cut short, a closed socket) is no error
    of the server's: it is counted in `client_disconnects` only, and an exception the app raises
    about it (reading a body that will not come) ends there, without a traceback.
    """

    def __init__(self, app: ASGIApp, *, metrics: Metrics, server: str, route_of: Callable[[Scope], str]) -> None:
        self.app = app
        self._metrics = metrics
        self._server = server
        self._route_of = route_of
        self._streams = metrics.event_streams.labels(server)
        self._streams.inc(0)  # present from the start

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        route = self._route_of(scope)
        method = scope["method"] if scope["method"] in METHODS else "other"
        status = "500"
        answered = gone = streaming = False
        started = time.perf_counter()

        async def receive_noting_disconnect() -> Message:
            nonlocal gone
            message = await receive()
            if message["type"] == "http.disconnect" and not answered:
                gone = True
            return message

        async def send_noting_status(message: Message) -> None:
            nonlocal status, answered, streaming
            if message["type"] == "http.response.start":
                status, answered = str(message["status"]), True
                if streaming := _is_event_stream(message):
                    self._streams.inc()
            await send(message)

        try:
            await self.app(scope, receive_noting_disconnect, send_noting_status)
        except Exception:
            if not gone:
                raise
            log.debug("%s %s: the client went away; what the app raised about it", method, route, exc_info=True)
        finally:
            if streaming:
                self._streams.dec()
            if gone:
                self._metrics.client_disconnects.labels(self._server, route).inc()
            else:
                self._metrics.http_requests.labels(self._server, route, method, status).inc()
                self._metrics.http_duration.labels(self._server, route, method).observe(time.perf_counter() - started)


def _is_event_stream(start: Message) -> bool:
    for name, value in start.get("headers", ()):
        if name.lower() == b"content-type":
            return bytes(value).split(b";")[0].strip().lower() == b"text/event-stream"
    return False
