"""MemoryCatalog and MemoryStorePages: the `CatalogRepository` and `StorePageRepository` ports
in memory, for tests that are not about SQL. As on PostgreSQL, every write records its outbox
event in the same step (`MemoryOutbox.record`), a slug is unique, a replace needs the version it
read, and a stock change is checked against the variation's current stock (the contract suite,
tests/test_catalog_contract.py, runs over both)."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import msgspec

from shopagent.adapters.memory.outbox import MemoryOutbox
from shopagent.application.ports import Outcome, distinct_slugs
from shopagent.domain.catalog import Product, ProductDraft, adjusted_stock
from shopagent.domain.errors import Conflict, NotFound, VersionConflict
from shopagent.domain.indexing import EventKind
from shopagent.domain.store_pages import StorePage, StorePageDraft


def _now() -> datetime:
    return datetime.now(UTC)


class MemoryCatalog:
    def __init__(self, outbox: MemoryOutbox, clock: Callable[[], datetime] = _now) -> None:
        self._outbox = outbox
        self._clock = clock
        self.products: dict[int, Product] = {}  # by id, in id order (read by the search twin)
        self._last_id = 0

    async def create(self, draft: ProductDraft) -> Product:
        self._check_slug(draft.slug, None)
        return self._store(self._created(draft), EventKind.UPSERTED)

    async def replace(self, product_id: int, draft: ProductDraft, expected_version: int) -> Product:
        current = self._existing(product_id)
        if current.version != expected_version:
            raise VersionConflict(f"product {product_id} changed meanwhile")
        self._check_slug(draft.slug, product_id)
        return self._store(self._replaced(current, draft), EventKind.UPSERTED)

    async def delete(self, product_id: int) -> bool:
        if self.products.pop(product_id, None) is None:
            return False
        self._outbox.record(EventKind.DELETED, product_id)
        return True

    async def adjust_stock(
        self, product_id: int, variant_key: str, quantity_delta: int, reserved_delta: int
    ) -> Product:
        current = self._existing(product_id)
        keys = [v.key for v in current.variations]
        if variant_key not in keys:
            raise NotFound(f"product {product_id} has no such variation")
        n = keys.index(variant_key)
        changed = adjusted_stock(current.variations[n], quantity_delta, reserved_delta)
        variations = (*current.variations[:n], changed, *current.variations[n + 1 :])
        product = msgspec.structs.replace(
            current, variations=variations, version=current.version + 1, updated_at=self._clock()
        )
        return self._store(product, EventKind.UPSERTED)

    async def upsert_batch(self, drafts: Sequence[ProductDraft]) -> builtins.list[Outcome]:
        distinct_slugs(drafts)
        outcomes: builtins.list[Outcome] = []
        for draft in drafts:  # no await in between: the batch is one step, as PostgreSQL's transaction
            current = next((p for p in self.products.values() if p.slug == draft.slug), None)
            if current is None:
                self._store(self._created(draft), EventKind.UPSERTED)
                outcomes.append("created")
            elif current.draft() == draft:
                outcomes.append("unchanged")
            else:
                self._store(self._replaced(current, draft), EventKind.UPSERTED)
                outcomes.append("updated")
        return outcomes

    async def get(self, product_id: int) -> Product | None:
        return self.products.get(product_id)

    async def get_many(self, product_ids: Sequence[int]) -> dict[int, Product]:
        return {i: self.products[i] for i in product_ids if i in self.products}

    async def get_by_slug(self, slug: str) -> Product | None:
        return next((p for p in self.products.values() if p.slug == slug), None)

    async def list(self, *, limit: int, after_id: int = 0) -> builtins.list[Product]:
        return [p for i, p in self.products.items() if i > after_id][:limit]

    async def count(self) -> int:
        return len(self.products)

    def _created(self, draft: ProductDraft) -> Product:
        self._last_id += 1
        now = self._clock()
        return Product(**msgspec.structs.asdict(draft), id=self._last_id, version=1, created_at=now, updated_at=now)

    def _replaced(self, current: Product, draft: ProductDraft) -> Product:
        fields = msgspec.structs.asdict(draft)
        return msgspec.structs.replace(current, **fields, version=current.version + 1, updated_at=self._clock())

    def _existing(self, product_id: int) -> Product:
        product = self.products.get(product_id)
        if product is None:
            raise NotFound(f"product {product_id} does not exist")
        return product

    def _check_slug(self, slug: str, product_id: int | None) -> None:
        if any(p.slug == slug and p.id != product_id for p in self.products.values()):
            raise Conflict(f"a product with slug {slug!r} already exists")

    def _store(self, product: Product, kind: EventKind) -> Product:
        self.products[product.id] = product
        self._outbox.record(kind, product.id)
        return product


class MemoryStorePages:
    def __init__(self, outbox: MemoryOutbox, clock: Callable[[], datetime] = _now) -> None:
        self._outbox = outbox
        self._clock = clock
        self.pages: dict[int, StorePage] = {}
        self._last_id = 0

    async def create(self, draft: StorePageDraft) -> StorePage:
        self._check_slug(draft.slug, None)
        self._last_id += 1
        now = self._clock()
        page = StorePage(**msgspec.structs.asdict(draft), id=self._last_id, version=1, created_at=now, updated_at=now)
        return self._store(page)

    async def replace(self, page_id: int, draft: StorePageDraft, expected_version: int) -> StorePage:
        current = self.pages.get(page_id)
        if current is None or current.version != expected_version:
            raise VersionConflict(f"store page {draft.slug!r} changed meanwhile")
        self._check_slug(draft.slug, page_id)
        fields = msgspec.structs.asdict(draft)
        return self._store(
            msgspec.structs.replace(current, **fields, version=current.version + 1, updated_at=self._clock())
        )

    async def delete(self, slug: str) -> bool:
        page = await self.get_by_slug(slug)
        if page is None:
            return False
        del self.pages[page.id]
        self._outbox.record(EventKind.PAGE_DELETED, page.id)
        return True

    async def get_by_slug(self, slug: str) -> StorePage | None:
        return next((p for p in self.pages.values() if p.slug == slug), None)

    async def get_many(self, page_ids: Sequence[int]) -> dict[int, StorePage]:
        return {i: self.pages[i] for i in page_ids if i in self.pages}

    async def list(self) -> builtins.list[StorePage]:
        return sorted(self.pages.values(), key=lambda p: p.slug)

    async def count(self) -> int:
        return len(self.pages)

    def _check_slug(self, slug: str, page_id: int | None) -> None:
        if any(p.slug == slug and p.id != page_id for p in self.pages.values()):
            raise Conflict(f"a store page with slug {slug!r} already exists")

    def _store(self, page: StorePage) -> StorePage:
        self.pages[page.id] = page
        self._outbox.record(EventKind.PAGE_UPSERTED, page.id)
        return page
