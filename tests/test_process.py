"""The real `shopagent` process: start-up, roles, restarts, failures and graceful stop."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import asyncpg
import httpx
import psutil
import pytest

from shopagent.adapters.postgres.migrations import load_migrations
from tests.conftest import scratch_dir
from tests.helpers import REPO, eventually, example_env_file, shopagent

pytestmark = [pytest.mark.anyio, pytest.mark.process]


def postgres_processes_for(data_dir: Path) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        cmdline = proc.info["cmdline"] or []
        if proc.info["name"] == "postgres" and any(str(data_dir) in part for part in cmdline):
            found.append(proc)
    return found


async def test_run_on_the_embedded_database_becomes_ready_and_stops_cleanly_on_sigterm():
    data_dir = scratch_dir("sa-e2e-")
    try:
        async with shopagent("run", env={"SHOPAGENT_DATA_DIR": str(data_dir)}) as proc:
            await proc.wait_for_log("all actors ready", timeout=60)
            response = await proc.readyz()
            assert response.status_code == 200
            names = [a["name"] for a in response.json()["actors"]]
            assert names == ["ops", "embedding-pool", "outbox-poller", "mcp", "http", "reaper"]
            assert postgres_processes_for(data_dir)  # the embedded server runs
            proc.signal(signal.SIGTERM)
            assert await proc.wait_exit() == 0
            assert proc.errors() == []
        assert not (data_dir / "postgres" / "postmaster.pid").exists()
        assert postgres_processes_for(data_dir) == []  # nothing orphaned
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


async def test_role_mcp_runs_only_mcp_and_ops(database):
    async with shopagent("run", "--role", "mcp", env={"SHOPAGENT_DATABASE_URL": database}) as proc:
        await proc.wait_for_log("all actors ready")
        response = await proc.readyz()
        assert [a["name"] for a in response.json()["actors"]] == ["ops", "mcp"]
        assert response.json()["mailbox"] is None
        with pytest.raises(OSError):
            await anyio.connect_tcp("127.0.0.1", int(proc.env["SHOPAGENT_HTTP__PORT"]))
        proc.signal(signal.SIGINT)
        assert await proc.wait_exit() == 0


async def listen_backend_pid(dsn: str) -> int | None:
    conn = await asyncpg.connect(dsn)
    try:
        return await conn.fetchval("SELECT pid FROM pg_stat_activity WHERE query LIKE 'LISTEN %shopagent_outbox%'")
    finally:
        await conn.close()


async def kill_backend(dsn: str, pid: int) -> None:
    conn = await asyncpg.connect(dsn)
    try:
        assert await conn.fetchval("SELECT pg_terminate_backend($1)", pid)
    finally:
        await conn.close()


async def test_a_lost_listen_connection_is_listened_again_without_a_restart_even_with_no_restart_budget(database):
    # A restart budget of 0: any crash would stop the process (exit 1). Losing the LISTEN
    # connection (the database restarted, a backend was terminated) is not a crash.
    env = {"SHOPAGENT_DATABASE_URL": database, "SHOPAGENT_RUNTIME__RESTART_MAX": "0"}
    async with shopagent("run", "--role", "indexer,chat", env=env) as proc:
        await proc.wait_for_log("all actors ready")
        old_pid = await eventually(lambda: listen_backend_pid(database))
        await kill_backend(database, old_pid)  # the poller's LISTEN connection dies
        await proc.wait_for_log("LISTEN connection to PostgreSQL was lost; listening again")

        async def listening_anew() -> int | None:
            pid = await listen_backend_pid(database)
            return pid if pid not in (None, old_pid) else None

        await eventually(listening_anew, timeout=10)
        body = (await proc.readyz()).json()
        assert body["ready"] is True
        assert {a["name"]: a["restarts"] for a in body["actors"]} == {
            "ops": 0, "embedding-pool": 0, "outbox-poller": 0, "http": 0,
        }  # fmt: skip
        async with httpx.AsyncClient() as client:
            api = await client.get(f"http://127.0.0.1:{proc.env['SHOPAGENT_HTTP__PORT']}/api")
        assert api.status_code == 200
        proc.signal(signal.SIGTERM)
        assert await proc.wait_exit() == 0


async def test_an_unreachable_database_is_a_clear_error_that_never_shows_the_password():
    env = {"SHOPAGENT_DATABASE_URL": "postgresql://shop:s3cret-pass@127.0.0.1:1/shop"}
    async with shopagent("run", env=env) as proc:
        assert await proc.wait_exit() == 1
    errors = proc.errors()
    assert any("cannot connect to PostgreSQL at postgresql://shop:***@127.0.0.1:1/shop" in e for e in errors), errors
    assert "s3cret-pass" not in str(proc.logs) + proc.stdout


async def test_migrate_applies_pending_migrations_once(empty_database):
    env = {"SHOPAGENT_DATABASE_URL": empty_database}
    async with shopagent("migrate", env=env) as proc:
        assert await proc.wait_exit() == 0
    assert f"applied {len(load_migrations())} migration(s)" in proc.stdout
    async with shopagent("migrate", env=env) as again:
        assert await again.wait_exit() == 0
    assert "the schema is up to date" in again.stdout


async def test_an_external_database_without_pgvector_stops_startup_with_the_fix(database):
    # asyncpg passes unknown URL parameters as server settings: this session sees no pgvector.
    env = {"SHOPAGENT_DATABASE_URL": database + "&extension_control_path=/nonexistent"}
    async with shopagent("run", "--role", "mcp", env=env) as proc:
        assert await proc.wait_exit() == 1
    assert any("the pgvector extension (>= 0.8) is not available" in e for e in proc.errors()), proc.logs


async def test_token_issue_prints_only_a_token_for_the_user():
    from shopagent.domain.tokens import verify_token

    secret = "s3cret-" * 6
    async with shopagent("token", "issue", "customer-42", env={"SHOPAGENT_AUTH_SECRET": secret}) as proc:
        assert await proc.wait_exit() == 0
    assert verify_token(secret, proc.stdout.strip()) == "customer-42"
    assert proc.stdout.count("\n") == 1
    async with shopagent(
        "token", "issue", "x", env={"SHOPAGENT_AUTH_SECRET": "", "SHOPAGENT_DATA_DIR": "/nonexistent"}
    ) as proc:
        assert await proc.wait_exit() == 1
    assert any("set SHOPAGENT_AUTH_SECRET" in e for e in proc.errors())


async def test_the_demo_holds_a_conversation_that_survives_a_restart():
    data_dir = scratch_dir("sa-demo-")
    env = {"SHOPAGENT_DATA_DIR": str(data_dir), "SHOPAGENT_AUTH_SECRET": ""}  # the demo makes its own secret

    async def say(client: httpx.AsyncClient, url: str, headers, query: str, conversation_id=None) -> dict:
        body = {"query": query, **({"conversationId": conversation_id} if conversation_id else {})}
        response = await client.post(f"{url}/api/assistant-agent/chat", json=body, headers=headers)
        assert response.status_code == 200, response.text
        return response.json()

    try:
        async with shopagent("demo", env=env) as proc:
            await proc.wait_for_log("all actors ready", timeout=90)
            url = f"http://127.0.0.1:{proc.env['SHOPAGENT_HTTP__PORT']}"
            async with httpx.AsyncClient(timeout=60) as client:
                # "ready" comes once the sample catalog is indexed: the first answer is the right one.
                # Waited for while the progress lines come (the local model's pace is the machine's).
                banner = await proc.wait_for_output_while_progressing("shopagent is ready")
                admin_key = json.loads((data_dir / "demo-secrets.json").read_text())["admin_api_key"]
                status = (
                    await client.get(f"{url}/api/admin/index/status", headers={"Authorization": f"Bearer {admin_key}"})
                ).json()
                assert status["productsIndexed"] == status["productsTotal"] == 200
                assert status["pending"] + status["inFlight"] == 0
                assert "indexing the catalog:" in banner.split("shopagent is ready")[0]  # progress meanwhile
                await proc.wait_for_output(" repl\n")
                assert "curl -s http://127.0.0.1:" in proc.stdout and "warm winter boots" in proc.stdout
                readiness = (await proc.readyz()).json()
                assert readiness["indexing"] == {"pending": 0, "inFlight": 0, "dead": 0, "oldestDueSeconds": 0.0}
                async with shopagent("token", "issue", "demo-user", env=env) as minted:
                    assert await minted.wait_exit() == 0
                headers = {"Authorization": f"Bearer {minted.stdout.strip()}"}
                first = await say(client, url, headers, "warm winter boots")
                conversation = first["conversationId"]
                second = await say(client, url, headers, "tell me more about the second one", conversation)
                third = await say(client, url, headers, "red sneakers in size 39", conversation)
            proc.signal(signal.SIGTERM)
            assert await proc.wait_exit() == 0
        second_product = first["response"].splitlines()[2].split(" - ")[0].removeprefix("2. ")
        assert second["response"].startswith(second_product), (first["response"], second["response"])
        assert "sneaker" in third["response"].lower()

        async with shopagent("demo", env=env) as again:
            await again.wait_for_log("all actors ready", timeout=90)
            url = f"http://127.0.0.1:{again.env['SHOPAGENT_HTTP__PORT']}"
            async with httpx.AsyncClient(timeout=60) as client:
                fourth = await say(client, url, headers, "tell me more about the first one", conversation)
                detail = (await client.get(f"{url}/api/conversations/{conversation}", headers=headers)).json()
            again.signal(signal.SIGTERM)
            assert await again.wait_exit() == 0
        assert fourth["conversationId"] == conversation
        assert [m["text"] for m in detail["messages"] if m["role"] == "user" and m["text"]] == [
            "warm winter boots", "tell me more about the second one", "red sneakers in size 39",
            "tell me more about the first one",
        ]  # fmt: skip
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


EXAMPLE_ENV = example_env_file()


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"SHOPAGENT_AUTH_SECRET": "x"}, "SHOPAGENT_AUTH_SECRET is too short"),
        ({"SHOPAGENT_AUTH_SECRET": "a" * 40 + ",short"}, "SHOPAGENT_AUTH_SECRET is too short (secret 2 of the list)"),
        ({"SHOPAGENT_ADMIN_API_KEY": "admin"}, "SHOPAGENT_ADMIN_API_KEY is too short"),
        ({"SHOPAGENT_MCP_API_KEY": "mcp-key"}, "SHOPAGENT_MCP_API_KEY is too short"),
        # deploy/shopagent.env.example copied and not filled in
        *(
            ({name: value}, f"{name} still holds a placeholder of deploy/shopagent.env.example")
            for name, value in EXAMPLE_ENV.items()
            if name.startswith("SHOPAGENT_")
        ),
        (
            {"SHOPAGENT_DATABASE_URL": f"postgresql://shopagent:{EXAMPLE_ENV['POSTGRES_PASSWORD']}@db/shopagent"},
            "SHOPAGENT_DATABASE_URL still holds a placeholder",
        ),
        ({"SHOPAGENT_SEARCH__HNSW_M": "100"}, "SHOPAGENT_SEARCH__HNSW_M='100': `search`: hnsw_ef_construction (64)"),
        ({"SHOPAGENT_CHAT__TOKEN_TTL_SECONDS": "99999999"}, "token_ttl_seconds (99999999) must not exceed"),
    ],
)
async def test_weak_secrets_and_bad_settings_from_the_environment_stop_start_up_in_one_line(env, variable):
    async with shopagent("index", "status", env=env) as proc:
        assert await proc.wait_exit() == 2
    (line,) = proc.errors()
    assert line.startswith("shopagent: error: ") and variable in line
    assert not any("Traceback" in e.get("message", "") for e in proc.logs)
    for name, value in env.items():
        if "KEY" in name or "SECRET" in name:
            assert value not in line  # never the secret itself


async def test_the_example_env_file_left_unfilled_is_named_whole_in_one_line():
    async with shopagent("run", env=EXAMPLE_ENV) as proc:
        assert await proc.wait_exit() == 2
    (line,) = proc.errors()
    filled_in = sorted(name for name in EXAMPLE_ENV if name.startswith("SHOPAGENT_"))
    assert len(filled_in) == 4
    assert line.startswith(f"shopagent: error: {', '.join(filled_in[:-1])} and {filled_in[-1]} still hold placeholders")
    assert "SHOPAGENT_STORE__NAME: the shop's name as shoppers see it" in line
    assert not any(value in line for value in EXAMPLE_ENV.values())  # names, never values


async def _stdio(env: dict[str, str]):
    """`shopagent mcp stdio` with pipes for stdin, stdout and stderr."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("SHOPAGENT_") and k != "GEMINI_API_KEY"}
    return await anyio.open_process(
        [sys.executable, "-m", "shopagent", "mcp", "stdio"], env={**base, **env}, cwd=REPO,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


async def _line(stream) -> dict:
    buffer = b""
    while not buffer.endswith(b"\n"):
        buffer += await stream.receive()
    return json.loads(buffer)


STDIO_ENV = {"SHOPAGENT_EMBEDDING__MODEL": "hash", "SHOPAGENT_LOGGING__FORMAT": "json"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}  # fmt: skip


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_mcp_stdio_stops_its_embedded_postgres_and_exits_0_on_a_signal(outside_tmp_path, signum):
    env = {
        "SHOPAGENT_DATA_DIR": str(outside_tmp_path),
        "SHOPAGENT_EMBEDDING__MODEL": "hash",
        "SHOPAGENT_LOGGING__FORMAT": "json",
    }
    async with await _stdio(env) as process:
        with anyio.fail_after(60):
            await process.stdin.send(json.dumps(INITIALIZE).encode() + b"\n")
            assert (await _line(process.stdout))["id"] == 1  # serving, with its PostgreSQL up
            assert list(outside_tmp_path.rglob("postmaster.pid"))
            process.send_signal(signum)
            assert await process.wait() == 0
    assert not list(outside_tmp_path.rglob("postmaster.pid"))  # the embedded PostgreSQL was stopped


async def test_mcp_stdio_answers_a_malformed_line_with_a_parse_error(database):
    env = {
        "SHOPAGENT_DATABASE_URL": database,
        "SHOPAGENT_EMBEDDING__MODEL": "hash",
        "SHOPAGENT_LOGGING__FORMAT": "json",
    }
    async with await _stdio(env) as process:
        with anyio.fail_after(60):
            await process.stdin.send(json.dumps(INITIALIZE).encode() + b"\n")
            assert (await _line(process.stdout))["id"] == 1
            await process.stdin.send(b"this is not json\n")
            error = await _line(process.stdout)
            await process.stdin.send(b'{"jsonrpc": "2.0", "id": 2, "method": "ping"}\n')
            pong = await _line(process.stdout)
            await process.stdin.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
            arguments = {"query": "boot\\ud800s"}  # the JSON escape of a lone surrogate, as a client may send
            call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                    "params": {"name": "product-semantic-search", "arguments": arguments}}  # fmt: skip
            await process.stdin.send(json.dumps(call).replace("\\\\", "\\").encode() + b"\n")
            searched = await _line(process.stdout)
            await process.stdin.send(b'{"jsonrpc": "2.0", "id": "call-5", "method": "tools/call", "params": {"na\n')
            cut = await _line(process.stdout)
            await process.stdin.send(b'{"jsonrpc": "2.0", "id": 4, "method": "ping"}\n')
            still_serving = await _line(process.stdout)
            await process.stdin.aclose()  # end of input: a clean stop
            assert await process.wait() == 0
            stderr = b""
            async for chunk in process.stderr:
                stderr += chunk
    parse_error = {"code": -32700, "message": "Parse error: not a JSON-RPC message"}
    assert error == {"jsonrpc": "2.0", "id": None, "error": parse_error}
    assert pong == {"jsonrpc": "2.0", "id": 2, "result": {}}
    # A lone surrogate is refused with the request's id, so the client fails that call at once
    # (with id null it would wait for its timeout); never a crash, and the server goes on answering.
    assert searched["id"] == 3
    assert searched["error"]["code"] == -32600
    assert "lone surrogate" in searched["error"]["message"]
    parse_error_of_call_5 = {"code": -32700, "message": "Parse error: not a JSON-RPC message"}
    assert cut == {"jsonrpc": "2.0", "id": "call-5", "error": parse_error_of_call_5}
    assert still_serving == {"jsonrpc": "2.0", "id": 4, "result": {}}
    assert b"not a JSON-RPC message was answered with error -32700 (id None)" in stderr
