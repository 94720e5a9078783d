"""Keys that `shopagent demo` (or `run` with runtime.generate_secrets) generates once and keeps
in the data directory, for those the environment does not set."""

from __future__ import annotations

import os
import secrets

import msgspec

from shopagent.settings import Secret, Settings, resolve_data_dir

DEMO_SECRETS = ("admin_api_key", "mcp_api_key", "auth_secret")
DEMO_SECRETS_FILE = "demo-secrets.json"  # `shopagent demo`
GENERATED_SECRETS_FILE = "generated-secrets.json"  # `run` with runtime.generate_secrets


def with_demo_secrets(settings: Settings, file_name: str = DEMO_SECRETS_FILE) -> Settings:
    """Fill the keys that the environment does not set from `<data dir>/<file_name>`,
    generating them once (file mode 0600)."""
    path = resolve_data_dir(settings) / file_name
    stored: dict[str, str] = {}
    if path.exists():
        stored = msgspec.json.decode(path.read_bytes(), type=dict[str, str])
    missing = [name for name in DEMO_SECRETS if name not in stored]
    if missing:
        stored |= {name: secrets.token_urlsafe(24) for name in missing}
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(msgspec.json.format(msgspec.json.encode(stored)))
    current = settings.secrets
    filled = {name: getattr(current, name) or Secret(stored[name]) for name in DEMO_SECRETS}
    return msgspec.structs.replace(settings, secrets=msgspec.structs.replace(current, **filled))


def demo_secret(settings: Settings, name: str) -> Secret | None:
    """A secret `shopagent demo` (or `run` with runtime.generate_secrets) generated earlier in
    this data directory, if any."""
    for file_name in (DEMO_SECRETS_FILE, GENERATED_SECRETS_FILE):
        path = resolve_data_dir(settings) / file_name
        if path.exists():
            value = msgspec.json.decode(path.read_bytes(), type=dict[str, str]).get(name)
            if value:
                return Secret(value)
    return None
