"""The settings sections: one frozen msgspec Struct per section of config.toml.

Every section forbids unknown keys, so a typo in the file or in a `SHOPAGENT_<SECTION>__<KEY>`
variable is an error naming the key, not a silently ignored setting. The defaults here are
exactly what config.toml documents.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from shopagent.settings.secret import Secrets

Port = Annotated[int, msgspec.Meta(ge=0, le=65535)]
Seconds = Annotated[float, msgspec.Meta(gt=0)]
NonNegativeSeconds = Annotated[float, msgspec.Meta(ge=0)]
PositiveInt = Annotated[int, msgspec.Meta(ge=1)]
NonNegativeInt = Annotated[int, msgspec.Meta(ge=0)]


class Section(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    pass


class StoreSettings(Section, frozen=True):
    name: str = "Shopagent Demo Store"
    currency: Annotated[str, msgspec.Meta(pattern="^[A-Z]{3}$")] = "EUR"
    country: Annotated[str, msgspec.Meta(pattern="^[A-Z]{2}$")] = "DE"
    language: str = "en"
    # How customers reach the shop (e-mail, phone, a contact page), for answers the store pages
    # do not give; empty = not said.
    contact: str = ""
    # Links for products the catalog gives no `url` for (placeholders {slug}, {external_id},
    # {variation_external_id}, {sku}); empty = no link.
    product_url_template: str = ""
    cart_url_template: str = ""

    def __post_init__(self) -> None:
        from shopagent.domain.errors import ValidationError
        from shopagent.domain.options import StoreLinks

        try:
            StoreLinks(self.product_url_template, self.cart_url_template)
        except ValidationError as exc:
            raise ValueError(str(exc)) from None


class DatabaseSettings(Section, frozen=True):
    pool_min_size: NonNegativeInt = 1
    pool_max_size: PositiveInt = 10
    connect_timeout_seconds: Seconds = 10.0
    command_timeout_seconds: Seconds = 30.0
    # PostgreSQL's own limits on every connection of every role (0 = off): a statement waits at
    # most this long for a lock, and a session whose transaction is left open and idle this long
    # (a frozen or cut-off holder) is ended by the server, so its row locks never outlive it.
    lock_timeout_seconds: NonNegativeSeconds = 5.0
    idle_in_transaction_timeout_seconds: NonNegativeSeconds = 10.0
    embedded_start_timeout_seconds: Seconds = 60.0
    # The embedded PostgreSQL's shared buffers in MiB (0 = PostgreSQL's default, 128 MiB). A large
    # catalog searches fastest when its vector index and chunks fit (bench/README.md, scale.py).
    embedded_shared_buffers_mb: NonNegativeInt = 0


class RuntimeSettings(Section, frozen=True):
    data_dir: str = ""
    generate_secrets: bool = False
    shutdown_grace_seconds: Seconds = 10.0
    restart_max: NonNegativeInt = 5
    restart_window_seconds: Seconds = 60.0
    restart_backoff_seconds: Seconds = 0.5
    restart_backoff_max_seconds: Seconds = 10.0
    mailbox_capacity: PositiveInt = 256


class LoggingSettings(Section, frozen=True):
    level: Literal["debug", "info", "warning", "error"] = "info"
    format: Literal["auto", "text", "json"] = "auto"
    access_log: bool = False


Origin = Annotated[str, msgspec.Meta(pattern=r"^(\*|https?://[A-Za-z0-9.\-\[\]:]+)$")]


class HttpSettings(Section, frozen=True):
    host: str = "127.0.0.1"
    port: Port = 8080
    # Browser origins allowed to call the public API (CORS), e.g. ["https://shop.example"]; "*" = any.
    cors_origins: list[Origin] = msgspec.field(default_factory=list)
    # Anonymous visitors: POST /api/assistant-agent/visitor-token hands out a short-lived token
    # for a new random user id, rate-limited per client address. Off: shops mint tokens themselves.
    anonymous_chat: bool = False
    anonymous_token_ttl_seconds: Annotated[int, msgspec.Meta(ge=60, le=86_400)] = 3600
    anonymous_rate_per_minute: Annotated[float, msgspec.Meta(gt=0)] = 6.0
    anonymous_rate_burst: PositiveInt = 5
    anonymous_tokens_per_hour: PositiveInt = 20  # per client address
    # Chat messages of all anonymous visitors together, per minute (a minute's worth at once).
    anonymous_messages_per_minute: Annotated[float, msgspec.Meta(gt=0)] = 60.0


class McpSettings(Section, frozen=True):
    host: str = "127.0.0.1"
    port: Port = 8000
    allowed_hosts: list[str] = msgspec.field(default_factory=list)
    allowed_origins: list[str] = msgspec.field(default_factory=list)
    max_body_bytes: Annotated[int, msgspec.Meta(ge=1024)] = 1_048_576
    rate_per_minute: Annotated[float, msgspec.Meta(gt=0)] = 600.0
    rate_burst: PositiveInt = 100
    # The deployment's own chat instances (chat.mcp_url) together: a budget apart from the
    # outside clients' one (each shopper's messages are limited by chat.rate_* already).
    chat_rate_per_minute: Annotated[float, msgspec.Meta(gt=0)] = 6000.0
    chat_rate_burst: PositiveInt = 1000
    # Ordinary tools/call requests answered without the SDK's per-request machinery (same
    # answers, checked by a test); false sends every request through the SDK.
    fast_path: bool = True


class AdminSettings(Section, frozen=True):
    rate_per_minute: Annotated[float, msgspec.Meta(gt=0)] = 600.0
    rate_burst: PositiveInt = 100


# A shopper's word or phrase, or the catalog's words it stands for (`[search.synonyms]`).
SynonymText = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]


class SearchSettings(Section, frozen=True):
    ef_search: Annotated[int, msgspec.Meta(ge=10, le=1000)] = 100
    max_scan_tuples: Annotated[int, msgspec.Meta(ge=1000)] = 20_000
    # Unset: the vector leg's plan by estimated cost (adapters/postgres/search_plan.py); set, the
    # fixed threshold of before (exact distances when fewer products match; 0: always the index).
    exact_below_products: NonNegativeInt | None = None
    hnsw_m: Annotated[int, msgspec.Meta(ge=2, le=100)] = 16
    hnsw_ef_construction: Annotated[int, msgspec.Meta(ge=4, le=1000)] = 64
    text_search_config: Annotated[str, msgspec.Meta(pattern="^([a-z_][a-z0-9_]{0,62})?$")] = ""
    vector_weight: Annotated[float, msgspec.Meta(ge=0, le=10)] = 1.0
    lexical_weight: Annotated[float, msgspec.Meta(ge=0, le=10)] = 1.5
    fusion_k: Annotated[float, msgspec.Meta(ge=1, le=1000)] = 2.0
    candidates_per_leg: Annotated[int, msgspec.Meta(ge=5, le=500)] = 10
    lexical_match_products: Annotated[int, msgspec.Meta(ge=1)] = 2_000
    vocabulary_refresh_seconds: Annotated[float, msgspec.Meta(ge=0)] = 60.0
    synonyms: Annotated[dict[SynonymText, SynonymText], msgspec.Meta(max_length=10_000)] = msgspec.field(
        default_factory=dict
    )
    # A shopper's trouble (words all of which a query must have) -> the words of what answers it, added to the
    # search ("sheds" = "deshedding undercoat"; domain/needs.py has the built-in list)
    needs: Annotated[dict[SynonymText, SynonymText], msgspec.Meta(max_length=10_000)] = msgspec.field(
        default_factory=dict
    )

    def __post_init__(self) -> None:
        for word, meaning in self.synonyms.items():
            # a word of several meanings lists them with "|", the usual one first ("geschirr" = "tableware|harness")
            parts = meaning.split("|")
            if not any(ch.isalnum() for ch in word) or not all(any(ch.isalnum() for ch in m) for m in parts):
                raise ValueError(
                    f"synonym {word!r} = {meaning!r} needs letters or digits on both sides (and in each meaning "
                    "between '|')"
                )
        for trouble, answer in self.needs.items():
            if not any(ch.isalnum() for ch in trouble) or not any(ch.isalnum() for ch in answer):
                raise ValueError(f"need {trouble!r} = {answer!r} needs letters or digits on both sides")
        if self.vector_weight == 0 and self.lexical_weight == 0:
            raise ValueError("vector_weight and lexical_weight cannot both be 0")
        if self.hnsw_ef_construction < 2 * self.hnsw_m:
            raise ValueError(
                f"hnsw_ef_construction ({self.hnsw_ef_construction}) must be at least twice hnsw_m ({self.hnsw_m})"
            )


class OpsSettings(Section, frozen=True):
    host: str = "127.0.0.1"
    port: Port = 9090


class ConnectionSettings(Section, frozen=True):
    """Bounds on the connections of each server (http, mcp, ops): see runtime/connections.py."""

    max_per_server: NonNegativeInt = 0  # 0: from the open-file limit (ops: at most 64)
    header_timeout_seconds: Seconds = 5.0
    body_timeout_seconds: Seconds = 10.0
    keep_alive_seconds: Seconds = 5.0


DEFAULT_COLORS = (
    "black",
    "white",
    "grey",
    "navy",
    "blue",
    "red",
    "burgundy",
    "pink",
    "green",
    "olive",
    "beige",
    "brown",
    "camel",
    "yellow",
    "orange",
    "purple",
)
DEFAULT_SIZES = ("XS", "S", "M", "L", "XL", "XXL", "XXXL", *(str(n) for n in range(36, 47)), "ONE SIZE")


class LanguageAliases(Section, frozen=True):
    """A language's words for the catalog's colours and sizes (word = colour / size)."""

    colors: dict[str, str] = msgspec.field(default_factory=dict)
    sizes: dict[str, str] = msgspec.field(default_factory=dict)


class CatalogSettings(Section, frozen=True):
    colors: list[str] = msgspec.field(default_factory=lambda: list(DEFAULT_COLORS))
    color_aliases: dict[str, str] = msgspec.field(
        default_factory=lambda: {"gray": "grey", "dark blue": "navy", "tan": "camel", "violet": "purple"}
    )
    sizes: list[str] = msgspec.field(default_factory=lambda: list(DEFAULT_SIZES))
    # language (BCP 47 primary tag) -> its words, added to the built-in German and French colour names
    language_aliases: dict[str, LanguageAliases] = msgspec.field(default_factory=dict)
    # spec name -> the unit shown after its value (capacity_ml = "ml"); a name's unit suffix otherwise
    spec_units: dict[str, str] = msgspec.field(default_factory=dict)


class EmbeddingSettings(Section, frozen=True):
    model: Literal["local", "multilingual", "gemini", "hash"] = "local"
    batch_size: Annotated[int, msgspec.Meta(ge=1, le=100)] = 32
    chunk_token_budget: Annotated[int, msgspec.Meta(ge=16, le=250)] = 96
    gemini_model: str = "gemini-embedding-001"
    gemini_dimensions: Annotated[int, msgspec.Meta(ge=128, le=3072)] = 768
    gemini_timeout_seconds: Seconds = 30.0
    hash_dimensions: Annotated[int, msgspec.Meta(ge=8, le=2000)] = 384


class IndexerSettings(Section, frozen=True):
    workers: PositiveInt = 2
    poll_interval_seconds: Seconds = 5.0
    claim_batch: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 32
    lease_seconds: Annotated[float, msgspec.Meta(ge=1)] = 15.0
    max_attempts: PositiveInt = 5
    retry_backoff_seconds: Seconds = 1.0
    retry_backoff_max_seconds: Seconds = 300.0
    bulk_load_events: NonNegativeInt = 2_000
    index_build_memory_mb: Annotated[int, msgspec.Meta(ge=64, le=65_536)] = 512


class ChatSettings(Section, frozen=True):
    provider: Literal["auto", "offline", "gemini", "openai"] = "auto"
    gemini_model: str = "gemini-2.5-flash"
    openai_base_url: str = "https://api.openai.com/v1"
    openai_model: str = "gpt-4o-mini"
    openai_timeout_seconds: Seconds = 60.0
    max_steps: Annotated[int, msgspec.Meta(ge=1, le=50)] = 8
    temperature: Annotated[float, msgspec.Meta(ge=0, le=2)] | None = None
    mcp_url: str = ""
    context_policy: Literal["stop", "trim"] = "stop"
    context_token_budget: Annotated[int, msgspec.Meta(ge=1000)] = 100_000
    turn_timeout_seconds: Seconds = 120.0
    rate_per_minute: Annotated[float, msgspec.Meta(gt=0)] = 20.0
    rate_burst: PositiveInt = 10
    # Reading, listing and deleting conversations, per user: its own budget, not the messages'.
    read_rate_per_minute: Annotated[float, msgspec.Meta(gt=0)] = 300.0
    read_rate_burst: PositiveInt = 60
    token_ttl_seconds: PositiveInt = 86_400
    token_max_ttl_seconds: PositiveInt = 2_592_000  # tokens whose expiry lies further ahead are refused
    audit_result_chars: Annotated[int, msgspec.Meta(ge=100)] = 16_000
    sse_ping_seconds: Annotated[float, msgspec.Meta(gt=0, le=300)] = 15.0

    def __post_init__(self) -> None:
        if self.token_ttl_seconds > self.token_max_ttl_seconds:
            raise ValueError(
                f"token_ttl_seconds ({self.token_ttl_seconds}) must not exceed token_max_ttl_seconds "
                f"({self.token_max_ttl_seconds})"
            )


# A stuck claim is released this long after the turn timeout has passed, by default.
STUCK_MARGIN_SECONDS = 15.0


class ReaperSettings(Section, frozen=True):
    interval_seconds: Seconds = 30.0
    stuck_after_seconds: Annotated[float, msgspec.Meta(ge=0)] = 0.0  # 0: chat.turn_timeout_seconds + 15


class InsightsSettings(Section, frozen=True):
    retention_days: Annotated[int, msgspec.Meta(ge=1, le=3650)] = 90


class Settings(Section, frozen=True):
    store: StoreSettings = StoreSettings()
    database: DatabaseSettings = DatabaseSettings()
    runtime: RuntimeSettings = RuntimeSettings()
    logging: LoggingSettings = LoggingSettings()
    http: HttpSettings = HttpSettings()
    mcp: McpSettings = McpSettings()
    admin: AdminSettings = AdminSettings()
    ops: OpsSettings = OpsSettings()
    connections: ConnectionSettings = ConnectionSettings()
    catalog: CatalogSettings = CatalogSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    search: SearchSettings = SearchSettings()
    chat: ChatSettings = ChatSettings()
    indexer: IndexerSettings = IndexerSettings()
    reaper: ReaperSettings = ReaperSettings()
    insights: InsightsSettings = InsightsSettings()
    secrets: Secrets = Secrets()

    def __post_init__(self) -> None:
        stuck, turn = self.reaper.stuck_after_seconds, self.chat.turn_timeout_seconds
        if stuck and stuck <= turn:
            raise ValueError(
                f"reaper.stuck_after_seconds ({stuck:g}) must exceed chat.turn_timeout_seconds ({turn:g}), or a "
                "turn still running would be released; 0 (the default) takes the turn timeout plus 15 s"
            )

    @property
    def stuck_after_seconds(self) -> float:
        """How long a conversation may stay claimed before the reaper releases it: as set, or
        the turn timeout plus a margin (no turn can run longer, so the claim is a crashed one)."""
        return self.reaper.stuck_after_seconds or self.chat.turn_timeout_seconds + STUCK_MARGIN_SECONDS
