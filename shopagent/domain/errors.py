"""The error tree. Adapters translate vendor exceptions into these once; the HTTP and MCP
layers map them to status codes / tool results in one table each."""

from __future__ import annotations


class ShopagentError(Exception):
    """Base of every error shopagent raises on purpose. The message is safe to show."""


class ConfigError(ShopagentError):
    """A setting is missing, malformed or contradictory. The message names the key."""


class DatabaseError(ShopagentError):
    """The database cannot be reached or lacks something shopagent needs."""


class DatabaseUnavailable(DatabaseError):
    """PostgreSQL cannot be reached right now (stopped, restarting, the network); a retry
    once it is back succeeds. Nothing of the failed operation was stored."""


class StorageFull(DatabaseUnavailable):
    """The database's disk is full: it refuses writes (reads go on). Nothing of the failed
    operation was stored; retry after `retry_after` seconds."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class MigrationError(DatabaseError):
    """A schema migration failed; the schema is left as it was before that migration."""


class ValidationError(ShopagentError):
    """Input breaks a rule. The message says which field and why; nothing was written."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class NotFound(ShopagentError):
    """The thing asked for does not exist (or is not the caller's)."""


class Conflict(ShopagentError):
    """The request clashes with the current state (a taken slug, a concurrent change)."""


class VersionConflict(Conflict):
    """The record changed between read and write (optimistic concurrency); re-read and retry."""


class EmbeddingError(ShopagentError):
    """The embedding model failed (after its retries); the work is retried later."""


class ChatModelError(ShopagentError):
    """The chat model could not produce a reply."""


class ContextWindowExceeded(ChatModelError):
    """The conversation no longer fits the model's context window."""


class ModelUnavailable(ChatModelError):
    """The model service failed (5xx, network) and retries did not help."""


class RateLimited(ModelUnavailable):
    """The model service kept answering 429 after the retries."""


class ModelConfigError(ChatModelError, ConfigError):
    """The model rejected our credentials or configuration (bad key, unknown model)."""


class BadModelResponse(ChatModelError):
    """The model answered something we cannot use (malformed, empty, blocked)."""


class ConversationBusy(Conflict):
    """Another turn of this conversation is running."""


class ContextLimitReached(Conflict):
    """The conversation outgrew the model's context window; start a new one."""


class ClaimLost(Conflict):
    """This turn's claim was released (it ran too long); its result was not stored."""


class TurnTimeout(ShopagentError):
    """The turn took longer than allowed; nothing was stored."""


class Unauthorized(ShopagentError):
    """Missing, malformed, forged or expired credentials."""


class TokenExpired(Unauthorized):
    """A well-formed, genuine token past its expiry: the client should get a new one."""


class RateLimitExceeded(ShopagentError):
    """Too many requests from this user; retry after `retry_after` seconds."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ShuttingDown(ShopagentError):
    """The server is stopping: the request was refused, or its turn did not finish within the
    grace period. Nothing of it was stored; send it again (another instance, or this one back)."""
