"""deploy/compose*.yaml hold only what the binary accepts: every command parses, every setting
is one shopagent knows (with valid values), the roles asked for have what they need, and the
services are wired together as the README's split deployment says."""

from __future__ import annotations

import functools
import os
import re
import secrets
import shlex
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import msgspec
import pytest
import yaml

from shopagent.__main__ import build_parser
from shopagent.settings import PLACEHOLDER, OpsSettings, RuntimeSettings, load_settings
from shopagent.wiring import startup
from tests.helpers import example_env_file

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"


@functools.cache
def example_env() -> dict[str, str]:
    """deploy/shopagent.env.example as a user fills it in: each placeholder replaced by a random value."""
    example = example_env_file()
    assert all(PLACEHOLDER in value for value in example.values())  # nothing there to keep as it is
    return {name: secrets.token_urlsafe(32) for name in example}


def services_of(name: str) -> dict[str, dict]:
    text = (DEPLOY / name).read_text()
    variables = example_env()
    text = re.sub(r"\$\{(\w+)\}", lambda m: variables[m.group(1)], text)  # as `--env-file` does
    return yaml.safe_load(text)["services"]


def shopagent_services(name: str) -> dict[str, dict]:
    return {n: s for n, s in services_of(name).items() if s.get("image", "").startswith("shopagent")}


def environment_of(service: dict) -> dict[str, str]:
    env = example_env() if service.get("env_file") == "shopagent.env" else {}
    return {**env, **{k: str(v) for k, v in (service.get("environment") or {}).items()}}


@pytest.mark.parametrize(
    ("file", "service"),
    [(f, s) for f in ("compose.yaml", "compose.split.yaml") for s in shopagent_services(f)],
)
def test_every_shopagent_service_runs_a_command_with_settings_the_binary_accepts(file, service, tmp_path):
    spec = shopagent_services(file)[service]
    args = build_parser().parse_args(spec["command"])  # exits (fails the test) on anything unknown
    env = {k: v for k, v in environment_of(spec).items() if k.startswith("SHOPAGENT_") or k == "GEMINI_API_KEY"}
    settings = load_settings(None, env)  # unknown keys, bad values and weak secrets raise here
    if args.command == "run":
        actors = startup.parse_roles(args.role)
        # What `run` checks before it starts anything; here on free ports and a scratch data dir.
        checked = msgspec.structs.replace(
            settings,
            runtime=msgspec.structs.replace(settings.runtime, data_dir=str(tmp_path)),
            ops=OpsSettings(port=0),
            http=msgspec.structs.replace(settings.http, port=0),
            mcp=msgspec.structs.replace(settings.mcp, port=0),
        )
        startup.preflight(checked, actors)
        health = spec["healthcheck"]["test"]
        assert f"{settings.ops.port}/readyz" in " ".join(health), health
        seconds = int(spec["stop_grace_period"].removesuffix("s"))
        assert seconds > settings.runtime.shutdown_grace_seconds  # the drain fits before a SIGKILL
        published = {int(p.split(":")[1].split()[0]) for p in spec.get("ports", [])}
        servers = {"http": settings.http, "mcp": settings.mcp}
        for name, server in servers.items():
            if name in actors and published:
                assert server.port in published and server.host == "0.0.0.0", (name, published)  # noqa: S104


def test_the_one_container_file_keeps_its_data_in_a_volume():
    spec = shopagent_services("compose.yaml")["shopagent"]
    data_dir = environment_of(spec)["SHOPAGENT_DATA_DIR"]
    assert any(v.endswith(f":{data_dir}") for v in spec["volumes"])
    assert "SHOPAGENT_DATABASE_URL" not in environment_of(spec)  # the embedded PostgreSQL
    assert RuntimeSettings().shutdown_grace_seconds < 15


def test_the_split_file_is_the_split_deployment_of_the_readme():
    services = services_of("compose.split.yaml")
    commands = {name: shlex.join(s["command"]) for name, s in services.items() if "command" in s}
    assert commands == {
        "check": "check",
        "migrate": "migrate",
        "mcp": "run --role mcp",
        "chat": "run --role chat",
        "indexer-1": "run --role indexer",
        "indexer-2": "run --role indexer",
        "reaper": "run --role reaper",
    }
    assert services["postgres"]["image"].startswith("pgvector/pgvector:")
    for name, spec in services.items():
        for needed in spec.get("depends_on", {}):
            assert needed in services, (name, needed)
    assert services["postgres"]["depends_on"] == {"check": {"condition": "service_completed_successfully"}}
    assert services["migrate"]["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    for name in ("mcp", "indexer-1", "indexer-2", "reaper"):
        assert services[name]["depends_on"] == {"migrate": {"condition": "service_completed_successfully"}}
    assert services["chat"]["depends_on"] == {"mcp": {"condition": "service_healthy"}}
    # chat reaches the mcp service on the port that service listens on
    mcp_url = urlsplit(environment_of(services["chat"])["SHOPAGENT_CHAT__MCP_URL"])
    mcp_settings = load_settings(None, {k: v for k, v in environment_of(services["mcp"]).items()
                                        if k.startswith("SHOPAGENT_")}).mcp  # fmt: skip
    assert (mcp_url.hostname, mcp_url.port, mcp_url.path) == ("mcp", mcp_settings.port, "/mcp")
    # every shopagent service uses the postgres service, with the password postgres is given
    database = urlsplit(environment_of(services["chat"])["SHOPAGENT_DATABASE_URL"])
    postgres = services["postgres"]["environment"]
    assert (database.hostname, database.username, database.password, database.path) == (
        "postgres", postgres["POSTGRES_USER"], postgres["POSTGRES_PASSWORD"], f"/{postgres['POSTGRES_DB']}",
    )  # fmt: skip


def test_the_split_services_share_the_keys_of_the_env_file_and_keep_no_volume():
    services = services_of("compose.split.yaml")
    (image_data_dir,) = re.findall(r"SHOPAGENT_DATA_DIR=(\S+)", (DEPLOY.parent / "Dockerfile").read_text())
    for name, spec in shopagent_services("compose.split.yaml").items():
        settings = load_settings(None, {k: v for k, v in environment_of(spec).items() if k.startswith("SHOPAGENT_")})
        assert not settings.runtime.generate_secrets, name  # a missing key stops it, not one per container
        assert settings.secrets.database_url is not None, name  # so nothing is kept in the data dir
        assert image_data_dir in spec.get("tmpfs", []), name  # not an anonymous volume per container
        if name not in ("check", "migrate"):  # one-shots
            test = spec["healthcheck"]["test"]
            assert test[0] == "CMD-SHELL" and len(test) == 2, (name, test)  # one string, as in the image
    # pg_isready over TCP: the socket answers while the image still initialises the database
    (check,) = services["postgres"]["healthcheck"]["test"][1:]
    assert "pg_isready" in check and "-h 127.0.0.1" in check


def dockerfile_instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (KEYWORD, arguments), comments dropped, continued lines joined."""
    text = (DEPLOY.parent / "Dockerfile").read_text()
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    return [(word.upper(), rest.strip()) for word, _, rest in (line.strip().partition(" ") for line in
            joined.splitlines() if line.strip())]  # fmt: skip


def test_the_image_is_multi_stage_non_root_with_a_healthcheck_and_settings_the_binary_accepts(tmp_path):
    instructions = dockerfile_instructions()
    stages = [i for i, (word, _) in enumerate(instructions) if word == "FROM"]
    assert len(stages) >= 2
    runtime = instructions[stages[-1] :]
    users = [args for word, args in runtime if word == "USER"]
    assert users and users[-1] not in ("root", "0")
    env = {}
    for word, args in runtime:
        if word == "ENV":
            env |= dict(item.split("=", 1) for item in shlex.split(args))
    settings = load_settings(None, {k: v for k, v in env.items() if k.startswith("SHOPAGENT_")})
    assert settings.runtime.generate_secrets  # the documented `docker run` starts without -e secrets
    (health,) = [args for word, args in runtime if word == "HEALTHCHECK"]
    assert f"{settings.ops.port}/readyz" in health and settings.ops.host == "0.0.0.0"  # noqa: S104
    volumes = [args for word, args in runtime if word == "VOLUME"]
    assert any(settings.runtime.data_dir in v for v in volumes)
    (entrypoint,) = [msgspec.json.decode(args) for word, args in runtime if word == "ENTRYPOINT"]
    (command,) = [msgspec.json.decode(args) for word, args in runtime if word == "CMD"]
    assert entrypoint == ["shopagent"]
    build_parser().parse_args(command)  # exits (fails the test) on anything unknown


# -- the example env file left unfilled --------------------------------------------------------


def unfilled_services(name: str) -> dict[str, dict]:
    """The services of `name` with deploy/shopagent.env.example copied as it is, placeholders left."""
    example = example_env_file()
    text = re.sub(r"\$\{(\w+)\}", lambda m: example[m.group(1)], (DEPLOY / name).read_text())
    return yaml.safe_load(text)["services"]


def needs(services: dict[str, dict], name: str) -> set[str]:
    """Every service `name` waits for, directly or through others, with the condition it waits on."""
    found = set()
    for needed, how in services[name].get("depends_on", {}).items():
        found |= {f"{needed}:{how['condition']}"} | needs(services, needed)
    return found


def run_check(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The check service's command, run by the binary with the container's environment."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("SHOPAGENT_") and k != "GEMINI_API_KEY"}
    return subprocess.run(
        [sys.executable, "-m", "shopagent", *command], env={**base, **env}, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("file", ["compose.yaml", "compose.split.yaml"])
def test_every_service_waits_for_a_one_shot_check_of_the_settings_that_is_never_restarted(file):
    services = services_of(file)
    check = services["check"]
    assert check["command"] == ["check"] and check["restart"] == "no"
    assert check["healthcheck"] == {"disable": True}
    for name in services.keys() - {"check"}:
        assert "check:service_completed_successfully" in needs(services, name), name  # up fails, nothing starts


@pytest.mark.process
@pytest.mark.parametrize("file", ["compose.yaml", "compose.split.yaml"])
def test_the_check_names_every_placeholder_left_in_one_line_and_exits_2_at_once(file, tmp_path):
    check = unfilled_services(file)["check"]
    example = example_env_file()
    env = {**example, **{k: str(v) for k, v in check["environment"].items()}}
    env["SHOPAGENT_DATA_DIR"] = str(tmp_path / "d")
    done = run_check(check["command"], env)
    assert done.returncode == 2, done.stderr  # a configuration error, not a crash
    (line,) = done.stderr.splitlines()
    held = sorted(k for k, v in env.items() if k.startswith("SHOPAGENT_") and PLACEHOLDER in v)
    assert len(held) >= 4 and all(name in line for name in held), (held, line)
    assert line.startswith("shopagent: error: ") and "still hold placeholders" in line
    if file == "compose.split.yaml":
        assert "POSTGRES_PASSWORD" in line  # the database URL it went into
    assert not (tmp_path / "d").exists()  # nothing started, nothing written


@pytest.mark.process
def test_the_check_passes_once_the_example_env_file_is_filled_in(tmp_path):
    check = services_of("compose.yaml")["check"]
    env = {**environment_of(check), "SHOPAGENT_DATA_DIR": str(tmp_path)}
    done = run_check(check["command"], env)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "shopagent: ready to run the roles all\n"
