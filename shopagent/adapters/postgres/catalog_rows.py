"""The product and variation rows as PostgresCatalog writes and reads them (shared with the
batched import's writes, catalog_batch)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import asyncpg

from shopagent.domain.catalog import Product, ProductDraft, Variation
from shopagent.domain.options import option_folded

PRODUCT_COLUMNS = """
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
PRODUCT_FIELDS = (
    "slug, name, description, brand, material, category, price, discount_price, currency, rating, main_image, "
    "images, option_names, specs, url, external_id, price_low, price_high"
)
INSERT_VARIATION = """
    INSERT INTO product_variation (product_id, color, size, options, option_keys, variant_key, quantity,
                                   reserved, weight_grams, price, discount_price, paid_price, sku,
                                   external_id, url, specs, position)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
"""


def variation_rows(product_id: int, draft: ProductDraft) -> list[tuple[object, ...]]:
    """The `INSERT_VARIATION` arguments of each of the draft's variations."""
    return [(*_variation_values(product_id, draft, v), n) for n, v in enumerate(draft.variations)]


def _variation_values(product_id: int, draft: ProductDraft, v: Variation) -> tuple[object, ...]:
    return (
        *(product_id, v.color, v.size, v.options, option_keys(v), v.key, v.quantity, v.reserved, v.weight_grams),
        *(v.price, v.discount_price, draft.paid_price(v), v.sku, v.external_id, v.url, v.specs),
    )


def option_keys(variation: Variation) -> dict[str, str]:
    """The variation's options folded, as the search filters compare them."""
    return {option_folded(name): option_folded(value) for name, value in variation.options.items()}


def product_values(d: ProductDraft) -> tuple[object, ...]:
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


def product_from_row(row: asyncpg.Record) -> Product:
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
