"""Secrets: read only from the environment, never shown, checked at start."""

from __future__ import annotations

import msgspec

from shopagent.domain import tokens
from shopagent.domain.errors import ConfigError


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


# Secrets come only from these environment variables, never from config.toml.
SECRET_ENV = {
    "database_url": "SHOPAGENT_DATABASE_URL",
    "mcp_api_key": "SHOPAGENT_MCP_API_KEY",
    "admin_api_key": "SHOPAGENT_ADMIN_API_KEY",
    "auth_secret": "SHOPAGENT_AUTH_SECRET",
    "gemini_api_key": "GEMINI_API_KEY",
    "openai_api_key": "SHOPAGENT_OPENAI_API_KEY",
}

# Shortest secrets accepted at start (bytes of UTF-8). Generate with
# `python -c "import secrets; print(secrets.token_urlsafe(32))"`.
MIN_SECRET_BYTES = {"auth_secret": tokens.MIN_SECRET_BYTES, "admin_api_key": 16, "mcp_api_key": 16}
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
