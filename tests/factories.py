"""Builders of valid catalog input for tests."""

from __future__ import annotations

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
