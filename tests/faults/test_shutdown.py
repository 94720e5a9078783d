"""SIGTERM to a chat instance: a turn still running when the grace period ends is answered 503
shutting_down (JSON, or an `error` event that ends the stream), its conversation's claim is
released, nothing of it is stored, and the process is gone within the grace period plus a
second; an idle instance is gone within a second."""

from __future__ import annotations

import json
import signal

import anyio
import httpx
import pytest

from tests.faults.harness import (
    OwnedPostgres,
    chat_headers,
    http_url,
    new_user,
    now,
    run_role,
    service_env,
    slow_openai,
    sse_events,
)

pytestmark = pytest.mark.anyio

GRACE_SECONDS = 2.0


async def _conversation_row(pg: OwnedPostgres, conversation_id: str) -> dict:
    row = await pg.fetchrow(
        """
        SELECT c.is_processing, c.claim_token, (SELECT count(*) FROM conversation_message m
                                                 WHERE m.conversation_id = c.id) AS messages
        FROM conversation c WHERE c.id = $1::uuid
        """,
        conversation_id,
    )
    assert row is not None
    return dict(row)


# Both ways a turn is answered, each with a turn in flight at the same SIGTERM.
STREAM = {"json": False, "event-stream": True}


async def test_sigterm_during_long_turns_answers_503_shutting_down_and_stores_nothing(pg):
    async with slow_openai() as model:
        env = service_env(
            pg,
            SHOPAGENT_CHAT__PROVIDER="openai",
            SHOPAGENT_CHAT__OPENAI_BASE_URL=model.base_url,
            SHOPAGENT_RUNTIME__SHUTDOWN_GRACE_SECONDS=str(GRACE_SECONDS),
        )
        async with run_role("chat", env) as chat, httpx.AsyncClient(base_url=http_url(chat), timeout=30) as client:
            users = {kind: new_user() for kind in STREAM}
            conversations, stored_before = {}, {}
            for kind, user in users.items():
                hello = {"query": "hello"}
                first = await client.post("/api/assistant-agent/chat", json=hello, headers=chat_headers(user))
                assert first.status_code == 200, first.text
                conversations[kind] = first.json()["conversationId"]
                stored_before[kind] = await _conversation_row(pg, conversations[kind])

            model.hold = True  # the next model calls take longer than any grace period
            answers: dict[str, dict] = {kind: {} for kind in STREAM}

            async def long_turn(kind: str) -> None:
                body = {"query": "take your time", "conversationId": conversations[kind]}
                headers = chat_headers(users[kind]) | ({"Accept": "text/event-stream"} if STREAM[kind] else {})
                try:
                    async with client.stream("POST", "/api/assistant-agent/chat", json=body, headers=headers) as r:
                        text = (await r.aread()).decode()  # to the end of the stream
                    answers[kind].update(status=r.status_code, text=text)
                except httpx.TransportError as exc:  # the connection was cut: no answer at all
                    answers[kind].update(status=None, text=repr(exc))
                answers[kind]["at"] = now()

            async with anyio.create_task_group() as tg:
                for kind in STREAM:
                    tg.start_soon(long_turn, kind)
                await model.wait_requests(2 * len(STREAM), timeout=15)  # both turns are with the model
                running = {kind: await _conversation_row(pg, c) for kind, c in conversations.items()}
                signalled = now()
                chat.signal(signal.SIGTERM)
                # New messages while the turns drain (each on a new connection): the socket stays
                # open for them (it used to close at once), and they get the documented answer.
                await chat.wait_for_log("received SIGTERM", timeout=5)
                late: list[tuple[int | None, str]] = []

                async def late_message() -> None:
                    late.append(await _new_message(http_url(chat)))

                async with anyio.create_task_group() as senders:  # at once: the turns end in a second
                    for _ in range(3):
                        senders.start_soon(late_message)
                code = await chat.wait_exit(timeout=GRACE_SECONDS + 10)
                exited_in = now() - signalled
                tg.cancel_scope.deadline = anyio.current_time() + 5  # the turns were answered by now
            stored_after = {kind: await _conversation_row(pg, c) for kind, c in conversations.items()}

    for kind, answer in answers.items():
        assert "at" in answer, f"{kind}: no answer within 5s of the exit"
        answered_in = answer["at"] - signalled
        print(f"{kind}: answered {answered_in:.2f}s after SIGTERM (grace {GRACE_SECONDS:g}s)")
        assert running[kind]["is_processing"] is True  # the claim was held while the turn ran
        if STREAM[kind]:
            events = sse_events(answer["text"])
            assert answer["status"] == 200, answer  # the stream had begun
            assert events, answer["text"]
            event, data = events[-1]
            assert event == "error" and data["status"] == 503 and data["code"] == "shutting_down", events
            assert not any(k in ("answer", "done") for k, _ in events), events
        else:
            assert answer["status"] == 503, answer
            assert json.loads(answer["text"])["error"]["code"] == "shutting_down", answer
        expected = {"is_processing": False, "claim_token": None, "messages": stored_before[kind]["messages"]}
        assert stored_after[kind] == expected, (kind, stored_after[kind])
        assert answered_in >= GRACE_SECONDS / 2 - 0.1  # the turn had its time, it was not cut at once
        assert answered_in <= GRACE_SECONDS + 0.5
    print(f"exited {exited_in:.2f}s after SIGTERM")
    # The late messages got the documented answer, not a refused connection.
    assert set(late) == {(503, "shutting_down")}, late
    assert code == 0
    assert exited_in <= GRACE_SECONDS + 1


async def _new_message(base_url: str) -> tuple[int | None, str]:
    """A new chat message on a new connection: its status and error code (None: no answer)."""
    try:
        async with httpx.AsyncClient(base_url=base_url, timeout=10) as client:
            body = {"query": "are you there?"}
            response = await client.post("/api/assistant-agent/chat", json=body, headers=chat_headers(new_user()))
    except httpx.TransportError as exc:
        return None, repr(exc)
    return response.status_code, response.json().get("error", {}).get("code", "")


async def test_an_idle_chat_instance_exits_within_a_second_of_sigterm(pg):
    async with run_role("chat", service_env(pg)) as chat, httpx.AsyncClient(base_url=http_url(chat)) as client:
        # A client that made a request and keeps its connection open (keep-alive) does not
        # hold up the stop.
        listed = await client.get("/api/conversations", headers=chat_headers(new_user()))
        assert listed.status_code == 200
        signalled = now()
        chat.signal(signal.SIGTERM)
        code = await chat.wait_exit(timeout=15)
        exited_in = now() - signalled
    print(f"exited {exited_in:.2f}s after SIGTERM")
    assert code == 0
    assert exited_in <= 1.0
