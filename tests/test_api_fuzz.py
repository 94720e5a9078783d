"""Schemathesis against a live server: cases drawn from /openapi.json (the whole public API),
each answered without a server error and conforming to the document (status codes, content
types, response schemas). The server is the real app on uvicorn over the real PostgreSQL,
with the offline assistant; the document is the one the server serves."""

from __future__ import annotations

import contextlib
from functools import partial

import anyio
import msgspec
import pytest
import schemathesis
from anyio.from_thread import start_blocking_portal
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from shopagent.actors.http import run_http
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.bootstrap import INDEXER_ACTORS, build_public_app, open_services
from shopagent.domain.tokens import issue_token
from shopagent.entrypoints.http.admin import admin_routes
from shopagent.entrypoints.http.chat import chat_routes
from shopagent.entrypoints.http.openapi import openapi_document
from shopagent.settings import ChatSettings, HttpSettings, McpSettings, Secret
from tests.conftest import _create_database, settings_for
from tests.factories import product_input
from tests.helpers import AUTH_SECRET, free_port

ADMIN_KEY = "admin-key-of-16-bytes-or-more"
# No server error; status code, content type, headers and body as documented. Not "every
# schema-valid request is accepted" (the catalog's rules, such as a store's colours, go beyond
# a JSON Schema) nor "every other request is refused" (unknown query parameters, such as a
# browser's cache-buster, are ignored on purpose).
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
# The same document the server serves (built from the same route table), known at collection.
schema = schemathesis.openapi.from_dict(
    openapi_document("Fuzz Shop", [*chat_routes(lambda: None, AUTH_SECRET, None, lambda *a: None),  # type: ignore[arg-type]
                                   *admin_routes(None, None, ADMIN_KEY)])  # type: ignore[arg-type]
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
                await tg.start(partial(run_http, settings, partial(build_public_app, services)))
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
    token = ADMIN_KEY if case.path.startswith("/api/admin") else issue_token(AUTH_SECRET, "fuzz-user")
    case.call_and_validate(base_url=base_url, headers={"Authorization": f"Bearer {token}"}, checks=CHECKS)
