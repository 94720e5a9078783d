"""The configured model providers, built from settings. Each optional provider's stack (the
Gemini SDK, the OpenAI-compatible HTTP client, onnxruntime and tokenizers for MiniLM, the
multilingual encoder, the offline concierge) is imported inside the builder that needs it, so a process imports only
the ones it uses."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from shopagent.application.ports import ChatModel, EmbeddingModel
from shopagent.domain.errors import ConfigError
from shopagent.domain.options import fold
from shopagent.domain.text import OptionWords
from shopagent.settings import Settings
from shopagent.wiring.policies import catalog_rules

if TYPE_CHECKING:
    from shopagent.adapters.local.concierge import LanguageNames, OfflineConcierge

log = logging.getLogger("shopagent")

Vocabulary = Callable[[], Awaitable[Any]]


async def build_embedder(settings: Settings) -> EmbeddingModel:
    """The configured embedding model, loaded and ready."""
    e = settings.embedding
    if e.model == "local":
        from shopagent.adapters.local.minilm import MiniLMEmbedder

        return await MiniLMEmbedder.load()
    if e.model == "multilingual":
        from shopagent.adapters.local.multilingual import MultilingualEmbedder

        return await MultilingualEmbedder.load()
    if e.model == "hash":
        from shopagent.adapters.local.hash_embedder import HashEmbedder

        return HashEmbedder(e.hash_dimensions)
    if settings.secrets.gemini_api_key is None:
        raise ConfigError("embedding.model = 'gemini' needs the GEMINI_API_KEY environment variable")
    from shopagent.adapters.gemini.embeddings import GeminiEmbedder

    return GeminiEmbedder(
        settings.secrets.gemini_api_key.reveal(),
        model=e.gemini_model,
        dimensions=e.gemini_dimensions,
        timeout_seconds=e.gemini_timeout_seconds,
    )


def chat_provider(settings: Settings) -> str:
    """The chat provider in use: chat.provider, with "auto" resolved."""
    if settings.chat.provider == "auto":
        return "gemini" if settings.secrets.gemini_api_key is not None else "offline"
    return settings.chat.provider


def build_chat_model(
    settings: Settings, vocabulary: Vocabulary | None = None, embedder: EmbeddingModel | None = None
) -> ChatModel:
    """The configured chat model (the offline concierge unless a provider is set up).

    `vocabulary` gives the catalog's words (`Vocabulary`), which the concierge uses to tell
    shopping from off-topic requests; `embedder` (the search's model, when this process has
    it) lets it find the description sentences that answer a question about a product.
    """
    chat, secrets = settings.chat, settings.secrets
    provider = chat_provider(settings)
    if provider == "gemini":
        if secrets.gemini_api_key is None:
            raise ConfigError("chat.provider = 'gemini' needs the GEMINI_API_KEY environment variable")
        from shopagent.adapters.gemini.chat import GeminiChatModel

        return GeminiChatModel(secrets.gemini_api_key.reveal(), model=chat.gemini_model)
    if provider == "openai":
        from shopagent.adapters.openai_compat.chat import OpenAICompatChatModel

        key = secrets.openai_api_key.reveal() if secrets.openai_api_key else None
        if chat.openai_timeout_seconds >= chat.turn_timeout_seconds:
            log.warning(
                "chat.openai_timeout_seconds (%g) is not below chat.turn_timeout_seconds (%g): a slow model "
                "request ends with the turn's timeout instead",
                chat.openai_timeout_seconds,
                chat.turn_timeout_seconds,
            )
        return OpenAICompatChatModel(
            chat.openai_base_url, chat.openai_model, api_key=key, timeout_seconds=chat.openai_timeout_seconds
        )
    return build_concierge(settings, vocabulary, embedder)


def build_concierge(
    settings: Settings, vocabulary: Vocabulary | None = None, embedder: EmbeddingModel | None = None
) -> OfflineConcierge:
    from shopagent.adapters.local.concierge import OfflineConcierge, replies_for

    language = settings.store.language
    replies = replies_for(language)
    if replies is None:
        log.info("the offline assistant has no replies in %r; it answers in English", language)
    return OfflineConcierge(
        catalog_rules(settings),
        settings.store.name,
        language=language.split("-")[0].casefold(),
        names=language_names(settings),
        vocabulary=vocabulary,
        embedder=embedder,
        contact=settings.store.contact,
        **({"replies": replies} if replies is not None else {}),
    )


def language_names(settings: Settings) -> dict[str, LanguageNames]:
    """Each language's words for the catalog's colours and sizes: the built-in German and
    French colour names, then [catalog.language_aliases], whose targets must exist."""
    from shopagent.adapters.local.concierge import LanguageNames
    from shopagent.adapters.local.concierge.phrases import BUILTIN_COLOR_NAMES, BUILTIN_SIZE_NAMES

    rules = catalog_rules(settings)
    names: dict[str, LanguageNames] = {}
    for language in {*BUILTIN_COLOR_NAMES, *BUILTIN_SIZE_NAMES, *settings.catalog.language_aliases}:
        configured = settings.catalog.language_aliases.get(language)
        colors = dict(BUILTIN_COLOR_NAMES.get(language, {}))
        sizes = dict(BUILTIN_SIZE_NAMES.get(language, {}))
        if configured is not None:
            for word, target in configured.colors.items():
                if rules.color(target) is None:
                    raise ConfigError(
                        f"catalog.language_aliases.{language}.colors: {word!r} points to {target!r}, "
                        f"which is not one of catalog.colors"
                    )
            for word, target in configured.sizes.items():
                if rules.size(target) is None:
                    raise ConfigError(
                        f"catalog.language_aliases.{language}.sizes: {word!r} points to {target!r}, "
                        f"which is not one of catalog.sizes"
                    )
            # The shop's own words first: they are how its colours are written in that language.
            colors = {**configured.colors, **{k: v for k, v in colors.items() if k not in configured.colors}}
            sizes = {**configured.sizes, **sizes}
        names[language] = LanguageNames(colors=colors, sizes=sizes)
    return names


def option_words(settings: Settings) -> OptionWords:
    """How shop exports may write the catalog's colours and sizes: every language's names for them."""
    names = language_names(settings).values()
    return OptionWords.create(
        catalog_rules(settings),
        colors={fold(word): color for language in names for word, color in language.colors.items()},
        sizes={fold(word): size for language in names for word, size in language.sizes.items()},
    )
