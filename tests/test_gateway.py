"""The MCP tool gateway: in process and over HTTP; failures become results, bad setup fails early."""

from __future__ import annotations

import dataclasses
from functools import partial

import anyio
import httpx
import msgspec
import pytest

from shopagent.actors.mcp import build_mcp_app, run_mcp
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.mcp.gateway import open_in_process, open_over_http
from shopagent.bootstrap import dependency_checks, health_of
from shopagent.domain.chat import (
    ChatMessage,
    FunctionCall,
    TextPart,
    ToolResult,
    Usage,
    message_encoder,
    messages_decoder,
)
from shopagent.domain.errors import ConfigError
from shopagent.runtime.asgi import bind_tcp, serve_asgi
from shopagent.runtime.supervisor import Supervisor
from shopagent.settings import McpSettings, Secret
from shopagent.wiring.policies import listening, mcp_serving
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
from tests.factories import product_input
from tests.helpers import eventually, free_port

pytestmark = pytest.mark.anyio


@pytest.fixture
async def services(settings):
    async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=HashEmbedder()) as services:
        await services.catalog.create_product(product_input("alpine-boot"))
        await services.index_product.index(await services.outbox.claim(10, 60, 5, "t"))
        yield services


async def test_tool_calls_that_cannot_work_become_results_the_model_can_read(services):
    async with open_in_process(services.mcp_server) as gateway:
        not_an_object = await gateway.safe_call("product-semantic-search", ["boots"])
        unknown = await gateway.safe_call("delete-everything", {})
        tool_error = await gateway.safe_call("get-product-full-details", {"productId": 424242})
        first, second = await gateway.list_tools(), await gateway.list_tools()
    assert not_an_object == ToolResult(
        is_error=True, text="arguments of product-semantic-search must be a JSON object, got list"
    )
    assert unknown.is_error and "there is no tool 'delete-everything'" in unknown.text
    assert tool_error.is_error and "product 424242 does not exist" in tool_error.text
    assert first is second  # listed once, then cached


async def test_over_http_the_gateway_uses_the_key_and_a_wrong_key_fails_at_open(services):
    port = free_port()
    secrets = msgspec.structs.replace(services.settings.secrets, mcp_api_key=Secret("gateway-key"))
    settings = msgspec.structs.replace(services.settings, secrets=secrets, mcp=McpSettings(port=port))
    url = f"http://127.0.0.1:{port}/mcp"
    async with anyio.create_task_group() as tg:
        await tg.start(partial(run_mcp, mcp_serving(settings), services.mcp_server))
        async with open_over_http(url, "gateway-key") as gateway:
            result = await gateway.safe_call("product-semantic-search", {"query": "boot", "limit": 1})
        assert not result.is_error
        assert result.structured["products"][0]["slug"] == "alpine-boot"
        with pytest.raises(ConfigError, match=f"cannot use the MCP server at {url}"):
            async with open_over_http(url, "wrong-key"):
                pass
        tg.cancel_scope.cancel()


async def test_over_http_the_gateway_keeps_one_session_for_all_its_calls(services):
    """Discovery and the tool list once, then only the calls: a session per call paid both
    (and the compilation of the output schemas' validators) every time."""
    methods: list[str] = []
    secrets = msgspec.structs.replace(services.settings.secrets, mcp_api_key=Secret("gateway-key"))
    settings = msgspec.structs.replace(services.settings, secrets=secrets, mcp=McpSettings(port=0))
    app = build_mcp_app(services.mcp_server, mcp_serving(settings))

    async def counted(scope, receive, send):
        if scope["type"] == "http":
            methods.append(dict(scope["headers"]).get(b"mcp-method", b"").decode())
        await app(scope, receive, send)

    sock = bind_tcp("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    async with anyio.create_task_group() as tg:
        await tg.start(partial(serve_asgi, counted, sock, name="mcp", grace_seconds=1))
        async with open_over_http(url, "gateway-key") as gateway:
            results = [await gateway.safe_call("product-semantic-search", {"query": "boot"}) for _ in range(5)]
            results.append(await gateway.safe_call("get-product-full-details", {"productId": 424242}))
        tg.cancel_scope.cancel()
    assert [r.is_error for r in results] == [False] * 5 + [True]
    assert sorted(methods) == ["server/discover"] + ["tools/call"] * 6 + ["tools/list"], methods


async def test_over_http_a_call_waits_out_the_servers_retry_after_and_gives_up_at_the_budget(services, retry_waits):
    """A 429 is waited out for as long as the server says (Retry-After: 3, under the 10 s
    cap); a server failing every call (503) costs three attempts, then a result the model can
    read. Every wait goes through the service's one retry loop."""
    from starlette.responses import PlainTextResponse

    secrets = msgspec.structs.replace(services.settings.secrets, mcp_api_key=Secret("gateway-key"))
    settings = msgspec.structs.replace(services.settings, secrets=secrets, mcp=McpSettings(port=0))
    app = build_mcp_app(services.mcp_server, mcp_serving(settings))
    refusals: list[PlainTextResponse] = []
    calls: list[str] = []

    async def refusing(scope, receive, send):
        if scope["type"] == "http" and dict(scope["headers"]).get(b"mcp-method") == b"tools/call":
            calls.append("tools/call")
            if refusals:
                await refusals.pop(0)(scope, receive, send)
                return
        await app(scope, receive, send)

    sock = bind_tcp("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    async with anyio.create_task_group() as tg:
        await tg.start(partial(serve_asgi, refusing, sock, name="mcp", grace_seconds=1))
        async with open_over_http(url, "gateway-key") as gateway:
            retry_waits.clear()
            refusals[:] = [PlainTextResponse("slow down", 429, headers={"Retry-After": "3"})] * 2
            throttled = await gateway.safe_call("product-semantic-search", {"query": "boot"})
            assert (throttled.is_error, retry_waits, len(calls)) == (False, [3.0, 3.0], 3)
            retry_waits.clear()
            calls.clear()
            refusals[:] = [PlainTextResponse("down", 503)] * 10
            failed = await gateway.safe_call("product-semantic-search", {"query": "boot"})
        tg.cancel_scope.cancel()
    assert failed == ToolResult(
        is_error=True, text="the tool product-semantic-search could not be reached; try again later"
    )
    assert (len(calls), len(retry_waits)) == (3, 2), (calls, retry_waits)


async def test_an_unreachable_mcp_server_fails_at_open():
    url = f"http://127.0.0.1:{free_port()}/mcp"
    with anyio.fail_after(30), pytest.raises(ConfigError, match="cannot use the MCP server"):
        async with open_over_http(url, "k", timeout=5):
            pass


def test_chat_messages_round_trip_through_json_losslessly():
    messages = [
        ChatMessage.user("red boots?"),
        ChatMessage(
            role="model",
            parts=[
                TextPart("Let me look."),
                FunctionCall("product-semantic-search", {"query": "boots", "filters": {"colors": ["red"]}}, id="c1"),
            ],
            provider_state={"provider": "gemini", "parts": [{"thought_signature": "c2lnbmF0dXJl"}]},
            usage=Usage(120, 8),
        ),
    ]
    assert messages_decoder.decode(message_encoder.encode(messages)) == messages


async def test_a_chat_instance_recovers_when_its_mcp_instance_comes_back(services, retry_waits):
    """The mcp instance stops, a turn is answered with the tool unreachable, the instance comes
    back on the same port: the next turns work (JSON and event stream) without a restart."""
    from shopagent.actors.http import run_http
    from shopagent.adapters.memory.chat import ScriptedChatModel, calls, says
    from shopagent.bootstrap import build_public_app
    from shopagent.domain.tokens import issue_token
    from shopagent.settings import ChatSettings, HttpSettings
    from tests.helpers import AUTH_SECRET

    mcp_port, http_port = free_port(), free_port()
    secrets = msgspec.structs.replace(services.settings.secrets, mcp_api_key=Secret("gateway-key-16-bytes"),
                                      auth_secret=Secret(AUTH_SECRET))  # fmt: skip
    settings = msgspec.structs.replace(
        services.settings, secrets=secrets, mcp=McpSettings(port=mcp_port), http=HttpSettings(port=http_port),
        chat=ChatSettings(mcp_url=f"http://127.0.0.1:{mcp_port}/mcp"),
    )  # fmt: skip
    chat_services = dataclasses.replace(services, settings=settings, actors=frozenset({"ops", "http"}))
    checks = dependency_checks(chat_services)

    async def readiness(mcp_state: str):
        report = await health_of(Supervisor([]), None, str, checks)
        return report if {d.name: d.state for d in report.dependencies}["mcp"] == mcp_state else None

    def one_search(messages):
        answered = any(p.__class__.__name__ == "FunctionResponse" for p in messages[-1].parts)
        return says(messages[-1].parts[0].result["content"][:80]) if answered else calls(
            ("product-semantic-search", {"query": "boot", "limit": 1}))  # fmt: skip

    headers = {"Authorization": f"Bearer {issue_token(AUTH_SECRET, 'ana')}"}
    async with anyio.create_task_group() as outer:

        async def mcp_instance(*, task_status=anyio.TASK_STATUS_IGNORED):
            await run_mcp(mcp_serving(settings), services.mcp_server, task_status=task_status)

        mcp_scope = anyio.CancelScope()

        async def run_mcp_until_cancelled(*, task_status=anyio.TASK_STATUS_IGNORED):
            with mcp_scope:
                await mcp_instance(task_status=task_status)

        await outer.start(run_mcp_until_cancelled)
        await outer.start(partial(run_http, listening(settings, "http"), partial(build_public_app, chat_services,
                                                               ScriptedChatModel(one_search))))  # fmt: skip
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{http_port}", timeout=30) as client:

            async def turn(**extra):
                return await client.post("/api/assistant-agent/chat", json={"query": "boots"},
                                         headers={**headers, **extra})  # fmt: skip

            assert (await turn()).json()["response"].startswith('{"products":[{"productId"')
            ready = await readiness("up")
            assert (ready.ready, ready.status) == (True, "ready")
            mcp_scope.cancel()  # the mcp instance goes away
            await eventually(lambda: _closed(mcp_port))
            retry_waits.clear()
            down = await turn()
            assert down.status_code == 200 and "could not be reached" in down.json()["response"]
            # Three attempts, two waits from the shared retry policy: 0.25 s then 0.5 s, each up
            # to half shorter (jitter).
            assert len(retry_waits) == 2, retry_waits
            assert 0.125 <= retry_waits[0] <= 0.25 and 0.25 <= retry_waits[1] <= 0.5, retry_waits
            degraded = await eventually(lambda: readiness("down"), timeout=10)
            assert (degraded.ready, degraded.status) == (True, "degraded")  # serving, without the catalog tools
            assert next(d.detail for d in degraded.dependencies if d.name == "mcp")
            mcp_scope = anyio.CancelScope()
            await outer.start(run_mcp_until_cancelled)  # back, on the same port
            with anyio.fail_after(10):
                back = await turn()
                streamed = await turn(Accept="text/event-stream")
        assert back.status_code == 200 and back.json()["response"].startswith('{"products":[{"productId"')
        assert "event: answer" in streamed.text and "event: error" not in streamed.text
        assert (await eventually(lambda: readiness("up"), timeout=10)).status == "ready"
        outer.cancel_scope.cancel()


async def _closed(port: int) -> bool:
    try:
        stream = await anyio.connect_tcp("127.0.0.1", port)
    except OSError:
        return True
    await stream.aclose()
    return False
