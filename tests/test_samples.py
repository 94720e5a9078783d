"""The sample shops `shopagent demo --sample NAME` imports into an empty catalog: the roastery's
imports whole with its own settings (a picture and a link on every product), and a demo catalog
that holds one sample is not mixed with the other."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import httpx
import msgspec
import pytest
from starlette.applications import Starlette

from shopagent.__main__ import build_parser, main
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.commands import http_base_url, import_sample_catalog_if_empty, sample_catalog
from shopagent.domain.catalog import ProductInput, VariationInput
from shopagent.domain.errors import ConfigError
from shopagent.entrypoints.http.pictures import PICTURES_PATH, picture_name, picture_routes
from shopagent.sample_data import SAMPLES
from shopagent.settings import Settings, load_settings
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
from tests.conftest import settings_for

REPO = Path(__file__).resolve().parent.parent
COFFEE = SAMPLES["coffee"]


def coffee_settings(dsn: str) -> Settings:
    """The tests' settings for `dsn` with the roastery's store, catalog and search settings, as
    `demo --sample coffee` loads them beneath the shipped config.toml."""
    shop = load_settings(REPO / "config.toml", environ={}, beneath=COFFEE.settings)
    return msgspec.structs.replace(settings_for(dsn), store=shop.store, catalog=shop.catalog, search=shop.search)


def open_shop(settings: Settings):
    return open_services(settings, INDEXER_ACTORS, embedder=HashEmbedder(settings.embedding.hash_dimensions))


def coffee_products() -> list[dict]:
    return json.loads(COFFEE.catalog.read_text(encoding="utf-8"))


def test_the_roastery_is_a_shop_of_its_own_kind():
    products = coffee_products()
    assert 40 <= len(products) <= 60 and len({p["slug"] for p in products}) == len(products)
    categories = {p["category"] for p in products}
    assert {"Coffee", "Grinders", "Kettles", "Brewers", "Espresso machines", "Cups & mugs", "Filters"} <= categories
    coffees = [p for p in products if p["category"] == "Coffee"]
    assert all(p["options"] == ["Weight", "Grind"] and "price" not in p for p in coffees)  # priced per bag
    assert all(1 <= p["specs"]["roast_level"] <= 5 for p in coffees)
    skus = [v["sku"] for p in products for v in p["variations"]]
    assert len(set(skus)) == len(skus)


@pytest.mark.anyio
async def test_every_category_and_colour_of_the_roastery_has_its_own_picture():
    settings = load_settings(REPO / "config.toml", environ={}, beneath=COFFEE.settings)
    names = {picture_name(p["category"], p["variations"][0].get("color")) for p in coffee_products()}
    names |= {picture_name("Kettles", color) for color in settings.catalog.colors}
    assert not {name for name in names if name.startswith("product")}
    assert {f"kettles-{color}" for color in settings.catalog.colors} <= names
    transport = httpx.ASGITransport(app=Starlette(routes=picture_routes()))
    async with httpx.AsyncClient(transport=transport, base_url="http://demo") as client:
        for name in names:
            response = await client.get(f"{PICTURES_PATH}/{name}.svg")
            assert response.status_code == 200 and response.content.startswith(b"<svg"), name


def test_demo_takes_a_sample_and_refuses_one_it_does_not_ship(capsys):
    assert build_parser().parse_args(["demo"]).sample == "clothing"
    assert build_parser().parse_args(["demo", "--sample", "coffee"]).sample == "coffee"
    with pytest.raises(SystemExit) as exit:
        main(["demo", "--sample", "tea"])
    assert exit.value.code == 2
    assert re.search(
        r"--sample: invalid choice: 'tea' \(choose from '?clothing'?, '?coffee'?\)", capsys.readouterr().err
    )


@pytest.mark.anyio
async def test_the_coffee_sample_imports_whole_with_a_picture_and_a_link_on_every_product(database):
    settings = coffee_settings(database)
    url = http_base_url(settings)
    async with open_shop(settings) as services:
        await import_sample_catalog_if_empty(services, COFFEE)
        products = await services.catalog.list_products(limit=100)
        assert len(products) == len(coffee_products())
        assert len(await services.store_pages.list()) == len(list(COFFEE.store_pages.glob("*.md")))
        for product in products:
            assert product.main_image is not None and product.main_image.startswith(f"{url}/sample-pictures/")
            assert not product.main_image.endswith("/product.svg"), product.slug  # its category's own picture
            assert product.url == f"https://roastery.example/products/{product.slug}"
        bag = next(p for p in products if p.slug == "ethiopia-yirgacheffe-kochere")
        kilo = next(v for v in bag.variations if v.options == {"Weight": "1 kg", "Grind": "Espresso"})
        assert str(kilo.price) == "42.00" and bag.specs["altitude_m"] == 2000
        # Nothing was set aside on the way: what the file says is what the catalog holds.
        assert [item for _, item in sample_catalog(url, COFFEE) if not isinstance(item, ProductInput)] == []


@pytest.mark.anyio
async def test_a_demo_catalog_of_the_clothing_sample_is_not_mixed_with_the_coffee_sample(database):
    async with open_shop(settings_for(database)) as services:
        await import_sample_catalog_if_empty(services, SAMPLES["clothing"])
        count = await services.catalog.repository.count()
        with pytest.raises(ConfigError, match=r"holds the clothing sample shop, not the coffee one; run `.* demo` on"):
            await import_sample_catalog_if_empty(services, COFFEE)
        await import_sample_catalog_if_empty(services, SAMPLES["clothing"])  # its own sample: started again
        assert await services.catalog.repository.count() == count
        assert len(await services.store_pages.list()) == len(list(SAMPLES["clothing"].store_pages.glob("*.md")))


@pytest.mark.anyio
async def test_a_demo_catalog_of_the_coffee_sample_names_the_flag_that_runs_it(database):
    async with open_shop(coffee_settings(database)) as services:
        await import_sample_catalog_if_empty(services, COFFEE)
    async with open_shop(settings_for(database)) as services:
        refused = r"holds the coffee sample shop, not the clothing one; run `.* demo --sample coffee` on it, or give"
        with pytest.raises(ConfigError, match=refused + " the clothing sample an empty database of its own"):
            await import_sample_catalog_if_empty(services, SAMPLES["clothing"])


@pytest.mark.anyio
async def test_a_shops_own_catalog_is_left_as_it_is_by_either_sample(database):
    own = ProductInput(
        slug="house-blend",
        name="House Blend",
        category="Coffee",
        price=Decimal("9.00"),
        variations=[VariationInput(quantity=3)],
    )
    async with open_shop(coffee_settings(database)) as services:
        await services.catalog.create_product(own)
        for sample in SAMPLES.values():
            await import_sample_catalog_if_empty(services, sample)
        assert [p.slug for p in await services.catalog.list_products()] == ["house-blend"]
