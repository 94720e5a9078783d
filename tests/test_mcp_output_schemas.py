"""Every MCP tool result is valid against its tool's declared outputSchema, as a client's
validator (the jsonschema library, which the SDK's client uses) checks it; the schemas
describe every field, and keep to what such a validator checks in one step."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import jsonschema
import pytest
from jsonschema.validators import validator_for
from mcp import Client

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.domain.catalog import VariationInput
from shopagent.domain.store_pages import StorePageInput
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
from tests.factories import product_input

pytestmark = pytest.mark.anyio

CATALOG = [
    product_input("alpine-boot"),
    product_input("sale-boot", name="Leather Sale Boot", price=Decimal("200.00"), discount_price=Decimal("120.00")),
    product_input("bare-tee", name="Plain Cotton Tee", category="Shirts & tops", rating=None, main_image=None,
                  images=[], brand="", material="", variations=[VariationInput(color="red", size="M", quantity=0)]),
    # Options, a price per variation, specs and links: no colour or size at all.
    product_input("gas-cartridge", name="Camping Gas Cartridge", category="Stove fuel", options=["Weight"],
                  specs={"butane_pct": 70}, url="https://x.test/gas", price=None, variations=[
                      VariationInput(options={"Weight": "230 g"}, price=Decimal("5.90"), quantity=4, sku="G230",
                                     url="https://x.test/cart/g230", specs={"burn_time_min": 85}),
                      VariationInput(options={"Weight": "450 g"}, price=Decimal("9.90"),
                                     discount_price=Decimal("8.90"), quantity=0, sku="G450"),
                  ]),
]  # fmt: skip
SEARCHES = [
    {"query": "warm winter boots"},
    {"query": "cotton tee", "limit": 20, "filters": {"colors": ["red"], "sizes": ["M"]}},
    {"query": "boots", "filters": {"maxPrice": 150, "inStock": True}},
    {"query": "bots for snwo"},  # corrected words
    {"query": "zzzz qqqq"},  # nothing strong
    {"query": "gas", "filters": {"options": {"weight": ["230 G"]}, "specs": {"burn_time_min": {"min": 60}}}},
    {"query": "camping gas", "filters": {"specs": {"butane_pct": {"equals": 70}}, "maxPrice": 6}},
]


def undescribed(instance: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """Paths of the object members of `instance` that `schema` gives no subschema for."""
    found = []
    if isinstance(instance, dict) and "properties" in schema:
        for key, value in instance.items():
            if key not in schema["properties"]:
                found.append(f"{path}.{key}")
            else:
                found += undescribed(value, schema["properties"][key], f"{path}.{key}")
    elif isinstance(instance, list) and "items" in schema:
        for n, item in enumerate(instance):
            found += undescribed(item, schema["items"], f"{path}[{n}]")
    return found


def combinators(schema: Any) -> list[str]:
    """anyOf/oneOf/allOf/$ref anywhere in a schema: each costs a validator several passes."""
    if isinstance(schema, dict):
        return [k for k in schema if k in {"anyOf", "oneOf", "allOf", "$ref"}] + [
            c for v in schema.values() for c in combinators(v)
        ]
    if isinstance(schema, list):
        return [c for v in schema for c in combinators(v)]
    return []


async def test_every_tool_result_is_valid_against_its_declared_output_schema(settings):
    async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=HashEmbedder()) as services:
        ids = [(await services.catalog.create_product(item)).id for item in CATALOG]
        page = "## Delivery\n\nWe ship within 2 days.\n\n## Returns\n\nReturns within 30 days."
        await services.store_pages.create(
            StorePageInput(slug="help", title="Help", text=page, url="https://x.test/help")
        )
        while events := await services.outbox.claim(10, 60, 5, "t"):
            await services.index_product.index(events)
        async with Client(services.mcp_server) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            calls = [("product-semantic-search", arguments) for arguments in SEARCHES]
            calls += [("get-product-full-details", {"productId": product_id}) for product_id in ids]
            calls += [("search-store-information", {"query": q}) for q in ("how fast do you ship", "pizza")]
            results = [(name, await client.call_tool(name, arguments)) for name, arguments in calls]
    checked = set()
    for name, result in results:
        schema = tools[name].output_schema
        assert schema is not None and not result.is_error, result.content
        validator_for(schema).check_schema(schema)
        jsonschema.validate(result.structured_content, schema)
        assert undescribed(result.structured_content, schema) == []
        checked.add(name)
    assert checked == set(tools)
    nulls = [r.structured_content["discountedPrice"] for n, r in results if n == "get-product-full-details"]
    assert None in nulls and "120.00" in nulls  # both shapes of a price that may be missing
    for tool in tools.values():
        assert combinators(tool.output_schema) == [], tool.name
