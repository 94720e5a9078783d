"""Chat turns over persisted conversations.

Cheap checks first (ownership, the context-limit flag, a running turn) give precise errors;
the atomic claim is what actually protects. The agent runs on the stored history plus the
new user message; only a successful run is persisted (user message + new messages, in one
insert, conditional on still holding the claim), so history never holds a function call
without its response. The claim is released in `finally`, with our token only.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import anyio

from shopagent.application.agent import AssistantAgent, EventSink
from shopagent.application.ports import Conversations
from shopagent.domain.chat import ChatMessage, FunctionResponse
from shopagent.domain.conversation import Conversation, estimate_context_tokens, halve_history, title_for, trim_history
from shopagent.domain.errors import (
    ClaimLost,
    ContextLimitReached,
    ContextWindowExceeded,
    ConversationBusy,
    DatabaseUnavailable,
    NotFound,
    TurnTimeout,
    ValidationError,
)
from shopagent.domain.inputs import check_text

log = logging.getLogger("shopagent.chat")

MAX_QUERY_CHARS = 2000


@dataclass(frozen=True)
class ChatPolicy:
    context_policy: Literal["stop", "trim"] = "stop"
    context_token_budget: int = 100_000  # estimated tokens of history sent to the model (trim policy)
    turn_timeout_seconds: float = 120.0


@dataclass(frozen=True)
class TurnResult:
    conversation_id: uuid.UUID
    response: str
    answer: ChatMessage | None = None  # the stored model message holding the answer
    sequence: int = 0  # its place in the conversation, counted from 1 as the API shows it
    tool_results: tuple[FunctionResponse, ...] = ()  # what the turn's tool calls returned, in order


class ChatService:
    def __init__(self, conversations: Conversations, agent: AssistantAgent, policy: ChatPolicy) -> None:
        self._store = conversations
        self._agent = agent
        self._policy = policy
        self._unreleased: dict[uuid.UUID, uuid.UUID] = {}  # claims an outage kept us from releasing

    async def run_turn(
        self, user_id: str, query: str, conversation_id: uuid.UUID | None = None, on_event: EventSink | None = None
    ) -> TurnResult:
        query = check_text(query, "query").strip()
        if not 1 <= len(query) <= MAX_QUERY_CHARS:
            raise ValidationError(f"query must be 1-{MAX_QUERY_CHARS} characters (got {len(query)})", field="query")
        if conversation_id is None:
            response, new = await self._run([], query, on_event)
            user = ChatMessage.user(query)
            created = await self._store.create(user_id, title_for(query), self._agent.model.model_id, [user, *new])
            return TurnResult(created, response, new[-1], 1 + len(new), _results_of(new))
        conversation = await self._owned(user_id, conversation_id)
        if conversation.is_processing and await self._release_leftover(conversation_id):
            conversation = await self._owned(user_id, conversation_id)
        if conversation.max_context_window_reached:
            raise ContextLimitReached("this conversation reached the model's context window; start a new one")
        if conversation.is_processing:
            raise ConversationBusy("another message of this conversation is still being answered; try again shortly")
        token = await self._store.claim(conversation_id)
        if token is None:
            raise ConversationBusy("another message of this conversation is still being answered; try again shortly")
        try:
            return await self._continue(conversation_id, token, query, on_event)
        finally:
            with anyio.CancelScope(shield=True):
                try:
                    released = await self._store.release(conversation_id, token)
                except DatabaseUnavailable:
                    # The turn's own outcome stands (an answer stored before the outage is
                    # still answered). The claim is released by the next message to this
                    # conversation here, or by the reaper once the database is back.
                    self._unreleased[conversation_id] = token
                    log.warning("conversation %s: its claim could not be released (the database is away)",
                                conversation_id)  # fmt: skip
                else:
                    if not released:
                        log.warning("conversation %s: the claim was released before the turn ended", conversation_id)

    async def _release_leftover(self, conversation_id: uuid.UUID) -> bool:
        """Release a claim of ours that an outage kept us from releasing; whether there was one."""
        token = self._unreleased.get(conversation_id)
        if token is None:
            return False
        await self._store.release(conversation_id, token)  # still away: kept for the next message
        del self._unreleased[conversation_id]
        log.info("conversation %s: released the claim an outage had kept", conversation_id)
        return True

    async def _continue(
        self, conversation_id: uuid.UUID, token: uuid.UUID, query: str, on_event: EventSink | None
    ) -> TurnResult:
        # Re-read under the claim: the history may have grown since the cheap checks.
        conversation = await self._store.find(conversation_id)
        assert conversation is not None
        try:
            response, new = await self._run(conversation.messages, query, on_event)
        except ContextWindowExceeded:
            await self._store.mark_context_limit(conversation_id, token)
            raise ContextLimitReached("this conversation reached the model's context window; start a new one") from None
        if not await self._store.append(conversation_id, token, [ChatMessage.user(query), *new]):
            raise ClaimLost("this message took too long and was not saved; please send it again")
        sequence = len(conversation.messages) + 1 + len(new)
        return TurnResult(conversation_id, response, new[-1], sequence, _results_of(new))

    async def _run(
        self, history: list[ChatMessage], query: str, on_event: EventSink | None
    ) -> tuple[str, list[ChatMessage]]:
        """Run the agent within the turn timeout, trimming history when the policy says so."""
        trim = self._policy.context_policy == "trim"
        if trim and estimate_context_tokens(history) > self._policy.context_token_budget:
            history = trim_history(history, self._policy.context_token_budget)
        with anyio.move_on_after(self._policy.turn_timeout_seconds) as deadline:
            try:
                return await self._agent.run(history, query, on_event)
            except ContextWindowExceeded:
                if not trim or not history:
                    raise
                log.info("context window exceeded; retrying once with the newer half of the history")
                return await self._agent.run(halve_history(history), query, on_event)
        assert deadline.cancelled_caught
        raise TurnTimeout(f"no answer within {self._policy.turn_timeout_seconds:g}s; nothing was saved")

    async def _owned(self, user_id: str, conversation_id: uuid.UUID) -> Conversation:
        conversation = await self._store.find(conversation_id, with_messages=False)
        if conversation is None or conversation.user_id != user_id:
            raise NotFound(f"conversation {conversation_id} does not exist")
        return conversation

    async def get(self, user_id: str, conversation_id: uuid.UUID) -> Conversation:
        conversation = await self._store.find(conversation_id)
        if conversation is None or conversation.user_id != user_id:
            raise NotFound(f"conversation {conversation_id} does not exist")
        return conversation

    async def list(
        self, user_id: str, *, limit: int, before: tuple[datetime, uuid.UUID] | None = None
    ) -> list[Conversation]:
        return await self._store.list_for(user_id, limit=limit, before=before)

    async def delete(self, user_id: str, conversation_id: uuid.UUID) -> None:
        await self._owned(user_id, conversation_id)
        deleted = await self._store.delete(conversation_id)
        if deleted is None:
            raise NotFound(f"conversation {conversation_id} does not exist")
        if not deleted:
            raise ConversationBusy("the conversation is answering a message; delete it once that is done")


def _results_of(messages: list[ChatMessage]) -> tuple[FunctionResponse, ...]:
    return tuple(p for m in messages for p in m.parts if isinstance(p, FunctionResponse))
