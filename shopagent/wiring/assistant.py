"""The assistant wired up: its chat model, its tools (the MCP server at chat.mcp_url, or this
process's own in memory) and, for the chat API, the chat service around it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import anyio

from shopagent.adapters.postgres.search import PostgresSearchIndex
from shopagent.application.agent import AssistantAgent
from shopagent.application.conversations import ChatService
from shopagent.application.ports import ChatModel, EmbeddingModel
from shopagent.application.prompts import system_prompt
from shopagent.application.vocabulary import CatalogVocabulary
from shopagent.domain.errors import ConfigError
from shopagent.instrumentation import MeasuredChatModel, MeasuredChatService, MeasuredToolGateway
from shopagent.wiring.policies import chat_policy, search_policy, search_tuning, text_search_config
from shopagent.wiring.providers import Vocabulary, build_chat_model, chat_provider
from shopagent.wiring.services import CoreServices, SearchServices

if TYPE_CHECKING:
    from shopagent.adapters.mcp.gateway import McpToolGateway


@contextlib.asynccontextmanager
async def open_tool_gateway(services: CoreServices) -> AsyncIterator[McpToolGateway]:
    """The agent's tools: the MCP server at chat.mcp_url, else this process's own, in memory."""
    from shopagent.adapters.mcp.gateway import open_in_process, open_over_http

    settings = services.settings
    if settings.chat.mcp_url:
        key = settings.secrets.mcp_api_key.reveal() if settings.secrets.mcp_api_key else None
        async with open_over_http(settings.chat.mcp_url, key) as gateway:
            services.remote_tools.gateway = gateway
            try:
                yield gateway
            finally:
                services.remote_tools.gateway = None
        return
    if not isinstance(services, SearchServices):
        raise ConfigError("the assistant's tools: set chat.mcp_url, or open the services for a role that searches")
    async with open_in_process(services.mcp_server) as gateway:
        yield gateway


@contextlib.asynccontextmanager
async def open_agent(services: CoreServices, model: ChatModel | None = None) -> AsyncIterator[AssistantAgent]:
    """The assistant with the configured (or given) model and tools; both are closed on exit."""
    settings = services.settings
    provider = chat_provider(settings) if model is None else "custom"  # a model given by a test or benchmark
    measured = MeasuredChatModel(
        model or build_chat_model(settings, vocabulary_source(services), _embedder_of(services)),
        services.metrics,
        provider,
    )
    try:
        async with open_tool_gateway(services) as gateway:
            tools = MeasuredToolGateway(gateway, services.metrics)
            store = settings.store
            prompt = system_prompt(store.name, store.currency, store.country, store.language)
            yield AssistantAgent(
                measured, tools, prompt, max_steps=settings.chat.max_steps, temperature=settings.chat.temperature,
                language=store.language,
            )  # fmt: skip
    finally:
        with anyio.CancelScope(shield=True):
            await measured.aclose()


@contextlib.asynccontextmanager
async def open_chat(services: CoreServices, model: ChatModel | None = None) -> AsyncIterator[ChatService]:
    """The chat API's service: conversations kept in the database, turns run by the assistant."""
    async with open_agent(services, model) as agent:
        yield MeasuredChatService(
            services.conversations, agent, chat_policy(services.settings), metrics=services.metrics
        )


def vocabulary_source(services: CoreServices) -> Vocabulary:
    """The catalog's words: the search's own copy in this process, else read from the index."""
    if isinstance(services, SearchServices):
        return services.search.vocabulary
    s = services.settings
    index = PostgresSearchIndex(services.pool, text_search_config(s), search_tuning(s))
    policy = search_policy(s)
    return CatalogVocabulary(index, policy.vocabulary_refresh_seconds, policy.real_words, policy.synonyms)


def _embedder_of(services: CoreServices) -> EmbeddingModel | None:
    """The search's embedding model, when this process runs the search (not a chat-only role)."""
    return services.embedder if isinstance(services, SearchServices) else None
