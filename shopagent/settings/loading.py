"""Loading: config.toml, then the environment, into Settings; and what is derived from them."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args, get_origin

import msgspec
import platformdirs

from shopagent.domain.errors import ConfigError
from shopagent.domain.inputs import split
from shopagent.settings.secret import PLACEHOLDER, SECRET_ENV, Secret, Secrets, check_secrets
from shopagent.settings.sections import Section, Settings

ENV_PREFIX = "SHOPAGENT_"
_S = TypeVar("_S")

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


def load_settings(
    config_path: Path | None = None, environ: Mapping[str, str] | None = None, *, beneath: Path | None = None
) -> Settings:
    """Build Settings from a TOML file (optional) and the environment.

    `config_path` None means: `$SHOPAGENT_CONFIG` if set, else `./config.toml` if it
    exists, else the built-in defaults (which are exactly what config.toml documents).
    `beneath` is a TOML file of the same keys under both (a demo sample's settings), taking the
    place of the defaults: what the environment sets, and what the config file sets to other
    than its default, wins over it, key by key. (A key the file leaves at its default counts as
    not set: the shipped config.toml writes out every default.)
    Raises ConfigError with a one-line message naming the file and key.
    """
    env = os.environ if environ is None else environ
    _refuse_placeholders(env)
    path = _choose_config_file(config_path, env)
    raw: dict[str, Any] = _read_toml(path) if path is not None else {}
    source = str(path) if path is not None else "defaults"
    _refuse_secrets_in_file(raw, source)
    if beneath is not None:
        raw = _overlay(_read_toml(beneath), _departures(raw, msgspec.to_builtins(Settings())))
        source = f"{source} over {beneath}" if path is not None else str(beneath)
    settings = _convert(raw, Settings, source)
    settings = _apply_env_overrides(settings, env)
    secrets = _secrets_from_env(env)
    check_secrets(secrets)
    return msgspec.structs.replace(settings, secrets=secrets)


def _refuse_placeholders(env: Mapping[str, str]) -> None:
    """One ConfigError naming every variable still as deploy/shopagent.env.example has it (never
    a value): a container restarted by its orchestrator then says it all at once, not one a start."""
    ours = set(SECRET_ENV.values())
    held = sorted(n for n, v in env.items() if (n.startswith(ENV_PREFIX) or n in ours) and PLACEHOLDER in v.casefold())
    if not held:
        return
    hints = []
    if set(held) & ours - {SECRET_ENV["database_url"]}:
        hints.append("keys and secrets: a random value each, e.g. openssl rand -base64 32")
    if SECRET_ENV["database_url"] in held:
        hints.append("the database URL: POSTGRES_PASSWORD")
    if "SHOPAGENT_STORE__NAME" in held:
        hints.append("SHOPAGENT_STORE__NAME: the shop's name as shoppers see it")
    named = held[0] if len(held) == 1 else ", ".join(held[:-1]) + " and " + held[-1]
    verb = "still holds a placeholder" if len(held) == 1 else "still hold placeholders"
    raise ConfigError(f"{named} {verb} of deploy/shopagent.env.example; fill in ({'; '.join(hints)})")


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


def _overlay(under: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`over` on top of `under`: tables merged key by key, any other value of `over` taking the place
    of `under`'s (a list is replaced whole, not extended)."""
    merged = dict(under)
    for key, value in over.items():
        below = merged.get(key)
        merged[key] = _overlay(below, value) if isinstance(value, dict) and isinstance(below, dict) else value
    return merged


def _departures(raw: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """The keys of a config file's sections whose values differ from the defaults."""
    kept: dict[str, Any] = {}
    for name, section in raw.items():
        default = defaults.get(name)
        if isinstance(section, dict) and isinstance(default, dict):
            kept[name] = {key: value for key, value in section.items() if key not in default or value != default[key]}
        else:
            kept[name] = section  # not a section: left for the conversion to name
    return kept


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
        raise ConfigError(f"{source}: {_explain(exc, kind)}") from None


def _explain(exc: msgspec.ValidationError | msgspec.DecodeError, kind: Any = None) -> str:
    """msgspec's "... - at `$.http.port`" as "`http.port`: ..." (a key path users know), with
    the allowed values when `kind` (the type at the root of the path) has a fixed set there."""
    path, what = split(exc) if isinstance(exc, msgspec.ValidationError) else ("", str(exc))
    unknown = _UNKNOWN.match(what)
    if unknown:
        key = f"{path}.{unknown['field']}" if path else unknown["field"]
        return f"unknown setting `{key}`"
    choices = _choices(kind, path)
    if choices and what.startswith("Invalid enum value"):
        what = f"{what}; one of {', '.join(repr(c) for c in choices)}"
    return f"`{path}`: {what}" if path else what


def _choices(kind: Any, path: str) -> tuple[Any, ...]:
    """The values a Literal setting allows, found by following `path` from `kind`."""
    for name in [part for part in path.split(".") if part]:
        if not (isinstance(kind, type) and issubclass(kind, msgspec.Struct)):
            return ()
        kind = {f.name: f.type for f in msgspec.structs.fields(kind)}.get(name)
    return get_args(kind) if get_origin(kind) is Literal else ()


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
        if section == "secrets" or not isinstance(current, Section):
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
                raise ConfigError(f"{variable}={value!r}: {_explain(exc, types[key])}") from None
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
