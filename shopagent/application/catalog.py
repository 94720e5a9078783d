"""Catalog use cases: validate at the edge, then one repository write (which carries its
outbox event). Nothing is written when validation fails."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import msgspec

from shopagent.application.ports import CatalogRepository, Outcome
from shopagent.domain.catalog import (
    CatalogRules,
    Product,
    ProductDraft,
    ProductInput,
    ProductPatch,
    apply_patch,
    find_variation,
)
from shopagent.domain.errors import Conflict, NotFound, ShopagentError, VersionConflict
from shopagent.domain.validation import validate_product

log = logging.getLogger("shopagent.catalog")

# Products an import writes per transaction. At 10,000 products (bench/import_rate.py, see
# bench/README.md) the rate rose from 572/s (1 a transaction) to 2,055/s (25) and ~3,400/s (100)
# and stayed there up to 2,000; 250 holds fewer locks and drafts, and redoes less a product at a
# time when a concurrent writer gets in its way, than the larger sizes that are no faster.
IMPORT_BATCH = 250


class CatalogService:
    def __init__(self, repository: CatalogRepository, rules: CatalogRules) -> None:
        self.repository = repository
        self.rules = rules

    async def create_product(self, data: ProductInput) -> Product:
        return await self.repository.create(validate_product(data, self.rules))

    async def update_product(self, product_id: int, patch: ProductPatch) -> Product:
        """Apply a partial update; given `variations` replace the whole set."""
        if patch.id is not msgspec.UNSET and patch.id != product_id:
            raise Conflict(f"the body is product {patch.id} but the URL names product {product_id}")
        for _ in range(3):  # re-apply on a concurrent change, a few times
            current = await self.get_product(product_id)
            draft = validate_product(apply_patch(current, patch), self.rules)
            if draft == current.draft():
                return current
            try:
                return await self.repository.replace(product_id, draft, current.version)
            except VersionConflict:
                continue
        raise Conflict(f"product {product_id} is being changed by someone else; try again")

    async def delete_product(self, product_id: int) -> None:
        if not await self.repository.delete(product_id):
            raise NotFound(f"product {product_id} does not exist")

    async def adjust_stock(
        self,
        product_id: int,
        color: str = "",
        size: str = "",
        quantity_delta: int = 0,
        reserved_delta: int = 0,
        *,
        options: Mapping[str, str] | None = None,
        sku: str | None = None,
    ) -> Product:
        """Change one variation's stock; the variation is named by its SKU, or by its colour, size
        and option values (as the shop writes them, case and accents ignored)."""
        for _ in range(3):  # the variation is found on the product as read; retried if it changed meanwhile
            product = await self.get_product(product_id)
            variation = find_variation(product, self.rules, color, size, options or {}, sku)
            if variation is None:
                named = f"SKU {sku!r}" if sku else " ".join(p for p in (color, size, *(options or {}).values()) if p)
                raise NotFound(f"product {product_id} has no variation {named or 'without colour, size or options'}")
            try:
                return await self.repository.adjust_stock(product_id, variation.key, quantity_delta, reserved_delta)
            except NotFound:
                continue
        raise Conflict(f"product {product_id} is being changed by someone else; try again")

    async def get_product(self, product_id: int) -> Product:
        product = await self.repository.get(product_id)
        if product is None:
            raise NotFound(f"product {product_id} does not exist")
        return product

    async def list_products(self, *, limit: int = 50, after_id: int = 0) -> list[Product]:
        return await self.repository.list(limit=limit, after_id=after_id)

    async def upsert_by_slug(self, data: ProductInput) -> tuple[Outcome, Product]:
        """Create or replace the product with this slug: ("created" | "updated" | "unchanged", product)."""
        return await self.upsert_draft(validate_product(data, self.rules))

    async def upsert_draft(self, draft: ProductDraft) -> tuple[Outcome, Product]:
        """`upsert_by_slug` of a draft already validated."""
        for _ in range(3):
            current = await self.repository.get_by_slug(draft.slug)
            if current is None:
                try:
                    return "created", await self.repository.create(draft)
                except Conflict:
                    continue  # created concurrently: compare with it
            if draft == current.draft():
                return "unchanged", current
            try:
                return "updated", await self.repository.replace(current.id, draft, current.version)
            except (VersionConflict, NotFound):
                continue
        raise Conflict(f"product {draft.slug!r} is being changed by someone else; try again")


@dataclass(frozen=True)
class ImportNote:
    """What an import did differently from the file, or skipped, and why (not a rejection)."""

    text: str

    def __str__(self) -> str:
        return self.text


@dataclass
class ImportSummary:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (where, why)
    notes: list[tuple[str, str]] = field(default_factory=list)  # (where, what)

    def count(self, outcome: Outcome) -> None:
        setattr(self, outcome, getattr(self, outcome) + 1)

    @property
    def total(self) -> int:
        return self.created + self.updated + self.unchanged + len(self.rejected)


async def import_products(
    service: CatalogService,
    items: Iterable[tuple[str, ProductInput | ShopagentError | ImportNote]],
    progress: Callable[[int], None] | None = None,
    *,
    batch_size: int = IMPORT_BATCH,
) -> ImportSummary:
    """Upsert each parsed product by slug; a bad one is recorded and skipped, never fatal.

    `items` is taken one at a time (a file streamed as it is read). Each product is validated as
    it comes (a bad one never reaches the database), then written with up to `batch_size - 1`
    others in one transaction, by slug, each with its outbox event. An import cut short (a crash,
    a lost connection) leaves only whole products, and running it again writes the rest and finds
    the others unchanged. A batch that cannot be written whole (another writer created one of
    its slugs meanwhile) is written again a product at a time, so one product's failure never
    takes its batch-mates down. `progress` is told how many items are settled (written, found
    unchanged, rejected or noted) whenever nothing taken is left unwritten."""
    summary = ImportSummary()
    batch: dict[str, tuple[str, ProductDraft]] = {}  # by slug: a slug met again ends the batch
    done = 0
    for done, (where, item) in enumerate(items, start=1):
        if isinstance(item, ImportNote):
            summary.notes.append((where, item.text))
        elif isinstance(item, ShopagentError):
            summary.rejected.append((where, str(item)))
        else:
            try:
                draft = validate_product(item, service.rules)
            except ShopagentError as exc:
                summary.rejected.append((where, str(exc)))
            else:
                if draft.slug in batch:
                    await _write_batch(service, batch, summary)
                batch[draft.slug] = (where, draft)
                if len(batch) >= batch_size:
                    await _write_batch(service, batch, summary)
        if progress is not None and not batch:
            progress(done)
    if batch:
        await _write_batch(service, batch, summary)
        if progress is not None:
            progress(done)
    return summary


async def _write_batch(
    service: CatalogService, batch: dict[str, tuple[str, ProductDraft]], summary: ImportSummary
) -> None:
    taken = list(batch.values())
    batch.clear()
    try:
        outcomes = await service.repository.upsert_batch([draft for _, draft in taken])
    except Conflict as exc:
        log.info("writing %d products one at a time: %s", len(taken), exc)
        for where, draft in taken:
            try:
                outcome, _ = await service.upsert_draft(draft)
            except ShopagentError as error:
                summary.rejected.append((where, str(error)))
            else:
                summary.count(outcome)
    except ShopagentError as exc:  # the database is away or full: said of each, as when written one by one
        summary.rejected.extend((where, str(exc)) for where, _ in taken)
    else:
        for outcome in outcomes:
            summary.count(outcome)


async def import_if_empty(
    service: CatalogService, read_items: Callable[[], Sequence[tuple[str, ProductInput | ShopagentError | ImportNote]]]
) -> ImportSummary | None:
    """Import the products `read_items` gives into an empty catalog (the demo's sample
    catalog); None, reading nothing, when the catalog has products already."""
    if await service.repository.count() > 0:
        return None
    return await import_products(service, read_items())
