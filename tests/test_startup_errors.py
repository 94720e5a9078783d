"""Start-up failures are one line that says what to do, found before the database starts
wherever they can be (exit 2, like a settings mistake); no traceback, no half-started process."""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path

import httpx
import pytest

from shopagent.domain.errors import ConfigError
from shopagent.wiring.startup import CONTAINER_MARKERS, check_data_dir
from tests.helpers import shopagent

pytestmark = pytest.mark.anyio


def _taken_port() -> socket.socket:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    return taken


CASES = {
    "chat without an auth secret": (
        ("run", "--role", "chat"), {"SHOPAGENT_AUTH_SECRET": ""}, "the chat API needs SHOPAGENT_AUTH_SECRET"),
    "gemini chat without a key": (
        ("run", "--role", "chat"), {"SHOPAGENT_CHAT__PROVIDER": "gemini"},
        "chat.provider = 'gemini' needs the GEMINI_API_KEY environment variable"),
    "gemini embeddings without a key": (
        ("run", "--role", "indexer"), {"SHOPAGENT_EMBEDDING__MODEL": "gemini"},
        "embedding.model = 'gemini' needs the GEMINI_API_KEY environment variable"),
    "mcp on every interface without a key": (
        ("run", "--role", "mcp"), {"SHOPAGENT_MCP__HOST": "0.0.0.0"},  # noqa: S104 - the case under test
        "refusing to serve MCP on 0.0.0.0 without a key; set SHOPAGENT_MCP_API_KEY"),
    "demo with a data directory that is a file": (
        ("demo",), {"DATA_DIR_IS_A_FILE": "1"}, "is not a directory; set SHOPAGENT_DATA_DIR to a writable directory"),
    "run with a data directory that is a file": (
        ("run",), {"DATA_DIR_IS_A_FILE": "1"}, "is not a directory; set SHOPAGENT_DATA_DIR to a writable directory"),
    "http port in use": (
        ("run", "--role", "chat"), {"SHOPAGENT_HTTP__PORT": "TAKEN"}, "http: cannot listen on 127.0.0.1:"),
    "ops port in use": (("run", "--role", "reaper"), {"SHOPAGENT_OPS__PORT": "TAKEN"}, "ops: cannot listen on"),
    "check of chat without an auth secret": (
        ("check", "--role", "chat"), {"SHOPAGENT_AUTH_SECRET": ""}, "the chat API needs SHOPAGENT_AUTH_SECRET"),
    "check of a data directory that is a file": (
        ("check",), {"DATA_DIR_IS_A_FILE": "1"}, "is not a directory; set SHOPAGENT_DATA_DIR to a writable directory"),
}  # fmt: skip


@pytest.mark.process
@pytest.mark.parametrize("case", list(CASES))
async def test_a_start_up_mistake_is_one_line_and_exit_2_before_the_database_starts(case, tmp_path: Path):
    args, env, expected = CASES[case]
    data_dir = tmp_path / "data"
    with _taken_port() as taken:
        env = {k: str(taken.getsockname()[1]) if v == "TAKEN" else v for k, v in env.items()}
        if env.pop("DATA_DIR_IS_A_FILE", None):
            data_dir.write_text("not a directory")
        env["SHOPAGENT_DATA_DIR"] = str(data_dir)  # no database URL: the embedded one would start
        async with shopagent(*args, env=env) as proc:
            assert await proc.wait_exit() == 2
    lines = [entry["message"] for entry in proc.logs]
    assert len(lines) == 1, lines
    assert lines[0].startswith("shopagent: error: ") and expected in lines[0], lines
    assert not (data_dir / "postgres").exists()  # found before the database started


@pytest.mark.process
async def test_a_data_directory_the_user_cannot_write_is_one_line_saying_how_to_fix_it(tmp_path: Path):
    """As a container's /data mounted from a host folder owned by someone else."""
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o555)
    # root writes anywhere: without the capability to override file permissions it cannot
    launcher = ("setpriv", "--bounding-set=-dac_override", "--") if os.geteuid() == 0 else ()
    async with shopagent("run", env={"SHOPAGENT_DATA_DIR": str(data_dir)}, launcher=launcher) as proc:
        assert await proc.wait_exit() == 2
    uid = os.geteuid()
    in_container = any(marker.exists() for marker in CONTAINER_MARKERS)  # this test may itself run in one
    fix = (
        f"a host folder mounted on {data_dir} must belong to user id {uid}: on the host, "
        f"`sudo chown -R {uid} <the host folder>`; or mount a named volume instead"
        if in_container
        else f"e.g. `chown -R {uid} {data_dir}`"
    )
    assert [entry["message"] for entry in proc.logs] == [
        f"shopagent: error: the data directory {data_dir} cannot be written (Permission denied; user id {uid}); "
        f"set SHOPAGENT_DATA_DIR to a writable directory, or give this one to the user shopagent runs as ({fix})"
    ]
    assert not (data_dir / "postgres").exists()


@pytest.mark.process
async def test_an_unreachable_mcp_url_stops_a_chat_instance_in_one_line(database):
    with _taken_port() as closed:  # listening, never answering HTTP: then closed
        port = closed.getsockname()[1]
    env = {"SHOPAGENT_DATABASE_URL": database, "SHOPAGENT_CHAT__MCP_URL": f"http://127.0.0.1:{port}/mcp"}
    async with shopagent("run", "--role", "chat", env=env) as proc:
        assert await proc.wait_exit() == 1
    errors = proc.errors()
    assert len(errors) == 1, proc.logs
    assert f"cannot use the MCP server at http://127.0.0.1:{port}/mcp: ConnectError" in errors[0]
    assert not any("Traceback" in str(entry) for entry in proc.logs)
    assert not any("PostgreSQL" in entry.get("message", "") for entry in proc.logs)  # checked before it


@pytest.mark.process
async def test_run_with_generate_secrets_makes_the_missing_keys_once_into_the_data_dir(database, tmp_path: Path):
    env = {
        "SHOPAGENT_DATABASE_URL": database,
        "SHOPAGENT_DATA_DIR": str(tmp_path),
        "SHOPAGENT_AUTH_SECRET": "",
        "SHOPAGENT_RUNTIME__GENERATE_SECRETS": "true",
        "SHOPAGENT_EMBEDDING__MODEL": "hash",
    }
    secrets_file = tmp_path / "generated-secrets.json"
    for attempt in (1, 2):  # generated on the first start, the same ones on the next
        async with shopagent("run", "--role", "chat", env=env) as proc:
            await proc.wait_for_log("all actors ready", timeout=60)
            generated = json.loads(secrets_file.read_text())
            if attempt == 1:
                first = generated
            assert generated == first and set(generated) == {"admin_api_key", "mcp_api_key", "auth_secret"}
            assert stat.S_IMODE(secrets_file.stat().st_mode) == 0o600
            async with shopagent("token", "issue", "ana", env=env) as minted:
                assert await minted.wait_exit() == 0
            url = f"http://127.0.0.1:{proc.env['SHOPAGENT_HTTP__PORT']}"
            async with httpx.AsyncClient(base_url=url) as client:
                admin = await client.get(
                    "/api/admin/products", headers={"Authorization": f"Bearer {generated['admin_api_key']}"}
                )
                chat = await client.get(
                    "/api/conversations", headers={"Authorization": f"Bearer {minted.stdout.strip()}"}
                )
            assert (admin.status_code, chat.status_code) == (200, 200)
            proc.signal()
            assert await proc.wait_exit() == 0


def test_in_a_container_the_data_directory_message_says_how_to_fix_the_host_folder(tmp_path: Path):
    (tmp_path / "a-file").write_text("")
    data_dir = tmp_path / "a-file" / "data"  # cannot be made, whoever runs the test
    with pytest.raises(ConfigError) as refused:
        check_data_dir(data_dir, in_container=True)
    uid = os.geteuid()
    assert str(refused.value) == (
        f"the data directory {data_dir} cannot be written (Not a directory; user id {uid}); set SHOPAGENT_DATA_DIR "
        f"to a writable directory, or give this one to the user shopagent runs as (a host folder mounted on "
        f"{data_dir} must belong to user id {uid}: on the host, `sudo chown -R {uid} <the host folder>`; or mount "
        f"a named volume instead)"
    )


@pytest.mark.process
async def test_a_check_passes_on_ports_in_use_as_beside_the_running_service(tmp_path: Path):
    with _taken_port() as taken:
        env = {"SHOPAGENT_HTTP__PORT": str(taken.getsockname()[1]), "SHOPAGENT_DATA_DIR": str(tmp_path / "data")}
        async with shopagent("check", "--role", "chat", env=env) as proc:
            assert await proc.wait_exit() == 0
    assert not (tmp_path / "data" / "postgres").exists()  # nothing started
