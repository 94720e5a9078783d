"""Settings: `config.toml` (non-secret, documented defaults) overridden by the environment.

Every section is a frozen msgspec Struct that forbids unknown keys, so a typo in the file
or in a `SHOPAGENT_<SECTION>__<KEY>` variable is an error naming the key, not a silently
ignored setting. Secrets (keys, the database URL) are read only from the environment and
are wrapped in `Secret`, whose repr never shows the value.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import msgspec
import platformdirs

from shopagent.domain.errors import ConfigError
from shopagent.domain.inputs import split

ENV_PREFIX = "SHOPAGENT_"
_S = TypeVar("_S")

Port = Annotated[int, msgspec.Meta(ge=0, le=65535)]
Seconds = Annotated[float, msgspec.Meta(gt=0)]
PositiveInt = Annotated[int, msgspec.Meta(ge=1)]
NonNegativeInt = Annotated[int, msgspec.Meta(ge=0)]


class Secret:
    """A secret string; `repr`/`str` never reveal it, `reveal()` does on purpose."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


class _Section(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    pass


class StoreSettings(_Section):
    name: str = "Shopagent Demo Store"
    currency: Annotated[str, msgspec.Meta(pattern="^[A-Z]{3}$")] = "EUR"
    country: Annotated[str, msgspec.Meta(pattern="^[A-Z]{2}$")] = "DE"
    language: str = "en"


class DatabaseSettings(_Section):
    pool_min_size: NonNegativeInt = 1
    pool_max_size: PositiveInt = 10
    connect_timeout_seconds: Seconds = 10.0
    command_timeout_seconds: Seconds = 30.0
    embedded_start_timeout_seconds: Seconds = 60.0


class RuntimeSettings(_Section):
    data_dir: str = ""
    generate_secrets: bool = False
    shutdown_grace_seconds: Seconds = 10.0
    restart_max: NonNegativeInt = 5
    restart_window_seconds: Seconds = 60.0
    restart_backoff_seconds: Seconds = 0.5
    restart_backoff_max_seconds: Seconds = 10.0
    mailbox_capacity: PositiveInt = 256


class LoggingSettings(_Section):
    level: Literal["debug", "info", "warning", "error"] = "info"
    format: Literal["auto", "text", "json"] = "auto"
    access_log: bool = False


Origin = Annotated[str, msgspec.Meta(pattern=r"^(\*|https?://[A-Za-z0-9.\-\[\]:]+)$")]


class HttpSettings(_Section):
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


class McpSettings(_Section):
    host: str = "127.0.0.1"
    port: Port = 8000
    allowed_hosts: list[str] = msgspec.field(default_factory=list)
    allowed_origins: list[str] = msgspec.field(default_factory=list)
    max_body_bytes: Annotated[int, msgspec.Meta(ge=1024)] = 1_048_576
    rate_per_minute: Annotated[float, msgspec.Meta(gt=0)] = 600.0
    rate_burst: PositiveInt = 100


class AdminSettings(_Section):
    rate_per_minute: Annotated[float, msgspec.Meta(gt=0)] = 600.0
    rate_burst: PositiveInt = 100


class SearchSettings(_Section):
    ef_search: Annotated[int, msgspec.Meta(ge=10, le=1000)] = 100
    max_scan_tuples: Annotated[int, msgspec.Meta(ge=1000)] = 20_000
    exact_below_products: NonNegativeInt = 2_000
    hnsw_m: Annotated[int, msgspec.Meta(ge=2, le=100)] = 16
    hnsw_ef_construction: Annotated[int, msgspec.Meta(ge=4, le=1000)] = 64
    text_search_config: Annotated[str, msgspec.Meta(pattern="^([a-z_][a-z0-9_]{0,62})?$")] = ""
    vector_weight: Annotated[float, msgspec.Meta(ge=0, le=10)] = 1.0
    lexical_weight: Annotated[float, msgspec.Meta(ge=0, le=10)] = 1.5
    fusion_k: Annotated[float, msgspec.Meta(ge=1, le=1000)] = 2.0
    candidates_per_leg: Annotated[int, msgspec.Meta(ge=5, le=500)] = 10
    strong_distance: Annotated[float, msgspec.Meta(ge=0, le=2)] = 0.33
    title_distance: Annotated[float, msgspec.Meta(ge=0, le=2)] = 0.6
    strong_title_share: Annotated[float, msgspec.Meta(ge=0, le=1)] = 0.5
    partial_distance: Annotated[float, msgspec.Meta(ge=0, le=2)] = 0.5
    vocabulary_refresh_seconds: Annotated[float, msgspec.Meta(ge=0)] = 60.0

    def __post_init__(self) -> None:
        if self.vector_weight == 0 and self.lexical_weight == 0:
            raise ValueError("vector_weight and lexical_weight cannot both be 0")
        if self.strong_distance > self.partial_distance:
            raise ValueError(
                f"strong_distance ({self.strong_distance}) must not exceed partial_distance ({self.partial_distance})"
            )
        if self.hnsw_ef_construction < 2 * self.hnsw_m:
            raise ValueError(
                f"hnsw_ef_construction ({self.hnsw_ef_construction}) must be at least twice hnsw_m ({self.hnsw_m})"
            )


class OpsSettings(_Section):
    host: str = "127.0.0.1"
    port: Port = 9090


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


class LanguageAliases(_Section):
    """A language's words for the catalog's colours and sizes (word = colour / size)."""

    colors: dict[str, str] = msgspec.field(default_factory=dict)
    sizes: dict[str, str] = msgspec.field(default_factory=dict)


class CatalogSettings(_Section):
    colors: list[str] = msgspec.field(default_factory=lambda: list(DEFAULT_COLORS))
    color_aliases: dict[str, str] = msgspec.field(
        default_factory=lambda: {"gray": "grey", "dark blue": "navy", "tan": "camel", "violet": "purple"}
    )
    sizes: list[str] = msgspec.field(default_factory=lambda: list(DEFAULT_SIZES))
    # language (BCP 47 primary tag) -> its words, added to the built-in German and French colour names
    language_aliases: dict[str, LanguageAliases] = msgspec.field(default_factory=dict)


class EmbeddingSettings(_Section):
    model: Literal["local", "gemini", "hash"] = "local"
    batch_size: Annotated[int, msgspec.Meta(ge=1, le=100)] = 32
    chunk_token_budget: Annotated[int, msgspec.Meta(ge=16, le=250)] = 96
    gemini_model: str = "gemini-embedding-001"
    gemini_dimensions: Annotated[int, msgspec.Meta(ge=128, le=3072)] = 768
    gemini_timeout_seconds: Seconds = 30.0
    hash_dimensions: Annotated[int, msgspec.Meta(ge=8, le=2000)] = 384


class IndexerSettings(_Section):
    workers: PositiveInt = 2
    poll_interval_seconds: Seconds = 5.0
    claim_batch: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 32
    lease_seconds: Annotated[float, msgspec.Meta(ge=1)] = 15.0
    max_attempts: PositiveInt = 5
    retry_backoff_seconds: Seconds = 1.0
    retry_backoff_max_seconds: Seconds = 300.0
    bulk_load_events: NonNegativeInt = 2_000
    index_build_memory_mb: Annotated[int, msgspec.Meta(ge=64, le=65_536)] = 512


class ChatSettings(_Section):
    provider: Literal["auto", "offline", "gemini", "openai"] = "auto"
    gemini_model: str = "gemini-2.5-flash"
    openai_base_url: str = "https://api.openai.com/v1"
    openai_model: str = "gpt-4o-mini"
    max_steps: Annotated[int, msgspec.Meta(ge=1, le=50)] = 8
    temperature: Annotated[float, msgspec.Meta(ge=0, le=2)] | None = None
    mcp_url: str = ""
    context_policy: Literal["stop", "trim"] = "stop"
    context_token_budget: Annotated[int, msgspec.Meta(ge=1000)] = 100_000
    turn_timeout_seconds: Seconds = 120.0
    rate_per_minute: Annotated[float, msgspec.Meta(gt=0)] = 20.0
    rate_burst: PositiveInt = 10
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


class ReaperSettings(_Section):
    interval_seconds: Seconds = 30.0
    stuck_after_seconds: Seconds = 300.0


class Secrets(msgspec.Struct, frozen=True, kw_only=True):
    database_url: Secret | None = None
    mcp_api_key: Secret | None = None
    admin_api_key: Secret | None = None
    auth_secret: Secret | None = None
    gemini_api_key: Secret | None = None
    openai_api_key: Secret | None = None

    def values(self) -> list[str]:
        """Every configured secret value (for scrubbing logs)."""
        found = (getattr(self, name) for name in self.__struct_fields__)
        return [s.reveal() for s in found if s is not None]


class Settings(_Section):
    store: StoreSettings = StoreSettings()
    database: DatabaseSettings = DatabaseSettings()
    runtime: RuntimeSettings = RuntimeSettings()
    logging: LoggingSettings = LoggingSettings()
    http: HttpSettings = HttpSettings()
    mcp: McpSettings = McpSettings()
    admin: AdminSettings = AdminSettings()
    ops: OpsSettings = OpsSettings()
    catalog: CatalogSettings = CatalogSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    search: SearchSettings = SearchSettings()
    chat: ChatSettings = ChatSettings()
    indexer: IndexerSettings = IndexerSettings()
    reaper: ReaperSettings = ReaperSettings()
    secrets: Secrets = Secrets()


# Secrets come only from these environment variables, never from config.toml.
SECRET_ENV = {
    "database_url": "SHOPAGENT_DATABASE_URL",
    "mcp_api_key": "SHOPAGENT_MCP_API_KEY",
    "admin_api_key": "SHOPAGENT_ADMIN_API_KEY",
    "auth_secret": "SHOPAGENT_AUTH_SECRET",
    "gemini_api_key": "GEMINI_API_KEY",
    "openai_api_key": "SHOPAGENT_OPENAI_API_KEY",
}
# Keys someone might naturally put in config.toml, mapped to the variable that holds them.
_SECRET_KEYS_IN_FILE = {
    "secrets": "the environment variables " + ", ".join(SECRET_ENV.values()),
    "database.url": SECRET_ENV["database_url"],
    "mcp.api_key": SECRET_ENV["mcp_api_key"],
    "admin.api_key": SECRET_ENV["admin_api_key"],
    "auth.secret": SECRET_ENV["auth_secret"],
    "gemini.api_key": SECRET_ENV["gemini_api_key"],
    "chat.openai_api_key": SECRET_ENV["openai_api_key"],
}
# Non-secret shortcuts: variable -> (section, key).
_SHORTCUTS = {"SHOPAGENT_DATA_DIR": ("runtime", "data_dir")}
# SHOPAGENT_ variables that are not settings but are read elsewhere (e.g. the CLI).
_OTHER_VARIABLES = {"SHOPAGENT_CONFIG"}


def load_settings(config_path: Path | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Build Settings from a TOML file (optional) and the environment.

    `config_path` None means: `$SHOPAGENT_CONFIG` if set, else `./config.toml` if it
    exists, else the built-in defaults (which are exactly what config.toml documents).
    Raises ConfigError with a one-line message naming the file and key.
    """
    env = os.environ if environ is None else environ
    path = _choose_config_file(config_path, env)
    raw: dict[str, Any] = _read_toml(path) if path is not None else {}
    source = str(path) if path is not None else "defaults"
    _refuse_secrets_in_file(raw, source)
    settings = _convert(raw, Settings, source)
    settings = _apply_env_overrides(settings, env)
    secrets = _secrets_from_env(env)
    check_secrets(secrets)
    return msgspec.structs.replace(settings, secrets=secrets)


# Shortest secrets accepted at start (bytes of UTF-8). Generate with
# `python -c "import secrets; print(secrets.token_urlsafe(32))"`.
MIN_SECRET_BYTES = {"auth_secret": 32, "admin_api_key": 16, "mcp_api_key": 16}
# How the example env file (deploy/shopagent.env.example) marks the values to fill in.
PLACEHOLDER = "replace-with-"


def check_secrets(secrets: Secrets) -> None:
    """ConfigError naming the variable (never the value) for a secret too short to be safe,
    or one still holding the example env file's placeholder (a value everyone knows)."""
    for name, variable in SECRET_ENV.items():
        secret = getattr(secrets, name)
        if secret is not None and PLACEHOLDER in secret.reveal().casefold():
            raise ConfigError(
                f"{variable} still holds a placeholder of deploy/shopagent.env.example; set a random value, "
                f"e.g. openssl rand -base64 32 (for the database password: POSTGRES_PASSWORD)"
            )
    for name, least in MIN_SECRET_BYTES.items():
        secret = getattr(secrets, name)
        if secret is None:
            continue
        values = secret.reveal().split(",") if name == "auth_secret" else [secret.reveal()]
        for n, value in enumerate(values, start=1):
            if len(value.strip().encode()) < least:
                which = f" (secret {n} of the list)" if len(values) > 1 else ""
                raise ConfigError(
                    f"{SECRET_ENV[name]} is too short{which}: use at least {least} random bytes, e.g. "
                    f'python -c "import secrets; print(secrets.token_urlsafe({least}))"'
                )


def _choose_config_file(config_path: Path | None, env: Mapping[str, str]) -> Path | None:
    if config_path is None and env.get("SHOPAGENT_CONFIG"):
        config_path = Path(env["SHOPAGENT_CONFIG"])
    if config_path is not None:
        if not config_path.is_file():
            raise ConfigError(f"config file {config_path} does not exist")
        return config_path
    default = Path("config.toml")
    return default if default.is_file() else None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None


def _refuse_secrets_in_file(raw: dict[str, Any], source: str) -> None:
    for dotted, variable in _SECRET_KEYS_IN_FILE.items():
        node: Any = raw
        for part in dotted.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if node is not None:
            raise ConfigError(
                f"{source}: `{dotted}` is a secret and is read only from the environment; "
                f"remove it from the file and set {variable}"
            )


_UNKNOWN = re.compile(r"^Object contains unknown field `(?P<field>[^`]+)`$")


def _convert(raw: Any, kind: type[_S], source: str) -> _S:
    try:
        return msgspec.convert(raw, kind)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"{source}: {_explain(exc)}") from None


def _explain(exc: msgspec.ValidationError | msgspec.DecodeError) -> str:
    """msgspec's "... - at `$.http.port`" as "`http.port`: ..." (a key path users know)."""
    path, what = split(exc) if isinstance(exc, msgspec.ValidationError) else ("", str(exc))
    unknown = _UNKNOWN.match(what)
    if unknown:
        key = f"{path}.{unknown['field']}" if path else unknown["field"]
        return f"unknown setting `{key}`"
    return f"`{path}`: {what}" if path else what


def _apply_env_overrides(settings: Settings, env: Mapping[str, str]) -> Settings:
    overrides: dict[str, dict[str, tuple[str, str]]] = {}
    for variable, value in env.items():
        if not variable.startswith(ENV_PREFIX):
            continue
        if variable in _SHORTCUTS:
            section, key = _SHORTCUTS[variable]
        elif "__" in variable:
            section, _, key = variable[len(ENV_PREFIX) :].lower().partition("__")
        elif variable in SECRET_ENV.values() or variable in _OTHER_VARIABLES:
            continue
        else:
            raise ConfigError(f"unknown environment variable {variable}; see config.toml for the settings")
        overrides.setdefault(section, {})[key] = (value, variable)

    for section, values in overrides.items():
        current = getattr(settings, section, None)
        if section == "secrets" or not isinstance(current, _Section):
            first = next(iter(values.values()))[1]
            raise ConfigError(f"{first}: unknown settings section `{section}`")
        types = {f.name: f.type for f in msgspec.structs.fields(current)}
        changes = {}
        for key, (value, variable) in values.items():
            if key not in types:
                raise ConfigError(f"{variable}: unknown setting `{section}.{key}`")
            # strict=False turns "8081" into an int and "true" into a bool, as environment values need.
            try:
                # Lists and tables are given as JSON, e.g. SHOPAGENT_CATALOG__SIZES='["S", "M"]'.
                parsed = msgspec.json.decode(value) if value.lstrip()[:1] in ("[", "{") else value
                changes[key] = msgspec.convert(parsed, types[key], strict=False)
            except (msgspec.ValidationError, msgspec.DecodeError) as exc:
                raise ConfigError(f"{variable}={value!r}: {_explain(exc)}") from None
        try:  # the section's own checks (one setting against another) run here
            replaced = msgspec.structs.replace(current, **changes)
        except (ValueError, msgspec.ValidationError) as exc:
            given = ", ".join(f"{variable}={value!r}" for value, variable in values.values())
            raise ConfigError(f"{given}: `{section}`: {exc}") from None
        settings = msgspec.structs.replace(settings, **{section: replaced})
    return settings


def _secrets_from_env(env: Mapping[str, str]) -> Secrets:
    found = {name: Secret(env[var]) for name, var in SECRET_ENV.items() if env.get(var)}
    return Secrets(**found)


def resolve_data_dir(settings: Settings) -> Path:
    """The data directory: configured, or a per-user default (/var/lib/shopagent for root)."""
    if settings.runtime.data_dir:
        return Path(settings.runtime.data_dir).expanduser().resolve()
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return Path("/var/lib/shopagent")
    return Path(platformdirs.user_data_dir("shopagent", appauthor=False))


def describe(settings: Settings) -> dict[str, Any]:
    """Settings as plain data for printing or logging, secrets shown only as set/unset."""

    def hide(value: Any) -> Any:
        if isinstance(value, Secret):
            return "***"
        raise TypeError(f"cannot describe {type(value).__name__}")

    return msgspec.to_builtins(settings, enc_hook=hide)
