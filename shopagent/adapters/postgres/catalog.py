"""PostgresCatalog: products and variations, each write with its outbox event in one transaction.

Invariant the indexer relies on: every write locks (updates) the product row BEFORE it
inserts the outbox event, so for one product the events' ids follow commit order.
"""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from shopagent.adapters.postgres.catalog_batch import write_batch
from shopagent.adapters.postgres.catalog_rows import (
    INSERT_VARIATION,
    PRODUCT_COLUMNS,
    PRODUCT_FIELDS,
    product_from_row,
    product_values,
    variation_rows,
)
from shopagent.adapters.postgres.pool import Connection, ConnectionPool
from shopagent.application.ports import Outcome, distinct_slugs
from shopagent.domain.catalog import Product, ProductDraft, Variation, adjusted_stock
from shopagent.domain.errors import Conflict, NotFound, VersionConflict
from shopagent.domain.indexing import EventKind

OUTBOX_CHANNEL = "shopagent_outbox"


async def record_event(conn: Connection, kind: EventKind, product_id: int) -> None:
    """Insert an outbox event and notify listeners (delivered when the transaction commits)."""
    await conn.execute("INSERT INTO outbox_event (kind, product_id) VALUES ($1, $2)", kind.value, product_id)
    await conn.execute("SELECT pg_notify($1, '')", OUTBOX_CHANNEL)


class PostgresCatalog:
    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool

    async def create(self, draft: ProductDraft) -> Product:
        async with self._pool.acquire() as conn, conn.transaction():
            try:
                product_id = await conn.fetchval(
                    f"""
                    INSERT INTO product ({PRODUCT_FIELDS})
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
                    RETURNING id
                    """,
                    *product_values(draft),
                )
            except asyncpg.UniqueViolationError:
                raise Conflict(f"a product with slug {draft.slug!r} already exists") from None
            await _insert_variations(conn, product_id, draft)
            await record_event(conn, EventKind.UPSERTED, product_id)
            return await _fetch(conn, product_id)

    async def replace(self, product_id: int, draft: ProductDraft, expected_version: int) -> Product:
        async with self._pool.acquire() as conn, conn.transaction():
            try:
                updated = await conn.fetchval(
                    """
                    UPDATE product SET slug = $1, name = $2, description = $3, brand = $4, material = $5,
                        category = $6, price = $7, discount_price = $8, currency = $9, rating = $10,
                        main_image = $11, images = $12, option_names = $13, specs = $14, url = $15,
                        external_id = $16, price_low = $17, price_high = $18,
                        version = version + 1, updated_at = now()
                    WHERE id = $19 AND version = $20
                    RETURNING id
                    """,
                    *product_values(draft),
                    product_id,
                    expected_version,
                )
            except asyncpg.UniqueViolationError:
                raise Conflict(f"a product with slug {draft.slug!r} already exists") from None
            if updated is None:
                exists = await conn.fetchval("SELECT 1 FROM product WHERE id = $1", product_id)
                if not exists:
                    raise NotFound(f"product {product_id} does not exist")
                raise VersionConflict(f"product {product_id} changed meanwhile")
            await conn.execute("DELETE FROM product_variation WHERE product_id = $1", product_id)
            await _insert_variations(conn, product_id, draft)
            await record_event(conn, EventKind.UPSERTED, product_id)
            return await _fetch(conn, product_id)

    async def delete(self, product_id: int) -> bool:
        async with self._pool.acquire() as conn, conn.transaction():
            # Variations, chunks and the index record go with it (ON DELETE CASCADE).
            deleted = await conn.fetchval("DELETE FROM product WHERE id = $1 RETURNING id", product_id)
            if deleted is None:
                return False
            await record_event(conn, EventKind.DELETED, product_id)
            return True

    async def adjust_stock(
        self, product_id: int, variant_key: str, quantity_delta: int, reserved_delta: int
    ) -> Product:
        async with self._pool.acquire() as conn, conn.transaction():
            bumped = await conn.fetchval(
                "UPDATE product SET version = version + 1, updated_at = now() WHERE id = $1 RETURNING id", product_id
            )
            if bumped is None:
                raise NotFound(f"product {product_id} does not exist")
            # The product row is locked by the version bump above, so concurrent changes of this
            # product queue here and each checks the bounds against the stock the previous one left.
            row = await conn.fetchrow(
                """
                SELECT color, size, options, quantity, reserved FROM product_variation
                WHERE product_id = $1 AND variant_key = $2 FOR UPDATE
                """,
                product_id,
                variant_key,
            )
            if row is None:
                raise NotFound(f"product {product_id} has no such variation")
            current = Variation(
                color=row["color"], size=row["size"], options=row["options"], quantity=row["quantity"],
                reserved=row["reserved"],
            )  # fmt: skip
            changed = adjusted_stock(current, quantity_delta, reserved_delta)
            await conn.execute(
                "UPDATE product_variation SET quantity = $3, reserved = $4 WHERE product_id = $1 AND variant_key = $2",
                product_id,
                variant_key,
                changed.quantity,
                changed.reserved,
            )
            await record_event(conn, EventKind.UPSERTED, product_id)
            return await _fetch(conn, product_id)

    async def upsert_batch(self, drafts: Sequence[ProductDraft]) -> list[Outcome]:
        slugs = distinct_slugs(drafts)
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                outcomes = await write_batch(conn, drafts, slugs)
                if any(outcome != "unchanged" for outcome in outcomes):
                    await conn.execute("SELECT pg_notify($1, '')", OUTBOX_CHANNEL)
                return outcomes
        except asyncpg.UniqueViolationError:
            raise Conflict("a product of the batch was created meanwhile by another writer") from None
        except asyncpg.DeadlockDetectedError:
            raise Conflict("the batch crossed another writer's products") from None

    async def get(self, product_id: int) -> Product | None:
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(f"SELECT {PRODUCT_COLUMNS} FROM product p WHERE p.id = $1", product_id)
        return product_from_row(row) if row else None

    async def get_many(self, product_ids: Sequence[int]) -> dict[int, Product]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                f"SELECT {PRODUCT_COLUMNS} FROM product p WHERE p.id = ANY($1::bigint[])", product_ids
            )
        return {r["id"]: product_from_row(r) for r in rows}

    async def get_by_slug(self, slug: str) -> Product | None:
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(f"SELECT {PRODUCT_COLUMNS} FROM product p WHERE p.slug = $1", slug)
        return product_from_row(row) if row else None

    async def list(self, *, limit: int, after_id: int = 0) -> list[Product]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                f"SELECT {PRODUCT_COLUMNS} FROM product p WHERE p.id > $1 ORDER BY p.id LIMIT $2", after_id, limit
            )
        return [product_from_row(r) for r in rows]

    async def count(self) -> int:
        async with self._pool.acquire() as conn:
            return await conn.fetchval("SELECT count(*) FROM product")


async def _fetch(conn: Connection, product_id: int) -> Product:
    row = await conn.fetchrow(f"SELECT {PRODUCT_COLUMNS} FROM product p WHERE p.id = $1", product_id)
    if row is None:
        raise NotFound(f"product {product_id} does not exist")
    return product_from_row(row)


async def _insert_variations(conn: Connection, product_id: int, draft: ProductDraft) -> None:
    await conn.executemany(INSERT_VARIATION, variation_rows(product_id, draft))
