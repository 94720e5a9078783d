"""MemoryStorage: every storage twin over one shared store, wired as the database ties the
PostgreSQL adapters together (the catalog's writes queue outbox events, a deleted product takes
its chunks along, the unit of work completes events). For use-case, agent and assistant tests
that are not about SQL."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

from shopagent.adapters.memory.catalog import MemoryCatalog, MemoryStorePages
from shopagent.adapters.memory.chunk_store import MemoryChunkStore, MemoryIndexingUnitOfWork, MemoryPassageStore
from shopagent.adapters.memory.conversations import MemoryConversations
from shopagent.adapters.memory.outbox import MemoryOutbox
from shopagent.adapters.memory.rate_limits import MemoryRateLimits
from shopagent.adapters.memory.search import MemorySearchIndex
from shopagent.domain.indexing import EventKind, IndexBuild, VectorIndexSpec, VectorIndexState


class MemoryVectorIndexAdmin:
    """The `VectorIndexAdmin` port with no index behind it (the search twin is always exact):
    it keeps which model's index was built with which settings, under pgvector's rules."""

    def __init__(self) -> None:
        self._built: dict[str, str] = {}
        self.building_elsewhere = False  # while True, another process seems to be building

    async def state(self, model: str) -> VectorIndexState:
        settings = self._built.get(model)
        return VectorIndexState(ready=settings is not None, settings=settings)

    async def build(self, model: str, dimension: int, spec: VectorIndexSpec) -> IndexBuild:
        if self.building_elsewhere:
            return IndexBuild.BUSY
        if model in self._built:
            return IndexBuild.EXISTED
        if spec.ef_construction < 2 * spec.m:
            raise ValueError(f"ef_construction must be greater than or equal to 2 * m (m={spec.m})")
        self._built[model] = spec.describe()
        return IndexBuild.BUILT

    async def drop(self, model: str) -> bool:
        return self._built.pop(model, None) is not None

    @contextlib.contextmanager
    def built_elsewhere(self) -> Iterator[None]:
        self.building_elsewhere = True
        try:
            yield
        finally:
            self.building_elsewhere = False


class MemoryStorage:
    def __init__(self, clock: Callable[[], float] = time.monotonic, text_config: str = "english") -> None:
        self.outbox = MemoryOutbox(self, clock)
        self.catalog = MemoryCatalog(self.outbox)
        self.store_pages = MemoryStorePages(self.outbox)
        self.chunks = MemoryChunkStore(self.catalog, text_config)
        self.passages = MemoryPassageStore(self.store_pages)
        self.unit = MemoryIndexingUnitOfWork(self.outbox, self.chunks, self.passages)
        self.vector_index = MemoryVectorIndexAdmin()
        self.search = MemorySearchIndex(self.catalog, self.chunks)
        self.conversations = MemoryConversations()
        self.rate_limits = MemoryRateLimits()

    def every_aggregate(self) -> list[tuple[EventKind, int]]:
        return [(EventKind.UPSERTED, i) for i in self.catalog.products] + [
            (EventKind.PAGE_UPSERTED, i) for i in self.store_pages.pages
        ]

    def indexed_with_other_models(self, model: str) -> list[tuple[EventKind, int]]:
        products = [(EventKind.UPSERTED, i) for i, s in self.chunks.stored().items() if s.model != model]
        pages = [(EventKind.PAGE_UPSERTED, i) for i, s in self.passages.stored().items() if s.model != model]
        return sorted(products) + sorted(pages)
