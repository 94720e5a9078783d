from __future__ import annotations

from decimal import Decimal

import msgspec
import pytest

from shopagent.domain.catalog import CatalogRules, ProductPatch, VariationInput, apply_patch
from shopagent.domain.errors import ValidationError
from shopagent.domain.validation import validate_product
from shopagent.settings import Settings
from tests.factories import product_input

SETTINGS = Settings()
RULES = CatalogRules.create("EUR", SETTINGS.catalog.colors, SETTINGS.catalog.sizes, SETTINGS.catalog.color_aliases)


def variations(*items: tuple[str, str, int, int]) -> list[VariationInput]:
    return [VariationInput(color=c, size=s, quantity=q, reserved=r) for c, s, q, r in items]


def test_a_valid_product_is_normalised():
    draft = validate_product(
        product_input(
            slug="  trail-boot ",
            currency="eur",
            main_image=None,
            images=[],
            variations=variations(("  Dark   Blue ", "xl", 3, 0), ("GRAY", " one  size ", 2, 2)),
        ),
        RULES,
    )
    assert draft.slug == "trail-boot"
    assert draft.currency == "EUR"
    # in the shop's order; sizes in the configured spelling
    assert [(v.color, v.size) for v in draft.variations] == [("navy", "XL"), ("grey", "ONE SIZE")]
    assert draft.variations[1].available == 0
    assert draft.price == Decimal("189.00")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"variations": variations(("black", "42", 1, 0), ("red", "XXXXL", 1, 0))},
            "variation 2: size 'XXXXL' is not one of XS, S, M",
        ),
        ({"variations": variations(("chartreuse", "M", 1, 0))}, "variation 1: colour 'chartreuse' is not one of black"),
        (
            {"variations": variations(("black", "M", 1, 0), ("Black", "m", 2, 0))},
            "variation 2: black M already appears as variation 1",
        ),
        (
            {"variations": variations(("black", "M", 2, 3))},
            "variation 1: reserved 3 must be between 0 and the quantity 2",
        ),
        ({"variations": variations(("black", "M", -1, 0))}, "variation 1: quantity -1 must be"),
        ({"variations": []}, "at least one variation"),
        ({"slug": "Winter Boot"}, "slug 'Winter Boot' must be"),
        ({"name": "   "}, "name must be 1-200 characters"),
        ({"price": Decimal("0")}, "price 0 must be a positive amount"),
        ({"price": Decimal("10.999")}, "price 10.999 has more than two decimal places"),
        ({"discount_price": Decimal("189.00")}, "discountPrice 189.00 must be lower than price 189.00"),
        ({"currency": "USD"}, "currency 'USD' differs from the store currency EUR"),
        ({"rating": 5.5}, "rating 5.5 must be between 0 and 5"),
        ({"main_image": "ftp://x/y.jpg"}, "mainImage 'ftp://x/y.jpg' must be an http(s) URL"),
        ({"main_image": 'https://img.test/a".jpg'}, "mainImage 'https://img.test/a\".jpg' must be an http(s) URL"),
        ({"images": ["https://img.test/<b>.jpg"]}, "images[0] 'https://img.test/<b>.jpg' must be an http(s) URL"),
        ({"images": ["https://img.test/a b.jpg"]}, "images[0] 'https://img.test/a b.jpg' must be an http(s) URL"),
        ({"main_image": "https:///y.jpg"}, "mainImage 'https:///y.jpg' must be an http(s) URL"),
        ({"main_image": "https://img.test:x/y.jpg"}, "mainImage 'https://img.test:x/y.jpg' must be an http(s) URL"),
    ],
)
def test_invalid_products_are_refused_with_a_specific_message(changes, message):
    with pytest.raises(ValidationError) as caught:
        validate_product(product_input(**changes), RULES)
    assert message in str(caught.value)


def test_a_patch_changes_only_the_given_fields():
    from datetime import UTC, datetime

    from shopagent.domain.catalog import Product

    draft = validate_product(product_input(), RULES)
    now = datetime.now(UTC)
    stored = Product(**msgspec.structs.asdict(draft), id=7, version=3, created_at=now, updated_at=now)
    patched = validate_product(apply_patch(stored, ProductPatch(price=Decimal("149.00"))), RULES)
    assert patched.price == Decimal("149.00")
    assert patched.variations == draft.variations
    assert patched.description == draft.description


def test_colour_aliases_must_point_to_a_colour():
    with pytest.raises(ValidationError, match="alias 'teal' points to 'cyan'"):
        CatalogRules.create("EUR", ["black"], ["M"], {"teal": "cyan"})


@pytest.mark.parametrize(
    "url",
    ["https://img.test/a.jpg", "http://img.test:8080/a%22.jpg?w=1&h=2#x", "https://bilder.test/größe.jpg",
     "https://[::1]/o'brien.jpg"],
)  # fmt: skip
def test_http_urls_are_accepted_as_images(url):
    assert validate_product(product_input(main_image=url, images=[url]), RULES).main_image == url
