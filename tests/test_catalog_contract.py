"""The `CatalogRepository` and `StorePageRepository` ports' contract, run against every
implementation (tests/index_backends.py: PostgreSQL and the in-memory twins): unique slugs,
versioned replaces, stock checked against the current stock, and every write queueing its
outbox event with it (a write that is refused queues none)."""

from __future__ import annotations

import msgspec
import pytest

from shopagent.domain.catalog import ProductDraft
from shopagent.domain.errors import Conflict, NotFound, ValidationError, VersionConflict
from shopagent.domain.indexing import EventKind
from shopagent.domain.store_pages import StorePageDraft
from shopagent.domain.validation import validate_product
from tests.factories import product_input

pytestmark = pytest.mark.anyio


async def queued(backend) -> list[tuple[EventKind, int]]:
    """The events queued since the last look (leased away, so each is seen once)."""
    return [(e.kind, e.product_id) for e in await backend.outbox.claim(100, 3600, 5, "reader")]


async def test_products_are_stored_read_back_and_listed_in_id_order(index_backend):
    repository = index_backend.catalog.repository
    boot = await index_backend.catalog.create_product(product_input("alpine-boot"))
    sandal = await index_backend.catalog.create_product(product_input("beach-sandal", name="Beach Sandal"))
    assert await repository.get(boot.id) == boot
    assert (await repository.get_by_slug("beach-sandal")).id == sandal.id
    assert await repository.get_by_slug("nothing") is None and await repository.get(sandal.id + 100) is None
    assert await repository.get_many([sandal.id, boot.id, sandal.id + 100]) == {boot.id: boot, sandal.id: sandal}
    assert [p.id for p in await repository.list(limit=10)] == [boot.id, sandal.id]
    assert [p.id for p in await repository.list(limit=10, after_id=boot.id)] == [sandal.id]
    assert await repository.count() == 2
    assert boot.version == 1 and [v.color for v in boot.variations] == ["black", "brown"]  # in the given order
    assert await queued(index_backend) == [(EventKind.UPSERTED, boot.id), (EventKind.UPSERTED, sandal.id)]


async def test_a_taken_slug_and_a_stale_version_are_refused_and_queue_nothing(index_backend):
    repository = index_backend.catalog.repository
    boot = await index_backend.catalog.create_product(product_input("alpine-boot"))
    sandal = await index_backend.catalog.create_product(product_input("beach-sandal"))
    await queued(index_backend)
    with pytest.raises(Conflict):
        await repository.create(boot.draft())
    with pytest.raises(Conflict):
        await repository.replace(sandal.id, msgspec.structs.replace(sandal.draft(), slug="alpine-boot"), 1)
    renamed = await repository.replace(boot.id, msgspec.structs.replace(boot.draft(), name="Renamed"), 1)
    assert (renamed.name, renamed.version) == ("Renamed", 2)
    with pytest.raises(VersionConflict):
        await repository.replace(boot.id, boot.draft(), 1)
    with pytest.raises(NotFound):
        await repository.replace(sandal.id + 100, boot.draft(), 1)
    assert await queued(index_backend) == [(EventKind.UPSERTED, boot.id)]
    assert await repository.delete(boot.id) and not await repository.delete(boot.id)
    assert await queued(index_backend) == [(EventKind.DELETED, boot.id)]
    assert await repository.count() == 1


async def test_stock_changes_are_checked_against_the_current_stock(index_backend):
    repository = index_backend.catalog.repository
    boot = await index_backend.catalog.create_product(product_input("alpine-boot"))
    await queued(index_backend)
    black = boot.variations[0]  # 5 units, 1 reserved
    changed = await repository.adjust_stock(boot.id, black.key, -2, 1)
    assert (changed.variations[0].quantity, changed.variations[0].reserved, changed.version) == (3, 2, 2)
    with pytest.raises(ValidationError):
        await repository.adjust_stock(boot.id, black.key, -2, 0)  # fewer than reserved
    with pytest.raises(NotFound):
        await repository.adjust_stock(boot.id, "no-such-variation", 1, 0)
    with pytest.raises(NotFound):
        await repository.adjust_stock(boot.id + 100, black.key, 1, 0)
    assert await queued(index_backend) == [(EventKind.UPSERTED, boot.id)]
    assert (await repository.get(boot.id)).variations[0].quantity == 3


async def test_a_batch_creates_replaces_and_leaves_alone_by_slug_each_written_one_queueing_its_event(index_backend):
    repository, service = index_backend.catalog.repository, index_backend.catalog
    boot = await service.create_product(product_input("alpine-boot"))
    sandal = await service.create_product(product_input("beach-sandal"))
    await queued(index_backend)
    drafts = [
        msgspec.structs.replace(sandal.draft(), name="Beach Sandal II"),
        boot.draft(),
        validate(service, product_input("city-loafer")),
    ]
    assert await repository.upsert_batch(drafts) == ["updated", "unchanged", "created"]
    loafer = await repository.get_by_slug("city-loafer")
    assert loafer is not None and loafer.draft() == drafts[2] and loafer.version == 1
    changed = await repository.get(sandal.id)
    assert (changed.name, changed.version, changed.variations) == ("Beach Sandal II", 2, sandal.variations)
    assert await repository.get(boot.id) == boot  # equal to its draft: not written, version kept
    assert await queued(index_backend) == [(EventKind.UPSERTED, sandal.id), (EventKind.UPSERTED, loafer.id)]
    assert await repository.upsert_batch(drafts) == ["unchanged"] * 3 and await queued(index_backend) == []
    assert await repository.upsert_batch([]) == []


async def test_a_batch_naming_a_slug_twice_is_refused_and_writes_nothing(index_backend):
    repository, service = index_backend.catalog.repository, index_backend.catalog
    loafer = validate(service, product_input("city-loafer"))
    with pytest.raises(ValueError, match="slug twice"):
        await repository.upsert_batch([loafer, validate(service, product_input("boot")), loafer])
    assert await repository.count() == 0 and await queued(index_backend) == []


async def test_a_batch_replaces_the_variation_set_whole(index_backend):
    repository, service = index_backend.catalog.repository, index_backend.catalog
    boot = await service.create_product(product_input("alpine-boot"))
    one = msgspec.structs.replace(boot.draft(), variations=boot.draft().variations[1:])
    assert await repository.upsert_batch([one]) == ["updated"]
    assert [v.color for v in (await repository.get(boot.id)).variations] == ["brown"]


def validate(service, data) -> ProductDraft:
    return validate_product(data, service.rules)


def page(slug: str = "shipping", text: str = "We ship within Germany.") -> StorePageDraft:
    return StorePageDraft(slug=slug, title=slug.title(), text=text, url=None, language="en")


async def test_store_pages_are_versioned_and_queue_their_own_events(index_backend):
    pages = index_backend.pages
    shipping = await pages.create(page())
    returns = await pages.create(page("returns", "30 days."))
    with pytest.raises(Conflict):
        await pages.create(page())
    changed = await pages.replace(shipping.id, page(text="We ship to Austria too."), shipping.version)
    assert (changed.text, changed.version) == ("We ship to Austria too.", shipping.version + 1)
    with pytest.raises(VersionConflict):
        await pages.replace(shipping.id, page(), shipping.version)
    assert [p.slug for p in await pages.list()] == ["returns", "shipping"]
    assert await pages.get_many([returns.id, returns.id + 100]) == {returns.id: returns}
    assert (await pages.get_by_slug("shipping")).text == "We ship to Austria too."
    assert await pages.delete("returns") and not await pages.delete("returns")
    assert await pages.count() == 1
    assert await queued(index_backend) == [
        (EventKind.PAGE_UPSERTED, shipping.id), (EventKind.PAGE_UPSERTED, returns.id),
        (EventKind.PAGE_UPSERTED, shipping.id), (EventKind.PAGE_DELETED, returns.id),
    ]  # fmt: skip
