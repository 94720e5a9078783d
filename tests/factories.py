"""Builders of valid catalog input for tests."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from decimal import Decimal
from typing import Any

import msgspec

from shopagent.domain.catalog import ProductInput, VariationInput


def product_input(slug: str = "alpine-winter-boot", **changes: Any) -> ProductInput:
    base = ProductInput(
        slug=slug,
        name="Alpine Lined Winter Boot",
        category="Boots",
        price=Decimal("189.00"),
        description=(
            "A warm leather boot with a wool lining. The rubber sole grips on ice and snow. "
            "Made for cold commutes and winter walks."
        ),
        brand="Nordkap",
        material="full-grain leather, wool lining",
        rating=4.6,
        main_image=f"https://images.example.com/{slug}/main.jpg",
        images=[f"https://images.example.com/{slug}/1.jpg"],
        variations=[
            VariationInput(color="black", size="42", quantity=5, reserved=1, weight_grams=1200),
            VariationInput(color="brown", size="43", quantity=0, weight_grams=1250),
        ],
    )
    return msgspec.structs.replace(base, **changes)


@contextlib.asynccontextmanager
async def boot_and_sandal_shop(settings: Any) -> AsyncIterator[Any]:
    """Services (hash embedder, the mcp role) over a two-product catalog, indexed: a winter
    boot and a beach sandal, for agent tests that need something to find."""
    from shopagent.adapters.local.hash_embedder import HashEmbedder
    from shopagent.wiring.services import open_services
    from shopagent.wiring.startup import INDEXER_ACTORS

    async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=HashEmbedder()) as services:
        await stock_boot_and_sandal(services)
        yield services


async def stock_boot_and_sandal(services: Any) -> None:
    """The winter boot and the beach sandal, created and indexed (PostgreSQL or twin services)."""
    await services.catalog.create_product(product_input("alpine-boot"))
    await services.catalog.create_product(product_input("beach-sandal", name="Beach Sandal", category="Sandals"))
    while events := await services.outbox.claim(50, 60, 5, "t"):
        await services.index_product.index(events)
