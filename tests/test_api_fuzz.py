"""Schemathesis against a live server: cases drawn from /openapi.json (the whole public API),
valid and invalid, each checked by every check schemathesis has: no server error, status
codes, content types, headers and bodies as documented, valid input accepted, invalid input
refused. The server is the real app on uvicorn over the real PostgreSQL, with the offline
assistant; the document is the one the server serves. Derandomized and bounded (a fixed set
of cases per operation and mode), so a run is repeatable."""

from __future__ import annotations

import contextlib
from functools import partial

import anyio
import msgspec
import pytest
import schemathesis
from anyio.from_thread import start_blocking_portal
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import positive_data_acceptance

from shopagent.actors.http import run_http
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.bootstrap import build_public_app
from shopagent.domain.tokens import issue_token
from shopagent.entrypoints.http.admin import admin_routes
from shopagent.entrypoints.http.chat import chat_routes
from shopagent.entrypoints.http.openapi import openapi_document
from shopagent.settings import ChatSettings, HttpSettings, McpSettings, Secret
from shopagent.wiring.policies import listening
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
from tests.conftest import _create_database, settings_for
from tests.factories import product_input
from tests.helpers import AUTH_SECRET, free_port

ADMIN_KEY = "admin-key-of-16-bytes-or-more"
# Every check, valid and invalid cases. Invalid input may also be refused with 413: a body
# past the size cap is refused before it is read (the cap fits the largest valid body).
CONFIG = SchemathesisConfig.from_dict({
    "generation": {"mode": "all"},
    # Credentials by security scheme, so that cases leaving them out (or wrong) stay as drawn.
    "auth": {"openapi": {"chatToken": {"bearer": issue_token(AUTH_SECRET, "fuzz-user", 10 * 86_400)},
                         "adminKey": {"bearer": ADMIN_KEY}}},
    "checks": {"negative_data_rejection": {"expected-statuses": [
        "400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]}},
})  # fmt: skip
# A product is checked against the store's rules beyond what a JSON Schema can say (colours and
# sizes of the store's own lists, with their aliases, in any case; a discount below the price;
# the store's currency; distinct variations), so a schema-valid product may still be refused
# with 400 naming the rule. Every other check runs on these operations too.
STORE_RULES = {"POST /api/admin/products", "PUT /api/admin/products/{product_id}",
               "POST /api/admin/products/{product_id}/stock"}  # fmt: skip
# The same document the server serves (built from the same route table), known at collection.
schema = schemathesis.openapi.from_dict(
    openapi_document("Fuzz Shop", [*chat_routes(lambda: None, AUTH_SECRET, None, lambda *a: None),  # type: ignore[arg-type]
                                   *admin_routes(None, None, ADMIN_KEY)]),  # type: ignore[arg-type]
    config=CONFIG,
)  # fmt: skip


@contextlib.asynccontextmanager
async def live_server(embedded_pg, template_db):
    async for dsn in _create_database(embedded_pg, template_db):
        base = settings_for(dsn)
        secrets = msgspec.structs.replace(
            base.secrets, admin_api_key=Secret(ADMIN_KEY), auth_secret=Secret(AUTH_SECRET)
        )
        port = free_port()
        settings = msgspec.structs.replace(base, secrets=secrets, http=HttpSettings(port=port),
                                           mcp=McpSettings(port=free_port()),
                                           chat=ChatSettings(rate_per_minute=1e6, rate_burst=1_000_000))  # fmt: skip
        async with open_services(settings, INDEXER_ACTORS | {"http"}, embedder=HashEmbedder()) as services:
            for slug in ("alpine-boot", "harbour-coat"):
                await services.catalog.create_product(product_input(slug))
            while events := await services.outbox.claim(10, 60, 5, "t"):
                await services.index_product.index(events)
            async with anyio.create_task_group() as tg:
                await tg.start(partial(run_http, listening(settings, "http"), partial(build_public_app, services)))
                yield f"http://127.0.0.1:{port}"
                tg.cancel_scope.cancel()


@pytest.fixture(scope="module")
def base_url(embedded_pg, template_db):
    with (
        start_blocking_portal(backend="asyncio") as portal,
        portal.wrap_async_context_manager(live_server(embedded_pg, template_db)) as url,
    ):
        yield url


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None, derandomize=True)
def test_the_api_conforms_to_its_document_and_never_fails(case, base_url):
    excluded = [positive_data_acceptance] if case.operation.label in STORE_RULES else []
    case.call_and_validate(base_url=base_url, excluded_checks=excluded)
