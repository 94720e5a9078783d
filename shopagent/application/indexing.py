"""The indexing use case: a batch of outbox events in, each product's current chunk set stored.

Exactly-once in effect: events are processed against the *current* product (never the
state at event time); chunks whose text is already stored are never embedded again; the
write is conditional on the product version that was read; and an event that was already
completed is a no-op success. Events come in batches (whatever the mailbox holds, up to a
limit) so that one database round trip and one embedding call serve many products; a
failing batch is retried one event at a time, so one bad product cannot hold back others.
Failures are retried with backoff, then dead-lettered.

The model's vector index is kept by a `VectorIndexKeeper`: growing an HNSW graph one chunk at
a time costs several times more than building it over chunks already stored, so a bulk load
(a first import, a model change, `index rebuild`) stores the chunks first and builds the
index once the backlog is drained.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial

import anyio
import numpy as np

from shopagent.application.ports import (
    CatalogRepository,
    EmbeddingModel,
    IndexBuild,
    IndexStore,
    SaveItem,
    SaveOutcome,
    VectorIndexSpec,
)
from shopagent.domain.errors import DatabaseUnavailable, ShopagentError
from shopagent.domain.indexing import OutboxEvent, chunk_product, chunk_set_hash
from shopagent.runtime.retry import Backoff

log = logging.getLogger("shopagent.indexing")


@dataclass(frozen=True)
class IndexingPolicy:
    token_budget: int = 96
    batch_size: int = 32
    max_attempts: int = 5
    backoff_seconds: float = 1.0
    backoff_max_seconds: float = 300.0


_RECHECK_SECONDS = 60.0  # how often a keeper with nothing to do checks the index is still there
_PENDING_POLL_SECONDS = 1.0  # how often a keeper with an index to build looks whether it can
_PATIENCE_SECONDS = 60.0  # pending this long, a backlog under the bulk size no longer holds a build back
_BUILD_RETRY_SECONDS = 60.0  # after a failed build


class VectorIndexKeeper:
    """Builds the active model's vector index once no event is due or in flight.

    A missing index is built as soon as the indexer has nothing to do (over the chunks
    already stored: much cheaper than growing the graph chunk by chunk), or after a minute
    of waiting once fewer than a bulk load's worth of products are left. An existing index
    is kept live, unless a bulk load arrives: a backlog of at least `bulk_load_events`
    products that outnumbers the products already indexed with the model (so at least
    doubling the index). Then the index is dropped and rebuilt after the load; searches
    meanwhile compute exact distances (slower, never wrong). `bulk_load_events = 0` never
    drops it. Every indexer process has a keeper; an advisory lock in the store makes one
    of them build while the others look again every second. A failed build is logged and
    tried again a minute later; the indexing goes on.
    """

    def __init__(
        self,
        store: IndexStore,
        model: str,
        dimension: int,
        spec: VectorIndexSpec,
        *,
        bulk_load_events: int,
        max_attempts: int,
    ) -> None:
        self._store = store
        self._model = model
        self._dimension = dimension
        self._spec = spec
        self._bulk_load_events = bulk_load_events
        self._max_attempts = max_attempts
        self._to_build = False
        self._busy = False  # one settle at a time in this process
        self._checked_at = time.monotonic()
        self._pending_since = 0.0
        self._retry_at = 0.0
        self.build_error: str | None = None  # why the last build failed, until one succeeds

    @property
    def pending(self) -> bool:
        """Whether this keeper still has the index to build."""
        return self._to_build

    async def built_as_configured(self) -> bool:
        """Whether the index exists with this keeper's settings (another process, configured
        differently, may have built it)."""
        state = await self._store.vector_index_state(self._model, self._max_attempts)
        return state.ready and state.settings == self._spec.describe()

    async def prepare(self, *, rebuild: bool = False) -> None:
        """Look at the index and the backlog; drop the index for a bulk load or a `rebuild`."""
        state = await self._store.vector_index_state(self._model, self._max_attempts)
        self._checked_at = time.monotonic()
        bulk = 0 < self._bulk_load_events <= state.backlog and state.backlog > state.products_indexed
        if state.ready and (bulk or rebuild):
            await self._store.drop_vector_index(self._model)
            log.info(
                "dropped the vector index of %s; it is built anew once the %d product(s) queued are indexed",
                self._model,
                state.backlog,
            )
        elif state.ready and state.settings != self._spec.describe():
            log.warning(
                "the vector index of %s was built with %s, not the configured %s; "
                "`shopagent index rebuild` builds it anew",
                self._model,
                state.settings,
                self._spec.describe(),
            )
        to_build = not state.ready or bulk or rebuild
        if to_build and not self._to_build:
            self._pending_since = time.monotonic()
        self._to_build = to_build

    async def settle(self) -> None:
        """Build the index if it is due and the indexer has nothing to do; cheap otherwise."""
        if self._busy:
            return
        self._busy = True
        try:
            if not self._to_build:
                # Now and then make sure it is still there (another process may have
                # dropped it for a rebuild, then died).
                if time.monotonic() - self._checked_at < _RECHECK_SECONDS:
                    return
                await self.prepare()
                if not self._to_build:
                    return
            if time.monotonic() < self._retry_at:
                return
            if await self._store.has_backlog(self._max_attempts) and not await self._waited_long_enough():
                return
            began = time.monotonic()
            try:
                outcome = await self._store.build_vector_index(self._model, self._dimension, self._spec)
            except Exception as exc:  # the indexer goes on; searches scan meanwhile
                self._retry_at = time.monotonic() + _BUILD_RETRY_SECONDS
                self.build_error = str(exc)
                log.error(
                    "building the vector index of %s failed, trying again in %.0f s: %s",
                    self._model,
                    _BUILD_RETRY_SECONDS,
                    exc,
                )
                return
            if outcome is IndexBuild.BUSY:
                return  # another process is building it; look again later
            self.build_error = None
            if outcome is IndexBuild.BUILT:
                log.info(
                    "built the vector index of %s (%s) in %.1f s",
                    self._model,
                    self._spec.describe(),
                    time.monotonic() - began,
                )
            self._to_build = False
        finally:
            self._busy = False

    async def _waited_long_enough(self) -> bool:
        """A steady trickle of events must not postpone the build for ever: after a while a
        backlog smaller than a bulk load no longer holds it back (writes go on during a build)."""
        if time.monotonic() - self._pending_since < _PATIENCE_SECONDS:
            return False
        state = await self._store.vector_index_state(self._model, self._max_attempts)
        return self._bulk_load_events == 0 or state.backlog < self._bulk_load_events

    async def maintain(self) -> None:
        """Settle now and then, forever: builds the index even when no event comes by."""
        while True:
            try:
                await self.settle()
            except DatabaseUnavailable:  # paused with the rest of the indexer
                await anyio.sleep(_PENDING_POLL_SECONDS)
                continue
            await anyio.sleep(_PENDING_POLL_SECONDS if self._to_build else _RECHECK_SECONDS)


class Leases:
    """The outbox events this process holds, from their claim until they are finished.

    The poller claims through it, and no further ahead than the workers start soon (`ahead`
    events claimed but not started), so that what a crash strands is small. `keep_renewed`
    extends every held lease while the work goes on, so the lease itself can be short: a
    process killed with `kill -9` strands its events for one lease at most. On a stop,
    `release_all` gives back at once what was not finished, for another indexer to take.
    """

    def __init__(self, store: IndexStore, *, lease_seconds: float, max_attempts: int, worker: str, ahead: int):
        self._store = store
        self.lease_seconds = lease_seconds
        self._max_attempts = max_attempts
        self.worker = worker
        self._ahead = max(1, ahead)
        self._waiting: dict[int, OutboxEvent] = {}  # claimed, not started
        self._started: dict[int, OutboxEvent] = {}
        self._room = anyio.Event()

    @property
    def held(self) -> int:
        return len(self._waiting) + len(self._started)

    def room(self) -> int:
        """How many more events may be claimed now."""
        return max(0, self._ahead - len(self._waiting))

    async def wait_for_room(self) -> None:
        while not self.room():
            await self._room.wait()

    async def claim(self, limit: int) -> list[OutboxEvent]:
        events = await self._store.claim(limit, self.lease_seconds, self._max_attempts, self.worker)
        self._waiting.update((e.id, e) for e in events)
        return events

    def started(self, events: Sequence[OutboxEvent]) -> None:
        for event in events:
            self._started[event.id] = self._waiting.pop(event.id, event)
        self._room.set()
        self._room = anyio.Event()

    def finished(self, events: Sequence[OutboxEvent]) -> None:
        for event in events:
            self._started.pop(event.id, None)

    async def renew(self) -> None:
        ids = [*self._waiting, *self._started]
        if not ids:
            return
        kept = set(await self._store.renew(ids, self.lease_seconds, self.worker))
        lost = [i for i in ids if i not in kept]  # finished meanwhile, or taken over after an outage
        for event_id in lost:
            self._waiting.pop(event_id, None)
        if lost:
            log.debug("%d lease(s) no longer held by this indexer", len(lost))

    async def keep_renewed(self) -> None:
        """Renew the held leases every third of a lease, forever; a database outage only
        delays it (the leases may run out meanwhile: then others take the events, harmlessly)."""
        while True:
            await anyio.sleep(self.lease_seconds / 3)
            with contextlib.suppress(DatabaseUnavailable):
                await self.renew()

    async def release_all(self) -> int:
        """Give back every lease this indexer holds (called on a stop: nothing of them is
        stored yet), including those of a claim the stop cut short before it returned."""
        self._waiting.clear()
        self._started.clear()
        return await self._store.release(self.worker)


class IndexProducts:
    """Callable per batch of outbox events; never raises for a failure of the events themselves."""

    def __init__(
        self,
        catalog: CatalogRepository,
        store: IndexStore,
        embedder: EmbeddingModel,
        policy: IndexingPolicy,
        *,
        on_indexed: Callable[[OutboxEvent, SaveOutcome], None] | None = None,
        on_failed: Callable[[OutboxEvent, bool], None] | None = None,
        keeper: VectorIndexKeeper | None = None,
        leases: Leases | None = None,
        database_back: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._catalog = catalog
        self._store = store
        self._embedder = embedder
        self._policy = policy
        self._on_indexed = on_indexed
        self._on_failed = on_failed  # told (event, dead-lettered) of each failed attempt
        self.keeper = keeper
        self.leases = leases
        self._database_back = database_back or partial(anyio.sleep, 1.0)

    async def __call__(self, events: Sequence[OutboxEvent]) -> None:
        """Index a batch. While the database is away the batch waits and is then done again:
        an outage is nobody's failure, so it uses up no attempt."""
        if self.leases is not None:
            self.leases.started(events)
        try:
            while True:
                try:
                    await self._handle(events)
                    break
                except DatabaseUnavailable:
                    await self._database_back()
        finally:
            if self.leases is not None:
                self.leases.finished(events)
        if self.keeper is not None:
            with contextlib.suppress(DatabaseUnavailable):  # it settles next time
                await self.keeper.settle()

    async def _handle(self, events: Sequence[OutboxEvent]) -> None:
        try:
            outcomes = await self.index(events)
        except DatabaseUnavailable:
            raise
        except Exception as exc:
            if len(events) == 1:
                await self._failed(events[0], exc)
            else:
                for event in events:  # find the culprit; the others go through
                    await self._handle([event])
            return
        if self._on_indexed is not None:
            for event in events:
                if (outcome := outcomes.get(event.id)) is not None:
                    self._on_indexed(event, outcome)

    async def index(self, events: Sequence[OutboxEvent]) -> dict[int, SaveOutcome | None]:
        """Process the events; an event maps to None when it had been completed already."""
        pending = set(await self._store.pending_among([e.id for e in events]))
        live = [e for e in events if e.id in pending]  # the rest were delivered again: no-op
        outcomes: dict[int, SaveOutcome | None] = {e.id: None for e in events if e.id not in pending}
        if not live:
            return outcomes
        model = self._embedder.model_id
        products = await self._catalog.get_many(sorted({e.product_id for e in live}))
        indexed = await self._store.indexed_sets([p.id for p in products.values()], model)
        items, needs_vectors = [], []
        for product in products.values():
            chunks = chunk_product(product, self._policy.token_budget)
            item = SaveItem(product=product, chunks=chunks, set_hash=chunk_set_hash(model, chunks))
            items.append(item)
            if indexed.get(product.id) != item.set_hash:
                needs_vectors.append(item)
        await self._attach_vectors(needs_vectors, model)
        # Once the vectors are there, a stop lets the write (a short transaction, bounded by the
        # pool's command timeout) finish: the work is kept, and no transaction is cut midway.
        with anyio.CancelScope(shield=True):
            saved = await self._store.save_batch(live, items, model)
        outcomes.update(saved)
        log.debug("indexed %d event(s): %d product(s) embedded", len(live), len(needs_vectors))
        return outcomes

    async def _attach_vectors(self, items: list[SaveItem], model: str) -> None:
        """Give each item one vector per chunk: reuse stored ones, embed the rest (deduplicated)."""
        if not items:
            return
        stored = await self._store.stored_embeddings([i.product.id for i in items], model)
        missing: dict[bytes, str] = {}
        for item in items:
            for chunk in item.chunks:
                if chunk.content_hash not in stored and chunk.content_hash not in missing:
                    missing[chunk.content_hash] = chunk.content
        fresh = dict(zip(missing, await self._embed(list(missing.values())), strict=True))
        for item in items:
            item.vectors = np.stack([stored.get(c.content_hash, fresh.get(c.content_hash)) for c in item.chunks])

    async def _embed(self, texts: list[str]) -> list[np.ndarray]:
        size = self._policy.batch_size
        rows: list[np.ndarray] = []
        for start in range(0, len(texts), size):
            rows.extend(await self._embedder.embed_documents(texts[start : start + size]))
        return rows

    async def _failed(self, event: OutboxEvent, exc: Exception) -> None:
        reason = str(exc) if isinstance(exc, ShopagentError) else f"{type(exc).__name__}: {exc}"
        failures = event.attempts + 1  # `attempts` counts the earlier failures
        if failures >= self._policy.max_attempts:
            log.error(
                "event %d (product %d) dead-lettered after %d failed attempts: %s",
                event.id,
                event.product_id,
                failures,
                reason,
            )
            await self._store.fail(event, reason, None)
            if self._on_failed is not None:
                self._on_failed(event, True)
            return
        delay = Backoff(self._policy.backoff_seconds, self._policy.backoff_max_seconds).delay(failures)
        log.warning(
            "event %d (product %d) failed (attempt %d), retrying in %.1fs: %s",
            event.id,
            event.product_id,
            failures,
            delay,
            reason,
        )
        await self._store.fail(event, reason, delay)
        if self._on_failed is not None:
            self._on_failed(event, False)
