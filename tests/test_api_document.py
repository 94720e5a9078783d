"""/openapi.json says what the API does, for each case where they once disagreed: the bounds of
`after`, any `before` of the documented shape, read-only fields, integers written as 1.0,
control characters in a query, and a body cap that fits the largest valid chat message."""

from __future__ import annotations

import json
import re

import httpx
import msgspec
import pytest

from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.bootstrap import build_public_app
from shopagent.domain.tokens import issue_token
from shopagent.entrypoints.http.admin import MAX_AFTER
from shopagent.settings import Secret
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
from tests.factories import product_input
from tests.helpers import AUTH_SECRET

pytestmark = pytest.mark.anyio

KEY = "admin-key-for-tests"
ADMIN = {"Authorization": f"Bearer {KEY}"}


@pytest.fixture
async def shop(settings):
    secrets = msgspec.structs.replace(settings.secrets, admin_api_key=Secret(KEY))
    settings = msgspec.structs.replace(settings, secrets=secrets)
    async with open_services(settings, INDEXER_ACTORS | {"http"}, embedder=HashEmbedder()) as services:
        services.product = await services.catalog.create_product(product_input("alpine-boot"))
        yield services


@pytest.fixture
async def api(shop):
    app = build_public_app(shop)
    transport = httpx.ASGITransport(app=app)
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        yield client


def chat_token(user: str = "ana") -> dict[str, str]:
    return {"Authorization": f"Bearer {issue_token(AUTH_SECRET, user)}"}


async def document(api: httpx.AsyncClient) -> dict:
    return (await api.get("/openapi.json")).json()


def parameter(doc: dict, path: str, name: str) -> dict:
    return next(p["schema"] for p in doc["paths"][path]["get"]["parameters"] if p["name"] == name)


async def test_after_is_bounded_in_the_document_as_in_the_api(api):
    bound = parameter(await document(api), "/api/admin/products", "after")["maximum"]
    at = await api.get(f"/api/admin/products?after={bound}", headers=ADMIN)
    past = await api.get(f"/api/admin/products?after={bound + 1}", headers=ADMIN)
    assert bound == MAX_AFTER
    assert (at.status_code, past.status_code) == (200, 400)


@pytest.mark.parametrize("before", ["0.00000000000000000000000000000000", "9999999999999999." + "f" * 32,
                                    "1764672000000000.0123456789abcdef0123456789abcdef"])  # fmt: skip
async def test_every_before_of_the_documented_shape_gets_a_page(api, before):
    pattern = parameter(await document(api), "/api/conversations", "before")["pattern"]
    page = await api.get("/api/conversations", params={"before": before}, headers=chat_token())
    assert re.fullmatch(pattern, before)
    assert page.status_code == 200, page.text


async def test_the_cursor_the_api_returns_has_the_documented_shape_and_pages_on(api):
    for query in ("boots", "coats"):
        assert (await api.post("/api/assistant-agent/chat", json={"query": query}, headers=chat_token())).is_success
    first = (await api.get("/api/conversations?limit=1", headers=chat_token())).json()
    pattern = parameter(await document(api), "/api/conversations", "before")["pattern"]
    rest = (await api.get("/api/conversations", params={"limit": 1, "before": first["next"]},
                          headers=chat_token())).json()  # fmt: skip
    assert re.fullmatch(pattern, first["next"])
    assert rest["conversations"][0]["id"] != first["conversations"][0]["id"]


async def test_fields_the_server_sets_are_read_only_in_the_document(api):
    schemas = (await document(api))["components"]["schemas"]
    for name in ("ProductInput", "ProductPatch"):
        for field in ("id", "createdAt", "updatedAt"):
            assert schemas[name]["properties"][field]["readOnly"] is True, (name, field)
    assert schemas["VariationInput"]["properties"]["available"]["readOnly"] is True


async def test_integers_written_with_a_zero_fraction_are_integers(api, shop):
    url = f"/api/admin/products/{shop.product.id}/stock"
    variation = shop.product.variations[0]
    change = b'{"color": "%s", "size": "%s", "quantityDelta": 2.0, "reservedDelta": 1e0}' % (
        variation.color.encode(), variation.size.encode())  # fmt: skip
    changed = await api.post(url, content=change, headers={**ADMIN, "Content-Type": "application/json"})
    fraction = await api.post(url, content=change.replace(b"2.0", b"2.5"), headers=ADMIN)
    huge = await api.post(url, content=change.replace(b"2.0", b"1e999999999"), headers=ADMIN)
    assert changed.status_code == 200, changed.text
    stock = next(v for v in changed.json()["variations"] if v["color"] == variation.color)
    assert (stock["quantity"], stock["reserved"]) == (variation.quantity + 2, variation.reserved + 1)
    assert fraction.status_code == 400
    assert "quantityDelta" in fraction.json()["error"]["message"]
    assert huge.status_code == 400


@pytest.mark.parametrize("query", ["boots", "  boots\n", "a\tb", "\u3000boots", "boots\x01", "\x7f", " ", "\u3000",
                                   "\x85boots", "\ufeff"])  # fmt: skip
async def test_the_documented_query_pattern_is_what_the_chat_takes(api, query):
    schema = (await document(api))["components"]["schemas"]["ChatRequest"]["properties"]["query"]
    answer = await api.post("/api/assistant-agent/chat", json={"query": query}, headers=chat_token())
    assert answer.status_code in (200, 400)
    assert bool(re.fullmatch(schema["pattern"], query)) == (answer.status_code == 200), answer.text


async def test_the_longest_query_fits_the_body_cap_however_it_is_escaped(api):
    query = "\U0001f97e" * 2000  # two \uXXXX escapes each: the longest a character can be written
    body = json.dumps({"query": query, "conversationId": None}).encode()
    answer = await api.post("/api/assistant-agent/chat", content=body,
                            headers={**chat_token(), "Content-Type": "application/json"})  # fmt: skip
    too_long = await api.post("/api/assistant-agent/chat", content=body[:-2] + b' ' * 30_000 + b'}',
                              headers={**chat_token(), "Content-Type": "application/json"})  # fmt: skip
    assert len(body) > 24_000
    assert answer.status_code == 200, answer.text
    assert too_long.status_code == 413
