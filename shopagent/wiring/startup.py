"""Roles and the checks run before anything starts: what to run, and what would fail later."""

from __future__ import annotations

import os
from pathlib import Path

from shopagent.domain.errors import ConfigError
from shopagent.runtime.asgi import check_free, is_loopback
from shopagent.settings import HttpSettings, McpSettings, OpsSettings, Settings, resolve_data_dir

INDEXER_ACTORS = frozenset({"embedding-pool", "outbox-poller"})
# Actors that embed text, so need the embedding model (and the search use case).
SEARCH_ACTORS = INDEXER_ACTORS | {"mcp"}
ROLES: dict[str, tuple[str, ...]] = {
    "chat": ("http",),
    "mcp": ("mcp",),
    # Poller and pool share the in-memory mailbox, so they always run together.
    "indexer": ("embedding-pool", "outbox-poller"),
    "reaper": ("reaper",),
}
VALID_ROLES = ("all", *ROLES)
# Start order: ops first (so /readyz answers during start-up), consumers before producers.
START_ORDER = ("ops", "embedding-pool", "outbox-poller", "mcp", "http", "reaper")

CHAT_SIGNING_KEY_MISSING = (
    "the chat API needs SHOPAGENT_AUTH_SECRET (a long random string that signs chat tokens, "
    "e.g. `openssl rand -base64 32`); `shopagent demo` generates one"
)
CONTAINER_MARKERS = (Path("/.dockerenv"), Path("/run/.containerenv"))  # made by Docker and by podman


def parse_roles(text: str) -> frozenset[str]:
    """`"chat,mcp"` -> the actor names to run (always including ops)."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise ConfigError(f"no role given; valid roles: {', '.join(VALID_ROLES)}")
    unknown = [n for n in names if n not in VALID_ROLES]
    if unknown:
        raise ConfigError(f"unknown role {unknown[0]!r}; valid roles: {', '.join(VALID_ROLES)}")
    roles = ROLES.keys() if "all" in names else names
    return frozenset({"ops", *(actor for role in roles for actor in ROLES[role])})


def searches_here(settings: Settings, actors: frozenset[str]) -> bool:
    """Whether these actors embed text in this process: the indexer and MCP actors, and the
    chat app when its tools are this process's own (no chat.mcp_url)."""
    return bool(SEARCH_ACTORS & actors) or ("http" in actors and not settings.chat.mcp_url)


def preflight(settings: Settings, actors: frozenset[str], *, ports: bool = True) -> None:
    """What start-up would fail on later, found now, before the database starts: missing
    secrets for the roles asked, a provider without its key, a data directory that cannot be
    used, a port in use (unless not `ports`). Raises ConfigError (or ListenError) with one line
    saying what to do."""
    secrets, chat = settings.secrets, settings.chat
    if "http" in actors and secrets.auth_secret is None:
        raise ConfigError(CHAT_SIGNING_KEY_MISSING)
    if "http" in actors and chat.provider == "gemini" and secrets.gemini_api_key is None:
        raise ConfigError("chat.provider = 'gemini' needs the GEMINI_API_KEY environment variable")
    if searches_here(settings, actors) and settings.embedding.model == "gemini" and secrets.gemini_api_key is None:
        raise ConfigError("embedding.model = 'gemini' needs the GEMINI_API_KEY environment variable")
    if "mcp" in actors and secrets.mcp_api_key is None and not is_loopback(settings.mcp.host):
        raise ConfigError(
            f"refusing to serve MCP on {settings.mcp.host} without a key; set SHOPAGENT_MCP_API_KEY "
            "(or listen on 127.0.0.1)"
        )
    if secrets.database_url is None:
        check_data_dir(resolve_data_dir(settings))
    servers: dict[str, HttpSettings | McpSettings | OpsSettings] = {
        "ops": settings.ops,
        "http": settings.http,
        "mcp": settings.mcp,
    }
    for name, server in servers.items():
        if ports and name in actors:
            check_free(server.host, server.port, what=name)


def check_data_dir(path: Path, *, in_container: bool | None = None) -> None:
    """The data directory exists (or can be made) and can be written, or a ConfigError says
    how to fix it (in a container, where the folder is likely a host folder mounted there, how
    to fix it on the host)."""
    hint = "set SHOPAGENT_DATA_DIR to a writable directory, or give this one to the user shopagent runs as"
    if path.exists() and not path.is_dir():
        raise ConfigError(f"the data directory {path} is not a directory; {hint}")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write-check-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        uid = os.geteuid()
        if in_container is None:
            in_container = any(marker.exists() for marker in CONTAINER_MARKERS)
        fix = (
            f"a host folder mounted on {path} must belong to user id {uid}: on the host, "
            f"`sudo chown -R {uid} <the host folder>`; or mount a named volume instead"
            if in_container
            else f"e.g. `chown -R {uid} {path}`"
        )
        raise ConfigError(
            f"the data directory {path} cannot be written ({exc.strerror or exc}; user id {uid}); {hint} ({fix})"
        ) from None


async def preflight_mcp(settings: Settings, actors: frozenset[str]) -> None:
    """A chat role with chat.mcp_url: can the MCP server be reached with the key? (one line if not)"""
    if "http" not in actors or not settings.chat.mcp_url:
        return
    from shopagent.adapters.mcp.gateway import open_over_http

    key = settings.secrets.mcp_api_key.reveal() if settings.secrets.mcp_api_key else None
    async with open_over_http(settings.chat.mcp_url, key, timeout=settings.database.connect_timeout_seconds):
        pass
