from __future__ import annotations

from functools import partial

import anyio
import httpx
import msgspec
import pytest
from anyio.abc import TaskStatus

from shopagent.actors.ops import run_ops
from shopagent.bootstrap import health_of
from shopagent.runtime.mailbox import Mailbox
from shopagent.runtime.supervisor import ChildSpec, RestartPolicy, Supervisor
from shopagent.settings import OpsSettings, Settings
from shopagent.wiring.policies import listening
from tests.helpers import eventually, free_port

pytestmark = pytest.mark.anyio


async def test_readyz_answers_503_until_every_actor_is_ready_then_200():
    port = free_port()
    settings = msgspec.structs.replace(Settings(), ops=OpsSettings(port=port))
    gate = anyio.Event()

    async def slow_starter(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        await gate.wait()
        task_status.started()
        await anyio.sleep_forever()

    with Mailbox[int](8) as mailbox:
        supervisor: Supervisor

        async def health():
            return await health_of(supervisor, mailbox, str)

        supervisor = Supervisor(
            [
                ChildSpec("ops", partial(run_ops, listening(settings, "ops"), health)),
                ChildSpec("catalog", slow_starter),
            ],
            RestartPolicy(),
        )
        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg, httpx.AsyncClient() as client:
                tg.start_soon(supervisor.run)
                # ops starts first, so it answers while "catalog" is still starting.
                url = f"http://127.0.0.1:{port}"

                async def ops_answers() -> bool:
                    try:
                        return (await client.get(f"{url}/healthz")).status_code == 200
                    except httpx.ConnectError:
                        return False

                await eventually(ops_answers)
                assert (await client.get(f"{url}/healthz")).status_code == 200
                starting = await client.get(f"{url}/readyz")
                assert starting.status_code == 503
                assert starting.json()["status"] == "starting"
                assert starting.json()["actors"] == [
                    {"name": "ops", "state": "ready", "restarts": 0, "lastError": None},
                    {"name": "catalog", "state": "starting", "restarts": 0, "lastError": None},
                ]
                assert starting.json()["mailbox"] == {
                    "capacity": 8,
                    "depth": 0,
                    "waitingSenders": 0,
                    "waitingReceivers": 0,
                }
                gate.set()

                async def ready_now() -> httpx.Response | None:
                    response = await client.get(f"{url}/readyz")
                    return response if response.status_code == 200 else None

                ready = await eventually(ready_now)
                assert ready.status_code == 200
                assert ready.json()["ready"] is True
                assert ready.json()["status"] == "ready"
                metrics = (await client.get(f"{url}/metrics")).text
                assert 'shopagent_actor_ready{actor="catalog"} 1' in metrics
                assert "shopagent_mailbox_capacity 8" in metrics
                missing = await client.get(f"{url}/nope")
                assert missing.status_code == 404
                assert missing.json() == {"error": {"code": "not_found", "message": "Not Found"}}
                tg.cancel_scope.cancel()
