"""Settings: `config.toml` (non-secret, documented defaults) overridden by the environment.

Every section is a frozen msgspec Struct that forbids unknown keys (sections.py), so a typo in
the file or in a `SHOPAGENT_<SECTION>__<KEY>` variable is an error naming the key, not a
silently ignored setting (loading.py). Secrets (keys, the database URL) are read only from the
environment and are wrapped in `Secret`, whose repr never shows the value (secret.py).
"""

from shopagent.settings.loading import ENV_PREFIX, describe, load_settings, resolve_data_dir
from shopagent.settings.secret import MIN_SECRET_BYTES, PLACEHOLDER, SECRET_ENV, Secret, Secrets, check_secrets
from shopagent.settings.sections import (
    DEFAULT_COLORS,
    DEFAULT_SIZES,
    AdminSettings,
    CatalogSettings,
    ChatSettings,
    ConnectionSettings,
    DatabaseSettings,
    EmbeddingSettings,
    HttpSettings,
    IndexerSettings,
    LanguageAliases,
    LoggingSettings,
    McpSettings,
    NonNegativeInt,
    OpsSettings,
    Origin,
    Port,
    PositiveInt,
    ReaperSettings,
    RuntimeSettings,
    SearchSettings,
    Seconds,
    Settings,
    StoreSettings,
)

__all__ = [
    "DEFAULT_COLORS",
    "DEFAULT_SIZES",
    "ENV_PREFIX",
    "MIN_SECRET_BYTES",
    "PLACEHOLDER",
    "SECRET_ENV",
    "AdminSettings",
    "CatalogSettings",
    "ChatSettings",
    "ConnectionSettings",
    "DatabaseSettings",
    "EmbeddingSettings",
    "HttpSettings",
    "IndexerSettings",
    "LanguageAliases",
    "LoggingSettings",
    "McpSettings",
    "NonNegativeInt",
    "OpsSettings",
    "Origin",
    "Port",
    "PositiveInt",
    "ReaperSettings",
    "RuntimeSettings",
    "SearchSettings",
    "Seconds",
    "Secret",
    "Secrets",
    "Settings",
    "StoreSettings",
    "check_secrets",
    "describe",
    "load_settings",
    "resolve_data_dir",
]
