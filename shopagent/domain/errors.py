"""The error tree. Adapters translate vendor exceptions into these once; the HTTP and MCP
layers map them to status codes / tool results in one table each."""

from __future__ import annotations


class ShopagentError(Exception):
    """Base of every error shopagent raises on purpose. The message is safe to show."""


class ConfigError(ShopagentError):
    """A setting is missing, malformed or contradictory. The message names the key."""


class DatabaseError(ShopagentError):
    """The database cannot be reached or lacks something shopagent needs."""


class MigrationError(DatabaseError):
    """A schema migration failed; the schema is left as it was before that migration."""
