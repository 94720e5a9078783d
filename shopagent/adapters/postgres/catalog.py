"""PostgresCatalog: products and variations, each write with its outbox event in one transaction.

Invariant the indexer relies on: every write locks (updates) the product row BEFORE it
inserts the outbox event, so for one product the events' ids follow commit order.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import asyncpg

from shopagent.adapters.postgres.pool import Connection, ConnectionPool
from shopagent.domain.catalog import Product, ProductDraft, Variation, adjusted_stock
from shopagent.domain.errors import Conflict, NotFound, VersionConflict
from shopagent.domain.indexing import EventKind
from shopagent.domain.options import option_folded

OUTBOX_CHANNEL = "shopagent_outbox"

_PRODUCT_COLUMNS = """
    p.id, p.slug, p.name, p.description, p.brand, p.material, p.category, p.price, p.discount_price,
    p.currency, p.rating, p.main_image, p.images, p.option_names, p.specs, p.url, p.external_id,
    p.version, p.created_at, p.updated_at,
    coalesce(
        (SELECT jsonb_agg(jsonb_build_object('color', v.color, 'size', v.size, 'options', v.options,
                                             'quantity', v.quantity, 'reserved', v.reserved,
                                             'weight_grams', v.weight_grams, 'price', v.price::text,
                                             'discount_price', v.discount_price::text, 'sku', v.sku,
                                             'external_id', v.external_id, 'url', v.url, 'specs', v.specs)
                          ORDER BY v.position, v.variant_key)
         FROM product_variation v WHERE v.product_id = p.id),
        '[]'::jsonb
    ) AS variations
"""
_PRODUCT_FIELDS = (
    "slug, name, description, brand, material, category, price, discount_price, currency, rating, main_image, "
    "images, option_names, specs, url, external_id, price_low, price_high"
)


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
                    INSERT INTO product ({_PRODUCT_FIELDS})
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
                    RETURNING id
                    """,
                    *_product_values(draft),
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
                    *_product_values(draft),
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

    async def get(self, product_id: int) -> Product | None:
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(f"SELECT {_PRODUCT_COLUMNS} FROM product p WHERE p.id = $1", product_id)
        return _product(row) if row else None

    async def get_many(self, product_ids: Sequence[int]) -> dict[int, Product]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                f"SELECT {_PRODUCT_COLUMNS} FROM product p WHERE p.id = ANY($1::bigint[])", product_ids
            )
        return {r["id"]: _product(r) for r in rows}

    async def get_by_slug(self, slug: str) -> Product | None:
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(f"SELECT {_PRODUCT_COLUMNS} FROM product p WHERE p.slug = $1", slug)
        return _product(row) if row else None

    async def list(self, *, limit: int, after_id: int = 0) -> list[Product]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                f"SELECT {_PRODUCT_COLUMNS} FROM product p WHERE p.id > $1 ORDER BY p.id LIMIT $2", after_id, limit
            )
        return [_product(r) for r in rows]

    async def count(self) -> int:
        async with self._pool.acquire() as conn:
            return await conn.fetchval("SELECT count(*) FROM product")


async def _fetch(conn: Connection, product_id: int) -> Product:
    row = await conn.fetchrow(f"SELECT {_PRODUCT_COLUMNS} FROM product p WHERE p.id = $1", product_id)
    if row is None:
        raise NotFound(f"product {product_id} does not exist")
    return _product(row)


async def _insert_variations(conn: Connection, product_id: int, draft: ProductDraft) -> None:
    await conn.executemany(
        """
        INSERT INTO product_variation (product_id, color, size, options, option_keys, variant_key, quantity,
                                       reserved, weight_grams, price, discount_price, paid_price, sku,
                                       external_id, url, specs, position)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
        """,
        [(*_variation_values(product_id, draft, v), n) for n, v in enumerate(draft.variations)],
    )


def _variation_values(product_id: int, draft: ProductDraft, v: Variation) -> tuple[object, ...]:
    return (
        *(product_id, v.color, v.size, v.options, option_keys(v), v.key, v.quantity, v.reserved, v.weight_grams),
        *(v.price, v.discount_price, draft.paid_price(v), v.sku, v.external_id, v.url, v.specs),
    )


def option_keys(variation: Variation) -> dict[str, str]:
    """The variation's options folded, as the search filters compare them."""
    return {option_folded(name): option_folded(value) for name, value in variation.options.items()}


def _product_values(d: ProductDraft) -> tuple[object, ...]:
    paid = [d.paid_price(v) for v in d.variations]
    return (
        d.slug,
        d.name,
        d.description,
        d.brand,
        d.material,
        d.category,
        d.price,
        d.discount_price,
        d.currency,
        d.rating,
        d.main_image,
        list(d.images),
        list(d.option_names),
        d.specs,
        d.url,
        d.external_id,
        min(paid),
        max(paid),
    )


def _product(row: asyncpg.Record) -> Product:
    return Product(
        id=row["id"],
        slug=row["slug"],
        name=row["name"],
        description=row["description"],
        brand=row["brand"],
        material=row["material"],
        category=row["category"],
        price=row["price"],
        discount_price=row["discount_price"],
        currency=row["currency"],
        rating=float(row["rating"]) if row["rating"] is not None else None,
        main_image=row["main_image"],
        images=tuple(row["images"]),
        variations=tuple(_variation(v, row["option_names"]) for v in row["variations"]),
        option_names=tuple(row["option_names"]),
        specs=row["specs"],
        url=row["url"],
        external_id=row["external_id"],
        version=row["version"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def _variation(v: dict[str, Any], names: list[str]) -> Variation:
    prices = {k: Decimal(v[k]) if v[k] is not None else None for k in ("price", "discount_price")}
    options = {name: v["options"][name] for name in names if name in v["options"]}  # in the product's order
    return Variation(**{**v, **prices, "options": options})
