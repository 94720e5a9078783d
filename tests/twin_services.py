"""The use cases over the in-memory twins (shopagent.adapters.memory), wired as
`wiring.services` wires them over PostgreSQL: the catalog, its search, the store pages and
their search, the indexing and the MCP server. No database and no process: tests of the agent
loop, the offline assistant, search ranking and the conversations that are not about SQL use
this (the `unit` tier); the PostgreSQL wiring keeps its own tests of the adapters and the
end-to-end paths."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.memory.storage import MemoryStorage
from shopagent.application.catalog import CatalogService
from shopagent.application.indexing import IndexProducts
from shopagent.application.ports import EmbeddingModel
from shopagent.application.search import CatalogSearch
from shopagent.application.store_pages import (
    IndexStorePages,
    StoreInformationSearch,
    StorePageService,
    StoreSearchPolicy,
)
from shopagent.settings import EmbeddingSettings, Settings
from shopagent.wiring.policies import indexing_policy, passage_grading_for, search_policy, store_links
from shopagent.wiring.providers import option_words


@dataclass
class TwinServices:
    """What `SearchServices` and the indexing give a test, over one `MemoryStorage`."""

    settings: Settings
    storage: MemoryStorage
    embedder: EmbeddingModel
    catalog: CatalogService
    store_pages: StorePageService
    search: CatalogSearch
    store_information: StoreInformationSearch
    index_product: IndexProducts

    @property
    def outbox(self) -> Any:
        return self.storage.outbox

    @property
    def conversations(self) -> Any:
        return self.storage.conversations

    @cached_property
    def mcp_server(self) -> Any:
        from shopagent.entrypoints.mcp.server import build_mcp_server

        store = self.settings.store
        return build_mcp_server(self.search, store.name, store.currency, store_information=self.store_information)

    async def index_everything(self) -> None:
        """Index what the outbox holds, as the indexer would."""
        while events := await self.outbox.claim(64, 60, 5, "twins"):
            await self.index_product.index(events)


def twin_services(settings: Settings | None = None, embedder: EmbeddingModel | None = None) -> TwinServices:
    """The services over fresh, empty twins (the hash embedder unless told otherwise)."""
    settings = settings or Settings(embedding=EmbeddingSettings(model="hash"))
    embedder = embedder or HashEmbedder(settings.embedding.hash_dimensions)
    storage = MemoryStorage()
    catalog = CatalogService(storage.catalog, option_words(settings).rules)
    search = CatalogSearch(
        embedder,
        storage.search,
        storage.catalog,
        catalog.rules,
        search_policy(settings, embedder.model_id),
        store_links(settings),
    )
    policy = indexing_policy(settings)
    pages = IndexStorePages(storage.store_pages, storage.passages, storage.unit, embedder, policy.token_budget)
    return TwinServices(
        settings=settings,
        storage=storage,
        embedder=embedder,
        catalog=catalog,
        store_pages=StorePageService(storage.store_pages, settings.store.language),
        search=search,
        store_information=StoreInformationSearch(
            embedder, storage.passages, StoreSearchPolicy(grading=passage_grading_for(embedder.model_id))
        ),
        index_product=IndexProducts(
            storage.catalog, storage.outbox, storage.chunks, storage.unit, embedder, policy, pages=pages
        ),
    )
