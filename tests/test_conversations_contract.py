"""The `Conversations` port's contract, run against every implementation
(tests.storage_backends.py: PostgreSQL and the in-memory twin), and shown to catch a
twin that breaks it."""

from __future__ import annotations

import uuid

import pytest

from shopagent.adapters.memory.conversations import MemoryConversations
from shopagent.domain.chat import ChatMessage, TextPart, Usage
from tests.storage_backends import CONVERSATIONS, twin

pytestmark = pytest.mark.anyio


def said(text: str, usage: Usage | None = None) -> ChatMessage:
    return ChatMessage(role="model", parts=[TextPart(text)], usage=usage)


async def stores_a_conversation_with_its_messages_and_their_usage(store, advance) -> None:
    first = [ChatMessage.user("red boots?"), said("Here are two.", Usage(120, 8))]
    conversation_id = await store.create("ana", "red boots?", "model-a", first)
    found = await store.find(conversation_id)
    assert (found.user_id, found.title, found.model_id) == ("ana", "red boots?", "model-a")
    assert (found.messages, found.usage) == (first, Usage(120, 8))
    assert not found.is_processing and not found.max_context_window_reached
    assert (await store.find(conversation_id, with_messages=False)).messages == []
    assert await store.find(uuid.uuid4()) is None


async def hands_out_one_claim_at_a_time_each_with_a_fresh_token(store, advance) -> None:
    conversation_id = await store.create("ana", "t", "m", [ChatMessage.user("hi")])
    token = await store.claim(conversation_id)
    assert token is not None and (await store.find(conversation_id)).is_processing
    assert await store.claim(conversation_id) is None  # busy
    assert not await store.release(conversation_id, uuid.uuid4())  # not ours
    assert await store.release(conversation_id, token)
    again = await store.claim(conversation_id)
    assert again is not None and again != token
    assert await store.claim(uuid.uuid4()) is None  # no such conversation


async def writes_only_with_the_current_claims_token(store, advance) -> None:
    conversation_id = await store.create("ana", "t", "m", [ChatMessage.user("hi")])
    token = await store.claim(conversation_id)
    assert await store.append(conversation_id, token, [ChatMessage.user("more"), said("ok", Usage(5, 1))])
    await store.release(conversation_id, token)
    assert not await store.append(conversation_id, token, [said("late")])  # the claim is gone
    assert not await store.mark_context_limit(conversation_id, token)
    found = await store.find(conversation_id)
    assert [m.text for m in found.messages] == ["hi", "more", "ok"] and found.usage == Usage(5, 1)


async def closes_a_conversation_whose_context_is_full(store, advance) -> None:
    conversation_id = await store.create("ana", "t", "m", [ChatMessage.user("hi")])
    token = await store.claim(conversation_id)
    assert await store.mark_context_limit(conversation_id, token)
    await store.release(conversation_id, token)
    assert (await store.find(conversation_id)).max_context_window_reached
    assert await store.claim(conversation_id) is None


async def deletes_only_a_conversation_no_turn_is_running_on(store, advance) -> None:
    conversation_id = await store.create("ana", "t", "m", [ChatMessage.user("hi")])
    token = await store.claim(conversation_id)
    assert await store.delete(conversation_id) is False
    await store.release(conversation_id, token)
    assert await store.delete(conversation_id) is True
    assert await store.find(conversation_id) is None
    assert await store.delete(conversation_id) is None


async def lists_a_users_conversations_most_recent_first_a_page_at_a_time(store, advance) -> None:
    ids = []
    for n in range(3):
        ids.append(await store.create("ana", f"c{n}", "m", [ChatMessage.user(str(n))]))
        await advance(1)  # distinct times: the order under test is by time
    await store.create("bob", "other", "m", [ChatMessage.user("x")])
    token = await store.claim(ids[0])
    await store.append(ids[0], token, [said("newest activity")])
    await store.release(ids[0], token)
    first_page = await store.list_for("ana", limit=2)
    assert [c.id for c in first_page] == [ids[0], ids[2]]
    last = first_page[-1]
    assert [c.id for c in await store.list_for("ana", limit=2, before=(last.updated_at, last.id))] == [ids[1]]


async def frees_claims_held_too_long_and_their_tokens_stop_working(store, advance) -> None:
    conversation_id = await store.create("ana", "t", "m", [ChatMessage.user("hi")])
    token = await store.claim(conversation_id)
    await advance(60)
    assert await store.release_stuck(3600) == []  # not held that long
    assert await store.release_stuck(30) == [conversation_id]
    assert not (await store.find(conversation_id)).is_processing
    assert not await store.append(conversation_id, token, [said("late")])
    assert await store.claim(conversation_id) is not None


CONTRACT = [
    stores_a_conversation_with_its_messages_and_their_usage,
    hands_out_one_claim_at_a_time_each_with_a_fresh_token,
    writes_only_with_the_current_claims_token,
    closes_a_conversation_whose_context_is_full,
    deletes_only_a_conversation_no_turn_is_running_on,
    lists_a_users_conversations_most_recent_first_a_page_at_a_time,
    frees_claims_held_too_long_and_their_tokens_stop_working,
]


@pytest.fixture(params=sorted(CONVERSATIONS))
def conversations_opener(request: pytest.FixtureRequest):
    return CONVERSATIONS[request.param](request)  # synchronously: it may ask for the database fixture


@pytest.fixture
async def conversations(conversations_opener):
    """Each implementation of the port (tests.storage_backends.py), over a fresh store."""
    async with conversations_opener as opened:
        yield opened


@pytest.mark.parametrize("rule", CONTRACT, ids=lambda rule: rule.__name__)
async def test_the_conversations_contract(conversations, rule) -> None:
    await rule(conversations.store, conversations.advance)


class TwoClaimsAtOnce(MemoryConversations):
    """A twin that drifted: it claims a conversation whatever its state."""

    async def claim(self, conversation_id: uuid.UUID) -> uuid.UUID | None:
        stored = self._stored.get(conversation_id)
        if stored is None:
            return None
        stored.token = uuid.uuid4()
        self._set(stored, is_processing=True, processing_started_at=self._clock())
        return stored.token


async def test_a_twin_that_breaks_a_rule_fails_the_contract() -> None:
    failed = []
    for rule in CONTRACT:
        try:
            await rule(*twin(lambda clock: TwoClaimsAtOnce(clock.now)))
        except AssertionError:
            failed.append(rule.__name__)
    assert failed == [
        "hands_out_one_claim_at_a_time_each_with_a_fresh_token",
        "closes_a_conversation_whose_context_is_full",
    ]
