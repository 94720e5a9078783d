"""The chat HTTP API on a real server (uvicorn on loopback), against the real PostgreSQL."""

from __future__ import annotations

import contextlib
import json
import logging
import re
from functools import partial

import anyio
import httpx
import msgspec
import pytest

from shopagent.actors.http import run_http
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.memory.chat import ScriptedChatModel, calls, says
from shopagent.adapters.openai_compat.chat import OpenAICompatChatModel
from shopagent.bootstrap import build_public_app
from shopagent.domain.errors import ModelUnavailable
from shopagent.domain.tokens import issue_token
from shopagent.settings import ChatSettings, HttpSettings, RuntimeSettings
from shopagent.wiring.policies import listening
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS
from tests.factories import product_input
from tests.fake_openai import FakeOpenAI, error, reply, serving, tool_call
from tests.helpers import eventually, free_port, wait_until

pytestmark = pytest.mark.anyio

SECRET = "test-auth-secret-of-32-bytes-or-more"
SEARCH = "product-semantic-search"


def token(user: str, ttl: int = 3600) -> dict[str, str]:
    return {"Authorization": f"Bearer {issue_token(SECRET, user, ttl)}"}


class Model(ScriptedChatModel):
    """Scripted replies, optionally slowed down or failing. While `hold` is an event, an answer
    (a reply without tool calls) waits for it."""

    def __init__(self, script, *, delay: float = 0, error: Exception | None = None) -> None:
        super().__init__(script)
        self.delay, self.error = delay, error
        self.hold: anyio.Event | None = None
        self.finished = anyio.Event()
        self.cancelled_at: list[float] = []  # anyio.current_time() of each reply cut short

    async def generate(self, system, messages, tools, temperature=None, *, on_text=None):
        reply = await super().generate(system, messages, tools, temperature)
        try:
            if self.hold is not None and not reply.function_calls:
                await self.hold.wait()
            await anyio.sleep(self.delay)
        except anyio.get_cancelled_exc_class():
            self.cancelled_at.append(anyio.current_time())
            raise
        if self.error:
            raise self.error
        if on_text and reply.text:
            on_text(reply.text)
        if not reply.function_calls:
            self.finished.set()
        return reply


@contextlib.asynccontextmanager
async def chat_api(settings, model, **chat_settings):
    port = free_port()
    settings = msgspec.structs.replace(
        settings, http=HttpSettings(port=port), chat=msgspec.structs.replace(ChatSettings(), **chat_settings)
    )
    async with open_services(settings, INDEXER_ACTORS | {"http"}, embedder=HashEmbedder()) as services:
        await services.catalog.create_product(product_input("alpine-boot"))
        await services.index_product.index(await services.outbox.claim(10, 60, 5, "t"))
        async with anyio.create_task_group() as tg:
            await tg.start(partial(run_http, listening(settings, "http"), partial(build_public_app, services, model)))
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
                client.services = services
                yield client
            tg.cancel_scope.cancel()


async def test_a_conversation_over_the_api(settings):
    model = Model(lambda messages: says(f"answer {sum(m.role == 'model' for m in messages) + 1}"))
    async with chat_api(settings, model) as api:
        first = await api.post("/api/assistant-agent/chat", json={"query": "warm boots?"}, headers=token("ana"))
        assert first.status_code == 200
        conversation_id = first.json()["conversationId"]
        assert first.json()["response"] == "answer 1"
        second = await api.post(
            "/api/assistant-agent/chat",
            json={"query": "and socks?", "conversationId": conversation_id},
            headers=token("ana"),
        )
        assert second.json() == {"conversationId": conversation_id, "response": "answer 2", "products": []}
        await api.post("/api/assistant-agent/chat", json={"query": "another topic"}, headers=token("ana"))
        await api.post("/api/assistant-agent/chat", json={"query": "bob's own"}, headers=token("bob"))

        listed = (await api.get("/api/conversations", headers=token("ana"))).json()
        assert [c["title"] for c in listed["conversations"]] == ["another topic", "warm boots?"]  # newest first
        page = (await api.get("/api/conversations?limit=1", headers=token("ana"))).json()
        assert [c["title"] for c in page["conversations"]] == ["another topic"]
        rest = (await api.get(f"/api/conversations?limit=1&before={page['next']}", headers=token("ana"))).json()
        assert [c["title"] for c in rest["conversations"]] == ["warm boots?"]

        detail = (await api.get(f"/api/conversations/{conversation_id}", headers=token("ana"))).json()
        assert [(m["sequence"], m["role"], m["text"]) for m in detail["messages"]] == [
            (1, "user", "warm boots?"), (2, "model", "answer 1"), (3, "user", "and socks?"), (4, "model", "answer 2"),
        ]  # fmt: skip
        assert detail["messages"][1]["usage"] == {"inputTokens": 1, "outputTokens": 1}

        assert (await api.get(f"/api/conversations/{conversation_id}", headers=token("bob"))).status_code == 404
        assert (await api.delete(f"/api/conversations/{conversation_id}", headers=token("bob"))).status_code == 404
        assert (await api.delete(f"/api/conversations/{conversation_id}", headers=token("ana"))).status_code == 204
        assert (await api.get(f"/api/conversations/{conversation_id}", headers=token("ana"))).status_code == 404


async def test_each_stored_message_shows_its_tool_calls_and_results(settings):
    model = Model([calls((SEARCH, {"query": "boot"})), says("The Alpine boot.")])
    async with chat_api(settings, model) as api:
        reply = await api.post("/api/assistant-agent/chat", json={"query": "boots"}, headers=token("ana"))
        detail = (await api.get(f"/api/conversations/{reply.json()['conversationId']}", headers=token("ana"))).json()
    user, call, result, answer = detail["messages"]
    assert (user["toolCalls"], user["toolResults"], answer["toolCalls"], answer["toolResults"]) == ([], [], [], [])
    assert call["toolCalls"] == [{"id": "call-1", "name": SEARCH, "arguments": {"query": "boot"}}]
    assert call["toolResults"] == []
    (seen,) = result["toolResults"]
    assert (seen["id"], seen["name"], seen["isError"], seen["truncated"]) == ("call-1", SEARCH, False, False)
    assert seen["result"]["structuredContent"]["products"][0]["slug"] == "alpine-boot"


async def test_a_long_tool_result_is_shown_cut_with_a_marker(settings):
    model = Model([calls((SEARCH, {"query": "boot"})), says("The Alpine boot.")])
    async with chat_api(settings, model, audit_result_chars=200) as api:
        reply = await api.post("/api/assistant-agent/chat", json={"query": "boots"}, headers=token("ana"))
        detail = (await api.get(f"/api/conversations/{reply.json()['conversationId']}", headers=token("ana"))).json()
    (seen,) = detail["messages"][2]["toolResults"]
    assert seen["truncated"] is True
    assert seen["result"].startswith("{")
    assert re.fullmatch(r".{200}… \[truncated: \d+ characters in all\]", seen["result"], re.S)


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({}, "send your chat token"),
        ({"Authorization": "Bearer v2.abc.def"}, "signature is not valid"),
        ({"Authorization": "Bearer v1.abc.def"}, "older format"),
        ({"Authorization": f"Bearer {issue_token(SECRET, 'ana', -10)}"}, "expired"),
        ({"Authorization": f"Bearer {issue_token('another-secret', 'ana')}"}, "signature is not valid"),
    ],
)
async def test_requests_without_a_valid_token_are_401(settings, headers, message):
    async with chat_api(settings, Model([says("hi")])) as api:
        response = await api.post("/api/assistant-agent/chat", json={"query": "hi"}, headers=headers)
        listed = await api.get("/api/conversations", headers=headers)
    assert response.status_code == listed.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert message in response.json()["error"]["message"]


async def test_bad_input_gets_a_400_naming_the_field_and_big_bodies_a_413(settings):
    async with chat_api(settings, Model([says("hi")])) as api:
        empty = await api.post("/api/assistant-agent/chat", json={"query": "   "}, headers=token("ana"))
        long = await api.post("/api/assistant-agent/chat", json={"query": "x" * 2001}, headers=token("ana"))
        wrong = await api.post("/api/assistant-agent/chat", json={"query": 5}, headers=token("ana"))
        not_uuid = await api.post(
            "/api/assistant-agent/chat", json={"query": "hi", "conversationId": "nope"}, headers=token("ana")
        )
        huge = await api.post("/api/assistant-agent/chat", content=b"x" * 100_000, headers=token("ana"))
        # cut off after an opening bracket: the typed decoder refuses its first byte, and it is no JSON at all
        cut = [await api.post("/api/assistant-agent/chat", content=body, headers=token("ana"))
               for body in (b"[{", b"[1, 2", b'"query', b"[")]  # fmt: skip
        listed = (await api.get("/api/conversations", headers=token("ana"))).json()
    assert [r.status_code for r in cut] == [400] * 4, [r.text for r in cut]
    assert empty.status_code == long.status_code == wrong.status_code == not_uuid.status_code == 400
    assert "query must be 1-2000 characters" in empty.json()["error"]["message"]
    assert wrong.json()["error"]["message"].startswith("query: Expected `str`")
    assert not_uuid.json()["error"]["message"].startswith("conversationId:")
    assert huge.status_code == 413
    assert listed["conversations"] == []  # nothing was stored


async def test_a_second_message_while_one_is_answered_is_a_409(settings):
    model = Model(lambda messages: says("slow answer"))
    async with chat_api(settings, model) as api:
        first = await api.post("/api/assistant-agent/chat", json={"query": "hi"}, headers=token("ana"))
        conversation_id = first.json()["conversationId"]
        model.hold, answered_before = anyio.Event(), len(model.calls)
        body = {"query": "again", "conversationId": conversation_id}
        responses = []
        async with anyio.create_task_group() as tg:
            for _ in range(3):
                tg.start_soon(
                    lambda: _append(responses, api.post("/api/assistant-agent/chat", json=body, headers=token("ana")))
                )
            # Each message is with the model (held there) or was answered already: a 409.
            await wait_until(lambda: len(model.calls) - answered_before + len(responses) == 3)
            model.hold.set()
    codes = sorted(r.status_code for r in responses)
    assert codes == [200, 409, 409]
    busy = next(r for r in responses if r.status_code == 409)
    assert busy.json()["error"]["code"] == "conversation_busy"


async def _append(results: list, request) -> None:
    results.append(await request)


def _chat_requests_ended(services) -> float:
    """Chat requests the HTTP server has finished with (an event stream: once it ends)."""
    labels = {"server": "http", "route": "/api/assistant-agent/chat", "method": "POST"}
    return services.metrics.registry.get_sample_value("shopagent_http_request_duration_seconds_count", labels) or 0


async def test_the_rate_limit_answers_429_with_retry_after(settings):
    async with chat_api(settings, Model([says("hi")]), rate_burst=2, rate_per_minute=1) as api:
        codes = [
            (await api.post("/api/assistant-agent/chat", json={"query": "hi"}, headers=token("ana"))).status_code
            for _ in range(3)
        ]
        limited = await api.post("/api/assistant-agent/chat", json={"query": "hi"}, headers=token("ana"))
        other_user = await api.post("/api/assistant-agent/chat", json={"query": "hi"}, headers=token("bob"))
    assert codes == [200, 200, 429]
    assert int(limited.headers["retry-after"]) >= 1
    assert limited.json()["error"]["code"] == "rate_limited"
    assert other_user.status_code == 200


@pytest.mark.parametrize(
    ("model", "options", "status", "code"),
    [
        (Model([says("x")], error=ModelUnavailable("the model is down")), {}, 503, "model_unavailable"),
        (Model([says("x")], delay=2), {"turn_timeout_seconds": 0.2}, 504, "turn_timeout"),
    ],
)
async def test_model_failures_map_to_statuses_and_never_a_stack_trace(settings, model, options, status, code):
    async with chat_api(settings, model, **options) as api:
        response = await api.post("/api/assistant-agent/chat", json={"query": "hi"}, headers=token("ana"))
        listed = (await api.get("/api/conversations", headers=token("ana"))).json()
    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    assert "Traceback" not in response.text
    assert listed["conversations"] == []


async def test_events_stream_the_steps_and_the_turn_survives_a_client_that_leaves(settings):
    model = Model([calls((SEARCH, {"query": "boot"})), says("The Alpine boot.")])
    async with chat_api(settings, model, sse_ping_seconds=0.05) as api:
        headers = {**token("ana"), "Accept": "text/event-stream"}
        events = []
        model.hold = anyio.Event()  # the answer waits until the client has gone
        async with api.stream("POST", "/api/assistant-agent/chat", json={"query": "boots"}, headers=headers) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            async for line in stream.aiter_lines():
                if line.startswith("event: "):
                    events.append(line.removeprefix("event: "))
                if "tool" in events:
                    break  # the client goes away mid-turn
        # The server is done with the request (it counts it once it ends), the turn still runs.
        await wait_until(lambda: _chat_requests_ended(api.services) == 1)
        assert not model.finished.is_set()
        model.hold.set()
        with anyio.fail_after(10):
            await model.finished.wait()
        model.hold = None

        async def stored() -> list:
            return (await api.get("/api/conversations", headers=token("ana"))).json()["conversations"]

        listed = await eventually(stored, timeout=10)
        detail = (await api.get(f"/api/conversations/{listed[0]['id']}", headers=token("ana"))).json()
        complete = []
        async with api.stream(
            "POST", "/api/assistant-agent/chat", json={"query": "again boots"}, headers=headers
        ) as stream:
            async for line in stream.aiter_lines():
                if line.startswith("data: "):
                    complete.append(json.loads(line.removeprefix("data: ")))
    assert events[:2] == ["step", "tool"]
    assert [m["text"] for m in detail["messages"]][-1] == "The Alpine boot."
    assert complete[-1]["conversationId"]
    assert any(e.get("text") == "The Alpine boot." for e in complete)


async def test_the_openapi_document_describes_every_route_served(settings):
    from starlette.routing import Route

    async with chat_api(settings, Model([says("hi")])) as api:
        document = (await api.get("/openapi.json")).json()
        app = build_public_app(api.services, Model([says("hi")]))
    served = {
        (r.path, m.lower())
        for r in app.routes
        if isinstance(r, Route)
        for m in r.methods or ()
        if m != "HEAD"
        and r.path not in ("/api", "/openapi.json", "/", "/widget.js")
        and not r.path.startswith("/sample-pictures/")
    }  # static files of the page, not the API; fmt: skip
    documented = {(path, method) for path, item in document["paths"].items() for method in item}
    assert documented == served
    assert ("/api/admin/products/{product_id}/stock", "post") in documented
    schemas = document["components"]["schemas"]
    query = schemas["ChatRequest"]["properties"]["query"]
    assert {k: query[k] for k in ("type", "minLength", "maxLength")} == {
        "type": "string",
        "minLength": 1,
        "maxLength": 2000,
    }
    assert "pattern" in query  # what the chat takes: see tests/test_api_document.py
    assert "quantityDelta" in schemas["StockChange"]["properties"]
    chat = document["paths"]["/api/assistant-agent/chat"]["post"]
    assert chat["security"] == [{"chatToken": []}] and "text/event-stream" in chat["responses"]["200"]["content"]
    assert "Retry-After" in chat["responses"]["429"]["headers"]
    admin = document["paths"]["/api/admin/products/{product_id}"]["put"]
    assert admin["security"] == [{"adminKey": []}]
    assert admin["parameters"][0] == {"name": "product_id", "in": "path", "required": True,
                                      "schema": {"type": "integer", "minimum": 1}}  # fmt: skip
    assert set(document["components"]["securitySchemes"]) == {"chatToken", "adminKey"}


async def test_an_event_stream_sends_a_ping_comment_while_a_turn_runs(settings):
    model = Model([says("The Alpine boot.")])
    model.hold = anyio.Event()  # the answer waits for the first ping: a turn that stays silent
    async with chat_api(settings, model, sse_ping_seconds=0.1) as api:
        headers = {**token("ana"), "Accept": "text/event-stream"}
        lines = []
        with anyio.fail_after(20):
            async with api.stream(
                "POST", "/api/assistant-agent/chat", json={"query": "boots"}, headers=headers
            ) as stream:
                async for line in stream.aiter_lines():
                    lines.append(line)
                    if line == ": ping":
                        model.hold.set()
    answer = lines.index("event: answer")
    assert ": ping" in lines[:answer]  # sent before the (slow) answer
    assert lines[-3:-1] == ["event: done", lines[-2]] and lines[-2].startswith("data: ")


@pytest.mark.parametrize(
    ("origins", "origin", "allowed"),
    [
        (["https://shop.example"], "https://shop.example", True),
        (["https://shop.example"], "https://evil.example", False),
        ([], "https://shop.example", False),
        (["*"], "https://any.example", True),
    ],
)
async def test_cors_lets_the_configured_origins_call_the_api(settings, origins, origin, allowed):
    from shopagent.bootstrap import build_public_app

    settings = msgspec.structs.replace(settings, http=HttpSettings(cors_origins=origins))
    async with open_services(settings, INDEXER_ACTORS | {"http"}, embedder=HashEmbedder()) as services:
        app = build_public_app(services, Model([says("hi")]))
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://api.test") as client,
        ):
            preflight = await client.options("/api/assistant-agent/chat", headers={
                "Origin": origin, "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization, content-type"})  # fmt: skip
            call = await client.post("/api/assistant-agent/chat", json={"query": "hi"},
                                     headers={**token("ana"), "Origin": origin})  # fmt: skip
    assert call.status_code == 200
    if allowed:
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] in (origin, "*")
        assert "authorization" in preflight.headers["access-control-allow-headers"].lower()
        assert call.headers["access-control-allow-origin"] in (origin, "*")
    else:
        assert "access-control-allow-origin" not in call.headers
        assert preflight.status_code != 200 or "access-control-allow-origin" not in preflight.headers


async def test_an_empty_cursor_is_the_first_page_and_a_405_lists_every_method(settings):
    async with chat_api(settings, Model([says("hi")])) as api:
        await api.post("/api/assistant-agent/chat", json={"query": "hi"}, headers=token("ana"))
        first = await api.get("/api/conversations?before=", headers=token("ana"))
        wrong = await api.put("/api/conversations/00000000-0000-0000-0000-000000000000", headers=token("ana"))
    assert first.status_code == 200 and len(first.json()["conversations"]) == 1
    assert wrong.status_code == 405
    assert set(wrong.headers["allow"].replace(" ", "").split(",")) == {"GET", "HEAD", "DELETE"}


async def test_a_stop_refuses_new_turns_and_ends_running_ones_with_503_shutting_down_in_the_grace_period(
    settings, caplog
):
    grace = 2.0
    settings = msgspec.structs.replace(settings, runtime=RuntimeSettings(shutdown_grace_seconds=grace))
    model = Model(lambda messages: says("hello"))
    async with chat_api(settings, model) as api:
        first = (await api.post("/api/assistant-agent/chat", json={"query": "boots?"}, headers=token("ana"))).json()
        conversation = first["conversationId"]
        model.delay = 60  # every later turn outlasts the grace period
        answers: dict[str, httpx.Response | list[tuple[str, dict]]] = {}

        async def send_json() -> None:
            answers["json"] = await api.post(
                "/api/assistant-agent/chat", json={"query": "and socks?", "conversationId": conversation},
                headers=token("ana"),
            )  # fmt: skip

        async def send_sse() -> None:
            request = {"query": "gloves?"}
            headers = {**token("bob"), "Accept": "text/event-stream"}
            async with api.stream("POST", "/api/assistant-agent/chat", json=request, headers=headers) as response:
                answers["sse"] = [(kind, json.loads(data)) async for kind, data in _events(response)]

        async def busy() -> bool:
            found = (await api.get(f"/api/conversations/{conversation}", headers=token("ana"))).json()
            return found["isProcessing"] and len(model.tools_seen) >= 3

        with caplog.at_level(logging.WARNING, logger="shopagent"):
            async with anyio.create_task_group() as tg:
                tg.start_soon(send_json)
                tg.start_soon(send_sse)
                await eventually(busy, timeout=10)
                api.services.stop.request()
                refused = await api.post("/api/assistant-agent/chat", json={"query": "hi"}, headers=token("cy"))
                assert refused.status_code == 503
                assert refused.json()["error"]["code"] == "shutting_down"
        # Both were ended by the stop, a second before the grace period is over: compared on
        # the event loop's clock where each turn was cut, not where the client read its answer.
        assert "ending 2 chat turn(s) still running at the end of the grace period" in caplog.messages
        stop_at = api.services.stop.at
        assert len(model.cancelled_at) == 2
        assert all(stop_at + grace - 1.0 <= t < stop_at + grace for t in model.cancelled_at), (
            stop_at,
            model.cancelled_at,
        )
        assert answers["json"].status_code == 503
        assert answers["json"].json()["error"]["code"] == "shutting_down"
        assert answers["sse"][-1][0] == "error"
        assert (answers["sse"][-1][1]["status"], answers["sse"][-1][1]["code"]) == (503, "shutting_down")
        found = (await api.get(f"/api/conversations/{conversation}", headers=token("ana"))).json()
        assert found["isProcessing"] is False  # the claim was released
        assert [m["text"] for m in found["messages"]] == ["boots?", "hello"]  # nothing of the cut turn
        assert (await api.get("/api/conversations", headers=token("bob"))).json()["conversations"] == []


async def _events(response: httpx.Response):
    kind = None
    async for line in response.aiter_lines():
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("data: "):
            yield kind, line.removeprefix("data: ")


def events_of(body: str) -> list[tuple[str, dict]]:
    kinds = [line.removeprefix("event: ") for line in body.splitlines() if line.startswith("event: ")]
    data = [json.loads(line.removeprefix("data: ")) for line in body.splitlines() if line.startswith("data: ")]
    return list(zip(kinds, data, strict=True))


async def test_a_model_that_never_answers_gets_the_shopper_the_last_searchs_products_stored_as_the_answer(settings):
    def searches() -> list:
        return [reply(tool_calls=[tool_call(f"call_{n}", SEARCH, {"query": q, "limit": 1})])
                for n, q in enumerate(["boots", "winter boots"])]  # fmt: skip

    with anyio.fail_after(60):
        async with serving(FakeOpenAI()) as fake:
            model = OpenAICompatChatModel(fake.base_url, "small-model", max_attempts=1)
            async with chat_api(settings, model, max_steps=2) as api:
                fake.script = searches()
                response = await api.post("/api/assistant-agent/chat", json={"query": "boots"}, headers=token("ana"))
                conversation_id = response.json()["conversationId"]
                detail = (await api.get(f"/api/conversations/{conversation_id}", headers=token("ana"))).json()
                fake.script = searches()
                streamed = await api.post("/api/assistant-agent/chat", json={"query": "boots"},
                                          headers={**token("ana"), "Accept": "text/event-stream"})  # fmt: skip
    assert response.status_code == 200
    text = response.json()["response"]
    assert text.splitlines()[1] == "- Alpine Lined Winter Boot: 189.00 EUR"
    assert "winter boots" in text.splitlines()[0]
    messages = detail["messages"]
    assert [m["role"] for m in messages] == ["user", "model", "user", "model", "user", "model"]
    assert messages[-1]["text"] == text
    # Every stored call has its result, so the next turn's history is whole.
    assert [c["id"] for m in messages for c in m["toolCalls"]] == [r["id"] for m in messages for r in m["toolResults"]]
    events = events_of(streamed.text)
    answer = next(data for kind, data in events if kind == "answer")
    assert answer["text"] == text
    assert [data["text"] for kind, data in events if kind == "delta"] == [text]
    assert events[-1][0] == "done"


@pytest.mark.parametrize("stream", [False, True], ids=["json", "event-stream"])
async def test_a_failed_turn_is_logged_once_at_warning_with_its_status_code_and_reason(settings, caplog, stream):
    with anyio.fail_after(60):
        async with serving(FakeOpenAI()) as fake:
            model = OpenAICompatChatModel(fake.base_url, "small-model", max_attempts=1)
            async with chat_api(settings, model) as api:
                fake.script = [error(400, "Failed to initialize samplers: failed to parse grammar")]
                headers = {**token("ana"), **({"Accept": "text/event-stream"} if stream else {})}
                with caplog.at_level(logging.INFO, logger="shopagent"):
                    response = await api.post("/api/assistant-agent/chat", json={"query": "boots"}, headers=headers)
    assert "bad_model_response" in response.text
    failures = [r for r in caplog.records if "chat turn failed" in r.getMessage()]
    assert [(r.levelname, r.name) for r in failures] == [("WARNING", "shopagent.chat")]
    assert "502 bad_model_response" in failures[0].getMessage()
    assert "failed to parse grammar" in failures[0].getMessage()
