"""Input that once reached PostgreSQL or a Python error as a 500: each now gets a specific
4xx (or an MCP `isError` result) and changes nothing. Real app, real database."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import time

import anyio
import httpx
import msgspec
import pytest
from mcp import Client

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.bootstrap import build_public_app
from shopagent.domain.catalog import MAX_QUANTITY, VariationInput
from shopagent.domain.errors import ValidationError
from shopagent.domain.inputs import ascii_int, check_text, same_secret
from shopagent.domain.tokens import issue_token
from shopagent.settings import Secret
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
from tests.factories import product_input

pytestmark = pytest.mark.anyio

KEY = "admin-key-for-tests"
SECRET = "test-auth-secret-of-32-bytes-or-more"


@pytest.fixture
async def shop(settings):
    secrets = msgspec.structs.replace(settings.secrets, admin_api_key=Secret(KEY))
    settings = msgspec.structs.replace(settings, secrets=secrets)
    async with open_services(settings, INDEXER_ACTORS | {"http"}, embedder=HashEmbedder()) as services:
        product = await services.catalog.create_product(product_input("alpine-boot"))
        services.product = product
        yield services


@pytest.fixture
async def api(shop):
    app = build_public_app(shop)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://shop.test") as client:
            yield client


ADMIN = {"Authorization": f"Bearer {KEY}"}


def chat_token(user: str = "ana") -> dict[str, str]:
    return {"Authorization": f"Bearer {issue_token(SECRET, user)}"}


@pytest.mark.parametrize("header", ["Bearer v1.abc.é", "Bearer v1.é.abc", "Bearer é"])
async def test_a_token_with_non_ascii_characters_is_401(api, header):
    response = await api.post("/api/assistant-agent/chat", json={"query": "hi"},
                              headers={"Authorization": header.encode()})  # fmt: skip
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"


@pytest.mark.parametrize("sub", ["ana\u0000", "ana\u001b[31m", "a" * 10_000])
async def test_a_correctly_signed_token_with_an_unusable_user_id_is_401(api, sub):
    payload = base64.urlsafe_b64encode(json.dumps({"sub": sub, "exp": int(time.time()) + 600}).encode())
    payload_text = payload.rstrip(b"=").decode()
    signature = hmac.new(SECRET.encode(), f"v2.{payload_text}".encode(), hashlib.sha256).digest()
    token = f"v2.{payload_text}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"
    headers = {"Authorization": f"Bearer {token}"}
    streaming = {**headers, "Accept": "text/event-stream"}
    for response in (
        await api.get("/api/conversations", headers=headers),
        await api.post("/api/assistant-agent/chat", json={"query": "boots"}, headers=headers),
        await api.post("/api/assistant-agent/chat", json={"query": "boots"}, headers=streaming),
    ):
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "unauthorized"
        assert "the token's user id (sub)" in response.json()["error"]["message"]


async def test_api_answers_are_not_stored_by_caches_nor_sniffed_by_browsers(api, shop):
    streamed = await api.post("/api/assistant-agent/chat", json={"query": "winter boots"},
                              headers={**chat_token(), "Accept": "text/event-stream"})  # fmt: skip
    assert streamed.headers["content-type"].startswith("text/event-stream")
    api_answers = [
        streamed,
        await api.get("/api"),
        await api.get("/api/conversations", headers=chat_token()),
        await api.get("/api/conversations"),  # 401
        await api.get("/api/nowhere"),  # 404
        await api.get(f"/api/admin/products/{shop.product.id}", headers=ADMIN),
        await api.put(f"/api/admin/products/{shop.product.id}", headers=ADMIN, content=b"{"),  # 400
    ]
    for response in api_answers:
        assert response.headers["cache-control"] == "no-store", response.request.url
        assert response.headers["x-content-type-options"] == "nosniff", response.request.url
    for path in ("/", "/widget.js", "/openapi.json", "/nowhere"):
        response = await api.get(path)
        assert response.headers["x-content-type-options"] == "nosniff", path
        assert response.headers.get("cache-control") != "no-store", path  # the page keeps its ETag revalidation


async def test_an_admin_key_with_non_ascii_characters_is_401(api):
    response = await api.get("/api/admin/products", headers={"Authorization": "Bearer clé".encode()})
    assert response.status_code == 401


async def test_a_nul_in_a_chat_query_is_400_and_nothing_is_stored(api):
    response = await api.post("/api/assistant-agent/chat", json={"query": "boots\u0000"}, headers=chat_token())
    assert response.status_code == 400
    assert response.json()["error"]["message"] == "query contains a control character (U+0000); remove it"
    listed = await api.get("/api/conversations", headers=chat_token())
    assert listed.json()["conversations"] == []


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("name", "Boot\u0000", "name contains a control character (U+0000)"),
        ("description", "Warm\u0000lined", "description contains a control character (U+0000)"),
        ("images", ["https://img.test/a\u0000.jpg"], "images[0] contains a control character (U+0000)"),
        ("brand", "Al\ud800pine", "not valid JSON"),  # msgspec refuses a lone surrogate escape itself
        ("material", "wool\u001b[31m", "material contains a control character (U+001B)"),
    ],
)
async def test_unstorable_text_in_a_product_is_400_on_create_and_update(api, shop, field, value, message):
    body = msgspec.to_builtins(product_input("other-boot"))
    body[field] = value
    created = await api.post("/api/admin/products", content=_json(body), headers=ADMIN)
    assert created.status_code == 400, created.text
    assert message in created.json()["error"]["message"]
    product_id = shop.product.id
    updated = await api.put(f"/api/admin/products/{product_id}", content=_json({field: value}), headers=ADMIN)
    assert updated.status_code == 400
    assert message in updated.json()["error"]["message"]
    assert (await shop.catalog.get_product(product_id)) == shop.product  # unchanged
    assert len(await shop.catalog.list_products()) == 1


async def test_a_stock_change_beyond_32_bits_is_400(api, shop):
    response = await api.post(f"/api/admin/products/{shop.product.id}/stock", headers=ADMIN,
                              json={"color": "black", "size": "42", "quantityDelta": 3_000_000_000})  # fmt: skip
    assert response.status_code == 400
    assert "quantityDelta" in response.json()["error"]["message"]
    assert (await shop.catalog.get_product(shop.product.id)) == shop.product


async def test_stock_changes_keep_the_quantity_within_the_bound_create_and_update_enforce(api, shop):
    url = f"/api/admin/products/{shop.product.id}/stock"
    to_the_bound = await api.post(url, headers=ADMIN, json={"color": "black", "size": "42",
                                                            "quantityDelta": MAX_QUANTITY - 5})  # fmt: skip
    assert to_the_bound.status_code == 200
    at_the_bound = to_the_bound.json()
    for delta in (1, 1_000_000_000, 1_000_000_000):  # the last once overflowed the column into a 500
        past = await api.post(url, headers=ADMIN, json={"color": "black", "size": "42", "quantityDelta": delta})
        assert past.status_code == 400
        assert past.json()["error"] == {
            "code": "validation_error",
            "message": f"variation black 42: quantity {MAX_QUANTITY + delta} must be 0-{MAX_QUANTITY}",
        }
    created = await api.post("/api/admin/products", headers=ADMIN, json=msgspec.to_builtins(
        product_input("other-boot", variations=[VariationInput(color="black", size="42", quantity=MAX_QUANTITY + 1)])
    ))  # fmt: skip
    assert created.json()["error"]["message"] == f"variation 1: quantity {MAX_QUANTITY + 1} must be 0-{MAX_QUANTITY}"
    below = await api.post(url, headers=ADMIN, json={"color": "brown", "size": "43", "quantityDelta": -1})
    assert below.json()["error"]["message"] == f"variation brown 43: quantity -1 must be 0-{MAX_QUANTITY}"
    reserved = await api.post(url, headers=ADMIN, json={"color": "brown", "size": "43", "reservedDelta": 1})
    assert reserved.json()["error"]["message"] == (
        "variation brown 43: reserved 1 must be between 0 and the quantity 0"
    )
    current = (await api.get(f"/api/admin/products/{shop.product.id}", headers=ADMIN)).json()
    assert current == at_the_bound
    written_back = await api.put(f"/api/admin/products/{shop.product.id}", headers=ADMIN, json=current)
    assert written_back.status_code == 200


async def test_concurrent_stock_changes_cannot_pass_the_bound_together(api, shop):
    url = f"/api/admin/products/{shop.product.id}/stock"
    change = {"color": "black", "size": "42", "quantityDelta": 600_000}  # each fits alone, not both
    with anyio.fail_after(10):
        responses = await asyncio.gather(*(api.post(url, headers=ADMIN, json=change) for _ in range(2)))
    assert sorted(r.status_code for r in responses) == [200, 400]
    stored = await shop.catalog.get_product(shop.product.id)
    assert stored.variations[0].quantity == 5 + 600_000


@pytest.mark.parametrize(
    "price", ["\u0661\u0660", "\uff11\uff10", "1_0", " 10", "10 ", "1e1", "+10", "NaN", True, [10]]
)
async def test_a_price_not_written_in_ascii_digits_is_400_on_create_and_update(api, shop, price):
    body = {**msgspec.to_builtins(product_input("other-boot")), "price": price}
    created = await api.post("/api/admin/products", json=body, headers=ADMIN)
    assert created.status_code == 400
    assert created.json()["error"]["message"].startswith("price: must be a decimal number written with the digits 0-9")
    updated = await api.put(f"/api/admin/products/{shop.product.id}", json={"discountPrice": price}, headers=ADMIN)
    assert updated.status_code == 400
    assert updated.json()["error"]["message"].startswith("discountPrice: must be a decimal number")
    assert (await shop.catalog.get_product(shop.product.id)) == shop.product
    assert len(await shop.catalog.list_products()) == 1


async def test_prices_in_ascii_digits_or_json_numbers_are_taken_exactly(api):
    for slug, price, stored in (("a-boot", "129.9", "129.90"), ("b-boot", 10.15, "10.15"), ("c-boot", 42, "42.00")):
        body = {**msgspec.to_builtins(product_input(slug)), "price": price}
        created = await api.post("/api/admin/products", json=body, headers=ADMIN)
        assert created.status_code == 201, created.text
        assert created.json()["price"] == stored
    too_precise = {**msgspec.to_builtins(product_input("d-boot")), "price": 10.151}
    refused = await api.post("/api/admin/products", json=too_precise, headers=ADMIN)
    assert refused.json()["error"]["message"] == "price 10.151 has more than two decimal places"


@pytest.mark.parametrize("query", ["limit=²", "limit=\u0661", "after=³", "after=\u0661", "limit=%EF%BC%95"])
async def test_non_ascii_digits_in_a_query_parameter_are_400(api, query):
    response = await api.get(f"/api/admin/products?{query}", headers=ADMIN)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"


async def test_non_ascii_digits_in_a_conversation_page_limit_are_400(api):
    response = await api.get("/api/conversations?limit=²", headers=chat_token())
    assert response.status_code == 400


@pytest.mark.parametrize("raw", ["²", "\u0661", "%D9%A1"])
async def test_a_product_id_in_other_digits_is_not_found(api, raw):
    response = await api.get(f"/api/admin/products/{raw}", headers=ADMIN)
    assert response.status_code == 404


@pytest.mark.parametrize("product_id", [10**20, 2**63, 0, -1])
async def test_mcp_details_with_an_out_of_range_id_is_a_tool_error(shop, product_id):
    async with Client(shop.mcp_server) as client:  # the chat role's in-process MCP server
        result = await client.call_tool("get-product-full-details", {"productId": product_id})
    assert result.is_error
    assert "invalid argument `productId`" in result.content[0].text


def test_the_edge_helpers():
    assert ascii_int("42", "limit", 1, 100) == 42
    for raw in ("²", "\u0661", "", "-1", " 4", "4 ", "0x10", "1" * 30):
        with pytest.raises(ValidationError, match="limit must be an integer from 1 to 100"):
            ascii_int(raw, "limit", 1, 100)
    assert check_text("tab\tand\nlines\r", "name")
    with pytest.raises(ValidationError, match=r"U\+0007"):
        check_text("bell\a", "name")
    assert same_secret("é", "é") and not same_secret("é", "e") and not same_secret("\ud800", "x")
    assert same_secret(b"key", "key")


def _json(value) -> bytes:
    """JSON with lone surrogates escaped as JSON allows (\\ud800), as a hostile client sends them."""
    return json.dumps(value).encode()


async def test_a_lone_surrogate_or_nul_in_an_mcp_query_is_searched_without_it(shop):
    async with Client(shop.mcp_server) as client:
        for query in ("boot\ud800s", "boots\u0000"):
            result = await client.call_tool("product-semantic-search", {"query": query})
            assert not result.is_error, result.content
