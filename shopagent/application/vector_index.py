"""Keeping the model's vector index: built over the stored chunks once a bulk load is in.

Growing an HNSW graph one chunk at a time costs several times more than building it over
chunks already stored, so a bulk load (a first import, a model change, `index rebuild`)
stores the chunks first and builds the index once the backlog is drained.
"""

from __future__ import annotations

import logging
import time

import anyio

from shopagent.application.ports import IndexBuild, VectorIndexSpec
from shopagent.application.ports.indexing import ChunkStore, OutboxBacklog, VectorIndexAdmin
from shopagent.domain.errors import DatabaseUnavailable

log = logging.getLogger("shopagent.indexing")

_RECHECK_SECONDS = 60.0  # how often a keeper with nothing to do checks the index is still there
_PENDING_POLL_SECONDS = 1.0  # how often a keeper with an index to build looks whether it can
PATIENCE_SECONDS = 60.0  # pending this long, a backlog under the bulk size no longer holds a build back
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
        index: VectorIndexAdmin,
        outbox: OutboxBacklog,
        chunks: ChunkStore,
        model: str,
        dimension: int,
        spec: VectorIndexSpec,
        *,
        bulk_load_events: int,
        max_attempts: int,
        patience_seconds: float = PATIENCE_SECONDS,
    ) -> None:
        self._index = index
        self._outbox = outbox
        self._chunks = chunks
        self._model = model
        self._dimension = dimension
        self._spec = spec
        self._bulk_load_events = bulk_load_events
        self._max_attempts = max_attempts
        self.patience_seconds = patience_seconds  # see `_waited_long_enough`
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
        state = await self._index.state(self._model)
        return state.ready and state.settings == self._spec.describe()

    async def prepare(self, *, rebuild: bool = False) -> None:
        """Look at the index and the backlog; drop the index for a bulk load or a `rebuild`."""
        state = await self._index.state(self._model)
        backlog = await self._outbox.products_waiting(self._max_attempts)
        indexed = await self._chunks.products_indexed(self._model)
        self._checked_at = time.monotonic()
        bulk = 0 < self._bulk_load_events <= backlog and backlog > indexed
        if state.ready and (bulk or rebuild):
            await self._index.drop(self._model)
            log.info(
                "dropped the vector index of %s; it is built anew once the %d product(s) queued are indexed",
                self._model,
                backlog,
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
            if await self._outbox.has_backlog(self._max_attempts) and not await self._waited_long_enough():
                return
            began = time.monotonic()
            try:
                outcome = await self._index.build(self._model, self._dimension, self._spec)
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
        if time.monotonic() - self._pending_since < self.patience_seconds:
            return False
        backlog = await self._outbox.products_waiting(self._max_attempts)
        return self._bulk_load_events == 0 or backlog < self._bulk_load_events

    async def maintain(self) -> None:
        """Settle now and then, forever: builds the index even when no event comes by."""
        while True:
            try:
                await self.settle()
            except DatabaseUnavailable:  # paused with the rest of the indexer
                await anyio.sleep(_PENDING_POLL_SECONDS)
                continue
            await anyio.sleep(_PENDING_POLL_SECONDS if self._to_build else _RECHECK_SECONDS)
