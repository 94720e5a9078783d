"""The admin catalog API through the real app and database (in-process HTTP transport)."""

from __future__ import annotations

import httpx
import msgspec
import pytest

from shopagent.bootstrap import build_public_app
from shopagent.settings import Secret
from tests.factories import product_input

pytestmark = pytest.mark.anyio

KEY = "admin-key-for-tests"


def client_for(services, key: str | None = KEY) -> httpx.AsyncClient:
    secrets = msgspec.structs.replace(services.settings.secrets, admin_api_key=Secret(key) if key else None)
    services.settings = msgspec.structs.replace(services.settings, secrets=secrets)
    transport = httpx.ASGITransport(app=build_public_app(services))
    return httpx.AsyncClient(
        transport=transport, base_url="http://shop.test", headers={"Authorization": f"Bearer {KEY}"}
    )


def body(**changes) -> dict:
    return msgspec.to_builtins(product_input(**changes))


async def test_a_product_can_be_created_read_edited_and_written_back(services):
    async with client_for(services) as client:
        created = await client.post("/api/admin/products", json=body())
        assert created.status_code == 201
        product = created.json()
        assert created.headers["location"] == f"/api/admin/products/{product['id']}"
        assert product["price"] == "189.00"
        assert product["variations"][0] == {
            "color": "black", "size": "42", "quantity": 5, "reserved": 1, "weightGrams": 1200, "available": 4,
        }  # fmt: skip

        fetched = (await client.get(f"/api/admin/products/{product['id']}")).json()
        assert fetched == product
        fetched["name"] = "Alpine Boot, Second Edition"
        fetched["variations"][1]["quantity"] = 7
        written = await client.put(f"/api/admin/products/{product['id']}", json=fetched)
        assert written.status_code == 200
        assert written.json()["name"] == "Alpine Boot, Second Edition"
        assert written.json()["variations"][1]["available"] == 7

        partial = await client.put(f"/api/admin/products/{product['id']}", json={"discountPrice": "149.90"})
        assert partial.json()["discountPrice"] == "149.90"
        assert partial.json()["name"] == "Alpine Boot, Second Edition"

        stock = await client.post(
            f"/api/admin/products/{product['id']}/stock", json={"color": "Black", "size": "42", "reservedDelta": 2}
        )
        assert stock.json()["variations"][0]["available"] == 2

        listed = (await client.get("/api/admin/products")).json()
        assert [p["id"] for p in listed["products"]] == [product["id"]]
        assert listed["next"] is None

        assert (await client.delete(f"/api/admin/products/{product['id']}")).status_code == 204
        gone = await client.get(f"/api/admin/products/{product['id']}")
        assert gone.status_code == 404
        assert gone.json()["error"]["code"] == "not_found"


async def test_invalid_input_is_a_400_naming_the_problem_and_nothing_is_written(services):
    async with client_for(services) as client:
        bad_size = body(variations=[{"color": "black", "size": "42", "quantity": 1},
                                    {"color": "red", "size": "XXXXL", "quantity": 1}])  # fmt: skip
        response = await client.post("/api/admin/products", json=bad_size)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "validation_error"
        assert response.json()["error"]["message"].startswith("variation 2: size 'XXXXL' is not one of XS, S, M")

        wrong_type = await client.post("/api/admin/products", json={**body(), "price": [1]})
        assert wrong_type.status_code == 400
        assert wrong_type.json()["error"]["message"].startswith("price: must be a decimal number")

        unknown = await client.post("/api/admin/products", json={**body(), "colour": "red"})
        assert unknown.json()["error"]["message"] == "Object contains unknown field `colour`"

        not_json = await client.post("/api/admin/products", content=b"{nope")
        assert not_json.status_code == 400

        huge = await client.post("/api/admin/products", content=b"x" * 1_000_001)
        assert huge.status_code == 413

        negative = await client.post("/api/admin/products", json=body(slug="other"))
        pid = negative.json()["id"]
        refused = await client.post(f"/api/admin/products/{pid}/stock", json={"color": "brown", "size": "43",
                                                                               "quantityDelta": -1})  # fmt: skip
        assert refused.status_code == 400
        assert refused.json()["error"]["message"] == "variation brown 43: quantity -1 must be 0-1000000"

        listed = (await client.get("/api/admin/products")).json()["products"]
    assert [p["slug"] for p in listed] == ["other"]
    assert listed[0]["variations"][1]["quantity"] == 0
    assert await services.index_status("hash-384") is not None
    async with services.pool.acquire() as conn:
        assert await conn.fetchval("SELECT count(*) FROM outbox_event") == 1  # only the one valid create


async def test_a_taken_slug_is_a_409(services):
    async with client_for(services) as client:
        assert (await client.post("/api/admin/products", json=body())).status_code == 201
        again = await client.post("/api/admin/products", json=body())
    assert again.status_code == 409
    assert "already exists" in again.json()["error"]["message"]


async def test_the_admin_api_needs_the_key(services):
    async with client_for(services) as client:
        for headers in ({"Authorization": "Bearer wrong"}, {"Authorization": ""}, {"Authorization": KEY}):
            response = await client.get("/api/admin/products", headers=headers)
            assert response.status_code == 401
            assert response.headers["www-authenticate"].startswith("Bearer")


async def test_without_a_configured_key_the_admin_api_is_disabled_and_says_so(services):
    async with client_for(services, key=None) as client:
        response = await client.get("/api/admin/products")
    assert response.status_code == 403
    assert response.json()["error"] == {
        "code": "admin_disabled",
        "message": "the admin API is disabled; set SHOPAGENT_ADMIN_API_KEY",
    }


async def test_index_status_reports_the_outbox_and_coverage(services):
    async with client_for(services) as client:
        await client.post("/api/admin/products", json=body())
        status = (await client.get("/api/admin/index/status")).json()
    assert status == {
        "model": "hash-384", "pending": 1, "inFlight": 0, "dead": 0,
        "productsIndexed": 0, "productsTotal": 1, "deadEvents": [], "vectorIndexReady": False,
        "vectorIndexSettings": None, "vectorIndexBuild": None, "textSearchConfig": "english",
        "textDocuments": {},
        "storePagesIndexed": 0, "storePagesTotal": 0,
    }  # fmt: skip
