"""Many products by slug in one transaction (the import's batches): a statement per kind of
row for the whole batch instead of a transaction and a handful of round trips per product.

Same invariant as PostgresCatalog's single writes: a product's row is locked (read FOR UPDATE,
or inserted) before its outbox event is inserted, so for one product the events' ids follow
commit order."""

from __future__ import annotations

from collections.abc import Sequence

from shopagent.adapters.postgres.catalog_rows import (
    INSERT_VARIATION,
    PRODUCT_COLUMNS,
    PRODUCT_FIELDS,
    product_from_row,
    product_values,
    variation_rows,
)
from shopagent.adapters.postgres.pool import Connection
from shopagent.application.ports import Outcome
from shopagent.domain.catalog import ProductDraft
from shopagent.domain.indexing import EventKind

_INSERT = f"""
    INSERT INTO product (id, {PRODUCT_FIELDS}) OVERRIDING SYSTEM VALUE
    VALUES ($19, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
"""
_REPLACE = """
    UPDATE product SET slug = $1, name = $2, description = $3, brand = $4, material = $5,
        category = $6, price = $7, discount_price = $8, currency = $9, rating = $10,
        main_image = $11, images = $12, option_names = $13, specs = $14, url = $15,
        external_id = $16, price_low = $17, price_high = $18,
        version = version + 1, updated_at = now()
    WHERE id = $19
"""


async def write_batch(conn: Connection, drafts: Sequence[ProductDraft], slugs: list[str]) -> list[Outcome]:
    """Inside the caller's transaction: lock the products the slugs name (in id order, as any
    other batch does), then insert the new ones, replace the changed ones and queue an event for
    each written, in the drafts' order. The caller turns a unique violation (a slug created
    meanwhile) or a deadlock into Conflict."""
    rows = await conn.fetch(
        f"SELECT {PRODUCT_COLUMNS} FROM product p WHERE p.slug = ANY($1::text[]) ORDER BY p.id FOR UPDATE",
        slugs,
    )
    current = {row["slug"]: product_from_row(row) for row in rows}
    new = [d for d in drafts if d.slug not in current]
    ids = await _new_ids(conn, len(new))
    written: dict[str, int] = dict(zip((d.slug for d in new), ids, strict=True))
    changed = [d for d in drafts if d.slug in current and current[d.slug].draft() != d]
    written |= {d.slug: current[d.slug].id for d in changed}
    if new:
        await conn.executemany(_INSERT, [(*product_values(d), written[d.slug]) for d in new])
    if changed:
        await conn.executemany(_REPLACE, [(*product_values(d), written[d.slug]) for d in changed])
        await conn.execute(
            "DELETE FROM product_variation WHERE product_id = ANY($1::bigint[])", [written[d.slug] for d in changed]
        )
    variations = [row for d in (*new, *changed) for row in variation_rows(written[d.slug], d)]
    if variations:
        await conn.executemany(INSERT_VARIATION, variations)
    await conn.execute(
        """
        INSERT INTO outbox_event (kind, product_id)
        SELECT $1, e.product_id FROM unnest($2::bigint[]) WITH ORDINALITY AS e(product_id, n) ORDER BY e.n
        """,
        EventKind.UPSERTED.value,
        [written[s] for s in slugs if s in written],
    )
    return [("created" if s not in current else "updated" if s in written else "unchanged") for s in slugs]


async def _new_ids(conn: Connection, count: int) -> list[int]:
    if count == 0:
        return []
    rows = await conn.fetch(
        "SELECT nextval(pg_get_serial_sequence('product', 'id')) AS id FROM generate_series(1, $1)", count
    )
    return [row["id"] for row in rows]
