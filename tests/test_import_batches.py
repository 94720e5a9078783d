"""`import_products` writes products in batches, one transaction each, every product with its
outbox event in its transaction; a bad product is rejected alone, and a batch another writer
gets in the way of is written a product at a time, losing nothing."""

from __future__ import annotations

import io
import re
import tempfile
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import anyio
import asyncpg
import pytest

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.application.catalog import ImportNote, import_products
from shopagent.domain.catalog import ProductInput
from shopagent.domain.errors import ValidationError
from shopagent.entrypoints.catalog_files import CatalogStream
from shopagent.entrypoints.cli import ImportProgress
from shopagent.wiring.services import open_services
from tests.conftest import settings_for
from tests.factories import product_input
from tests.helpers import eventually
from tests.outage import postgres_link

pytestmark = pytest.mark.anyio

# Per product: the transaction that wrote its row, and the transactions of its outbox events.
_TRANSACTIONS = """
    SELECT p.slug, p.xmin::text AS product_xact, array_agg(e.xmin::text) AS event_xacts
    FROM product p JOIN outbox_event e ON e.product_id = p.id
    GROUP BY p.slug, p.xmin ORDER BY min(e.id)
"""


async def transactions(database: str) -> dict[str, tuple[str, list[str]]]:
    conn = await asyncpg.connect(database)
    try:
        return {r["slug"]: (r["product_xact"], r["event_xacts"]) for r in await conn.fetch(_TRANSACTIONS)}
    finally:
        await conn.close()


async def test_products_are_written_in_batches_each_with_its_event_in_its_transaction(services, database):
    items = [(f"line {n}", product_input(f"boot-{n}")) for n in range(1, 11)]
    items[3] = ("line 4", product_input("boot-4", discount_price=Decimal("999.00")))  # above the price
    items[5] = ("line 6", ValidationError("not valid JSON"))
    items[7] = ("line 8", ImportNote("skipped: a draft"))
    items.append(("line 11", product_input("boot-2", name="Boot Two, renamed")))  # a slug met again
    reported: list[int] = []
    summary = await import_products(services.catalog, items, reported.append, batch_size=3)
    assert (summary.created, summary.updated, summary.unchanged) == (7, 1, 0)
    assert [where for where, _ in summary.rejected] == ["line 4", "line 6"]
    assert summary.notes == [("line 8", "skipped: a draft")]
    assert reported == sorted(reported) and reported[-1] == 11  # settled items only, all in the end

    written = await transactions(database)
    assert list(written) == [f"boot-{n}" for n in (1, 2, 3, 5, 7, 9, 10)]
    assert all(events == [product] for slug, (product, events) in written.items() if slug != "boot-2")
    product, events = written["boot-2"]  # created, then updated by the later line: two events
    assert len(events) == 2 and events[1] == product
    assert (await services.catalog.repository.get_by_slug("boot-2")).name == "Boot Two, renamed"
    batches = [{written[s][0] for s in slugs} for slugs in (("boot-1", "boot-3"), ("boot-5", "boot-7", "boot-9"))]
    assert [len(b) for b in batches] == [1, 1] and batches[0] != batches[1]  # up to 3 a transaction

    again = await import_products(services.catalog, items, batch_size=3)  # as a rerun after a crash
    assert (again.created, again.updated, again.unchanged) == (0, 2, 6)  # boot-2 rewritten twice, as the file says


async def test_a_slug_another_writer_creates_meanwhile_takes_no_batch_mate_down(services, database):
    other = await asyncpg.connect(database)
    try:
        await other.execute("BEGIN")
        await other.execute(
            "INSERT INTO product (slug, name, category, price, currency, price_low, price_high)"
            " VALUES ('boot-5', 'Boot Five', 'Boots', 10, 'EUR', 10, 10)"
        )
        items = [(f"line {n}", product_input(f"boot-{n}")) for n in range(1, 10)]
        summary = None

        async def run_import() -> None:
            nonlocal summary
            summary = await import_products(services.catalog, items, batch_size=3)

        async def import_waits_for_the_other_writer() -> bool:
            return await other.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                tg.start_soon(run_import)
                await eventually(import_waits_for_the_other_writer, timeout=30)  # on boot-5's index entry
                await other.execute("COMMIT")
    finally:
        await other.close()
    assert summary is not None
    assert (summary.created, summary.updated, summary.unchanged, summary.rejected) == (8, 1, 0, [])
    written = await transactions(database)
    assert list(written) == [f"boot-{n}" for n in range(1, 10)]  # each with its event
    assert all(events == [product] for product, events in written.values())
    xacts = [written[f"boot-{n}"][0] for n in range(1, 10)]
    assert len(set(xacts[0:3])) == 1 and len(set(xacts[6:9])) == 1  # whole batches
    assert len(set(xacts[3:6])) == 3  # the contested batch, a product at a time
    boot = await services.catalog.repository.get_by_slug("boot-5")
    assert boot is not None and boot.name == product_input("boot-5").name and len(boot.variations) == 2


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.unit
def test_a_terminal_shows_the_progress_after_each_batch_written():
    file = CatalogStream(records=iter([]), encoding=None, size=1_000, position=lambda: 500)
    terminal = Terminal()
    progress = ImportProgress("importing catalog.jsonl", file, terminal)
    for done in (3, 250, 320, 500, 503):  # as batches of 250 are written among rejected items
        progress(done)
    shown = re.findall(r"\r[^\r]*: (\d+) products", terminal.getvalue())
    assert shown == ["250", "500"]


async def test_batches_the_database_cannot_take_in_an_outage_are_reported_per_product(database):
    with tempfile.TemporaryDirectory(prefix="pglink-") as directory:  # a short path: socket names are limited
        async with (
            postgres_link(database, Path(directory)) as link,
            open_services(settings_for(link.dsn), frozenset(), embedder=HashEmbedder(384)) as services,
        ):

            def items() -> Iterator[tuple[str, ProductInput]]:
                for n in range(1, 10):
                    if n == 4:
                        link.cut()  # after the first batch is written, before the second
                    yield f"line {n}", product_input(f"boot-{n}")

            summary = await import_products(services.catalog, items(), batch_size=3)
    assert summary.created == 3
    assert [where for where, _ in summary.rejected] == [f"line {n}" for n in range(4, 10)]
    assert {why for _, why in summary.rejected} == {"the database is unavailable right now; try again in a moment"}
    conn = await asyncpg.connect(database)
    try:
        assert await conn.fetchval("SELECT count(*) FROM product") == 3
    finally:
        await conn.close()
