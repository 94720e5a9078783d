"""What the composition root wraps around the ports and use cases to record metrics.

Each wrapper is a decorator of a port (or a use case) that passes every call through
unchanged and records on the process's `Metrics`; bootstrap applies them where it builds
the real thing, so the use cases and adapters know nothing of Prometheus. The scrape-time
sources (pool usage, the vector index) live here too.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any

import anyio
import numpy as np
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric

from shopagent.adapters.postgres.database import GuardedPool
from shopagent.application.conversations import ChatService, TurnResult
from shopagent.application.insights import UnmetSearchLog
from shopagent.application.ports import ChatModel, EmbeddingModel, SaveOutcome, ToolGateway
from shopagent.application.ports.indexing import ChunkStore, VectorIndexAdmin
from shopagent.domain.chat import ChatMessage, ModelReply, ToolResult, ToolSpec
from shopagent.domain.errors import ShopagentError
from shopagent.domain.indexing import OutboxEvent
from shopagent.runtime.metrics import Metrics

_WORD_START = re.compile(r"(?<!^)(?=[A-Z])")


def outcome_of(exc: BaseException) -> str:
    """A bounded label for how something failed: our error's name ("model_unavailable"),
    "cancelled", or "internal_error" for anything else."""
    if isinstance(exc, anyio.get_cancelled_exc_class()):
        return "cancelled"
    if isinstance(exc, ShopagentError):
        return _WORD_START.sub("_", type(exc).__name__).lower()
    return "internal_error"


class MeasuredChatModel:
    """A ChatModel that times each reply and counts steps and tokens by `provider`.

    Keyword arguments of `generate` (such as a streaming callback) pass through untouched,
    and so does anything else the wrapped model offers.
    """

    def __init__(self, model: ChatModel, metrics: Metrics, provider: str) -> None:
        self.wrapped = model
        self.provider = provider
        self._metrics = metrics
        for direction in ("input", "output"):  # present from the start, so rates work at once
            metrics.model_tokens.labels(provider, direction)

    @property
    def model_id(self) -> str:
        return self.wrapped.model_id

    async def generate(
        self,
        system: str,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        temperature: float | None = None,
        **kwargs: Any,
    ) -> ModelReply:
        m = self._metrics
        m.chat_steps.labels(self.provider).inc()
        started = time.perf_counter()
        try:
            reply = await self.wrapped.generate(system, messages, tools, temperature, **kwargs)
        finally:
            m.model_duration.labels(self.provider, self.model_id).observe(time.perf_counter() - started)
        if reply.usage is not None:
            m.model_tokens.labels(self.provider, "input").inc(reply.usage.input_tokens)
            m.model_tokens.labels(self.provider, "output").inc(reply.usage.output_tokens)
        return reply

    async def aclose(self) -> None:
        await self.wrapped.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


class MeasuredToolGateway:
    """A ToolGateway that counts the agent's tool calls by tool and outcome (ok, error).
    A name the server does not have counts as "unknown": models invent names."""

    def __init__(self, tools: ToolGateway, metrics: Metrics) -> None:
        self.wrapped = tools
        self._metrics = metrics
        self._known: set[str] = set()

    async def list_tools(self) -> list[ToolSpec]:
        specs = await self.wrapped.list_tools()
        self._known = {s.name for s in specs}
        return specs

    async def safe_call(self, name: str, args: Any) -> ToolResult:
        result = await self.wrapped.safe_call(name, args)
        tool = name if name in self._known else "unknown"
        self._metrics.chat_tool_calls.labels(tool, "error" if result.is_error else "ok").inc()
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


class MeasuredChatService(ChatService):
    """ChatService counting each turn by provider and outcome (ok, or the error's name)."""

    def __init__(self, *args: Any, metrics: Metrics, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._metrics = metrics
        model = self._agent.model
        self._provider = model.provider if isinstance(model, MeasuredChatModel) else "custom"

    async def run_turn(self, *args: Any, **kwargs: Any) -> TurnResult:
        outcome = "ok"
        try:
            return await super().run_turn(*args, **kwargs)
        except BaseException as exc:
            outcome = outcome_of(exc)
            raise
        finally:
            self._metrics.chat_turns.labels(self._provider, outcome).inc()


class MeasuredEmbedder:
    """An EmbeddingModel that times each call and records document batch sizes."""

    def __init__(self, embedder: EmbeddingModel, metrics: Metrics) -> None:
        self.wrapped = embedder
        self._metrics = metrics

    @property
    def model_id(self) -> str:
        return self.wrapped.model_id

    @property
    def dimension(self) -> int:
        return self.wrapped.dimension

    async def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self._metrics.embedding_batch.labels(self.model_id).observe(len(texts))
        with self._timed("documents"):
            return await self.wrapped.embed_documents(texts)

    async def embed_query(self, text: str) -> np.ndarray:
        with self._timed("query"):
            return await self.wrapped.embed_query(text)

    async def aclose(self) -> None:
        await self.wrapped.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)

    @contextlib.contextmanager
    def _timed(self, kind: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self._metrics.embedding_duration.labels(self.model_id, kind).observe(time.perf_counter() - started)


def mcp_tool_observer(metrics: Metrics) -> Callable[[str, str, float], None]:
    """The MCP server's observer of its tool calls."""

    def observe(tool: str, outcome: str, seconds: float) -> None:
        metrics.mcp_tool_calls.labels(tool, outcome).inc()
        if outcome != "unknown_tool":
            metrics.mcp_tool_duration.labels(tool).observe(seconds)

    return observe


def index_observers(
    metrics: Metrics,
) -> tuple[Callable[[OutboxEvent, SaveOutcome], None], Callable[[OutboxEvent, bool], None]]:
    """The indexing use case's hooks: (an event finished, an attempt failed)."""

    def indexed(event: OutboxEvent, outcome: SaveOutcome) -> None:
        metrics.index_events.labels(outcome.value).inc()

    def failed(event: OutboxEvent, dead: bool) -> None:
        metrics.index_events.labels("dead_lettered" if dead else "retried").inc()

    return indexed, failed


def pool_source(pool: GuardedPool) -> Callable[[], Awaitable[list[Metric]]]:
    """Connections of the application pool: in use, idle, and the most it opens."""

    async def read() -> list[Metric]:
        size, idle = pool.pool.get_size(), pool.pool.get_idle_size()
        family = GaugeMetricFamily(
            "shopagent_db_pool_connections", "Connections of the database pool, by state.", labels=["state"]
        )
        family.add_metric(["in_use"], size - idle)
        family.add_metric(["idle"], idle)
        family.add_metric(["max"], pool.pool.get_max_size())
        return [family]

    return read


def vector_index_source(
    pool: GuardedPool, vector_index: VectorIndexAdmin, chunks: ChunkStore, model: str
) -> Callable[[], Awaitable[list[Metric]]]:
    """Whether the model's vector index is built, and how many products it covers; nothing
    while the database is down (`shopagent_dependency_up` says so)."""

    async def read() -> list[Metric]:
        if not pool.up:
            return []
        state = await vector_index.state(model)
        products_indexed = await chunks.products_indexed(model)
        ready = GaugeMetricFamily(
            "shopagent_vector_index_ready", "1 when the model's vector index is built (until then searches scan).",
            labels=["model"],
        )  # fmt: skip
        ready.add_metric([model], state.ready)
        indexed = GaugeMetricFamily(
            "shopagent_indexed_products", "Products whose chunks come from the model.", labels=["model"]
        )
        indexed.add_metric([model], products_indexed)
        return [ready, indexed]

    return read


def refusal_counter(metrics: Metrics) -> Callable[[str], Callable[[], None]]:
    """`refused(limiter)`: what a rate limit calls for each request it refuses (429)."""

    def refused(limiter: str) -> Callable[[], None]:
        child = metrics.rate_limited.labels(limiter)
        child.inc(0)  # present from the start, so rates work at once
        return child.inc

    return refused


def sweep_observer(metrics: Metrics, sweeps: Sequence[str]) -> Callable[[str, str, int], None]:
    """The reaper's observer of its sweeps: (sweep, outcome, how many it released)."""
    for sweep in sweeps:  # present from the start, so rates and increases work at once
        metrics.reaper_released.labels(sweep)
        for outcome in ("ok", "skipped", "failed"):
            metrics.reaper_sweeps.labels(sweep, outcome)

    def observe(sweep: str, outcome: str, released: int) -> None:
        metrics.reaper_sweeps.labels(sweep, outcome).inc()
        metrics.reaper_released.labels(sweep).inc(released)

    return observe


def lease_loss_counter(metrics: Metrics) -> Callable[[int], None]:
    """What the indexer's leases call with how many leases it lost at a renewal."""
    return metrics.leases_lost.inc


def unmet_search_recorder(
    metrics: Metrics, log: UnmetSearchLog, tools: Sequence[str]
) -> Callable[[str, str, str | None], Awaitable[None]]:
    """What the search tools call after a search that found nothing strong: counted, and kept
    for the shop owner's report."""
    for tool in tools:
        metrics.searches_without_strong_match.labels(tool)

    async def unmet(tool: str, query: str, best_match: str | None) -> None:
        metrics.searches_without_strong_match.labels(tool).inc()
        await log.record(tool, query, best_match)

    return unmet
