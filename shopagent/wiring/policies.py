"""Settings turned into the plain policy values the use cases, adapters and runtime take."""

from __future__ import annotations

import functools
from typing import Literal

from shopagent.actors.serving import Listening, McpServing
from shopagent.adapters.local.wordlists import known_words
from shopagent.adapters.postgres.search import SearchTuning
from shopagent.application.conversations import ChatPolicy
from shopagent.application.indexing import IndexingPolicy
from shopagent.application.ports import VectorIndexSpec
from shopagent.application.search import SearchPolicy
from shopagent.domain import grade_model, grade_model_multilingual
from shopagent.domain.catalog import CatalogRules
from shopagent.domain.needs import Needs, builtin_needs, builtin_situations
from shopagent.domain.options import StoreLinks
from shopagent.domain.prices import store_locale
from shopagent.domain.ranking import FusionWeights, GradeModel
from shopagent.domain.store_information import PassageGrading
from shopagent.domain.synonyms import builtin_synonyms
from shopagent.domain.text import text_search_config_for
from shopagent.domain.vocabulary import Synonyms
from shopagent.runtime.connections import ConnectionLimits, default_max_connections
from shopagent.runtime.supervisor import RestartPolicy
from shopagent.settings import HttpSettings, McpSettings, OpsSettings, Settings


def catalog_rules(settings: Settings) -> CatalogRules:
    c = settings.catalog
    locale = store_locale(settings.store.language, settings.store.country)
    rules = CatalogRules.create(settings.store.currency, c.colors, c.sizes, c.color_aliases, locale)
    return rules.with_words({}, {}, c.spec_units) if c.spec_units else rules


def store_links(settings: Settings) -> StoreLinks:
    return StoreLinks(settings.store.product_url_template, settings.store.cart_url_template)


def text_search_config(settings: Settings) -> str:
    """`search.text_search_config`, or the one of the store language when it is empty."""
    return settings.search.text_search_config or text_search_config_for(settings.store.language)


def embedding_model_id(settings: Settings) -> str:
    """The id the configured model records on chunks, known without loading the model."""
    e = settings.embedding
    if e.model == "local":
        from shopagent.adapters.local.minilm import MiniLMEmbedder  # its runtime loads only in load()

        return MiniLMEmbedder.model_id
    if e.model == "multilingual":
        from shopagent.adapters.local.multilingual import MultilingualEmbedder  # the package loads in load()

        return MultilingualEmbedder.model_id
    if e.model == "hash":
        return f"hash-{e.hash_dimensions}"
    return f"{e.gemini_model}@{e.gemini_dimensions}"


def grades_for(model_id: str) -> GradeModel:
    """The grade model fitted with this embedding model's distances (each model has its own
    scale); MiniLM's for a model without a fitted set of its own (gemini, hash)."""
    from shopagent.adapters.local.multilingual import MultilingualEmbedder

    if model_id == MultilingualEmbedder.model_id:
        return grade_model_multilingual.GRADE_MODEL
    return grade_model.GRADE_MODEL


# The store pages' grade thresholds are cosine distances; the multilingual model's distances run
# higher than MiniLM's for the same match (its accepted products' median is 0.55). Chosen on 13
# German, French and English store questions against the demo pages (9 answerable, 4 not).
MULTILINGUAL_PASSAGE_GRADING = PassageGrading(
    strong_distance=0.65,
    strong_coverage_distance=0.70,
    full_coverage_distance=0.80,
    partial_distance=0.75,
    agreeing_distance=0.65,  # not measured for this model: no nearer than its strong distance
    topic_distance=0.80,  # not measured for this model: its distance for a passage with every word
)


def passage_grading_for(model_id: str) -> PassageGrading:
    """The store pages' grade thresholds for this embedding model's distances."""
    from shopagent.adapters.local.multilingual import MultilingualEmbedder

    return MULTILINGUAL_PASSAGE_GRADING if model_id == MultilingualEmbedder.model_id else PassageGrading()


def indexing_policy(settings: Settings) -> IndexingPolicy:
    i, e = settings.indexer, settings.embedding
    return IndexingPolicy(
        token_budget=e.chunk_token_budget,
        batch_size=e.batch_size,
        max_attempts=i.max_attempts,
        backoff_seconds=i.retry_backoff_seconds,
        backoff_max_seconds=i.retry_backoff_max_seconds,
    )


def vector_index_spec(settings: Settings) -> VectorIndexSpec:
    return VectorIndexSpec(
        m=settings.search.hnsw_m,
        ef_construction=settings.search.hnsw_ef_construction,
        build_memory_mb=settings.indexer.index_build_memory_mb,
    )


def search_policy(settings: Settings, model_id: str | None = None) -> SearchPolicy:
    """`model_id`: the embedding model in use (default: the configured one), whose grades apply."""
    s = settings.search
    return SearchPolicy(
        weights=FusionWeights(vector=s.vector_weight, lexical=s.lexical_weight, k=s.fusion_k),
        grades=grades_for(model_id or embedding_model_id(settings)),
        depth=s.candidates_per_leg,
        lexical_match_products=s.lexical_match_products,
        vocabulary_refresh_seconds=s.vocabulary_refresh_seconds,
        real_words=known_words(settings.store.language),
        synonyms=shop_synonyms(settings),
        needs=Needs(builtin_needs(settings.store.language), builtin_situations(settings.store.language))
        | Needs(settings.search.needs),
    )


def shop_synonyms(settings: Settings) -> Synonyms:
    """The built-in starter list for the catalog's language, with the shop's `[search.synonyms]` over it."""
    return builtin_synonym_table(settings.store.language) | Synonyms(settings.search.synonyms)


@functools.lru_cache(maxsize=8)
def builtin_synonym_table(language: str) -> Synonyms:
    """The built-in starter list of a catalog language, made once (its thousands of pairs take a
    tenth of a second to fold and group; a `Synonyms` is never changed after it is made)."""
    return Synonyms(builtin_synonyms(language))


def search_tuning(settings: Settings) -> SearchTuning:
    s = settings.search
    return SearchTuning(
        ef_search=s.ef_search,
        max_scan_tuples=s.max_scan_tuples,
        exact_below_products=s.exact_below_products,
        statistics_refresh_seconds=s.vocabulary_refresh_seconds,  # refreshed together in the background
    )


def chat_policy(settings: Settings) -> ChatPolicy:
    c = settings.chat
    return ChatPolicy(
        context_policy=c.context_policy,
        context_token_budget=c.context_token_budget,
        turn_timeout_seconds=c.turn_timeout_seconds,
    )


def restart_policy(settings: Settings) -> RestartPolicy:
    r = settings.runtime
    return RestartPolicy(
        max_restarts=r.restart_max,
        within_seconds=r.restart_window_seconds,
        backoff_seconds=r.restart_backoff_seconds,
        backoff_max_seconds=r.restart_backoff_max_seconds,
    )


# The ops server answers probes and scrapes, a handful at a time.
OPS_MAX_CONNECTIONS = 64


def listening(settings: Settings, server: Literal["http", "mcp", "ops"]) -> Listening:
    """What the `server` actor takes of the settings."""
    section: HttpSettings | McpSettings | OpsSettings = getattr(settings, server)
    c = settings.connections
    cap = c.max_per_server or default_max_connections()
    limits = ConnectionLimits(
        max_connections=min(cap, OPS_MAX_CONNECTIONS) if server == "ops" and not c.max_per_server else cap,
        header_timeout_seconds=c.header_timeout_seconds,
        body_timeout_seconds=c.body_timeout_seconds,
        keep_alive_seconds=c.keep_alive_seconds,
    )
    access_log = settings.logging.access_log and server != "ops"  # probes and scrapes are not logged
    return Listening(section.host, section.port, settings.runtime.shutdown_grace_seconds, limits, access_log)


def mcp_serving(settings: Settings) -> McpServing:
    """What the mcp actor takes of the settings."""
    key = settings.secrets.mcp_api_key
    return McpServing(listening(settings, "mcp"), settings.mcp, key.reveal() if key is not None else None)
