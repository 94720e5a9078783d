from __future__ import annotations

import anyio
import pytest

from shopagent.runtime.mailbox import Mailbox

pytestmark = pytest.mark.anyio


async def test_a_full_mailbox_makes_the_sender_wait_until_a_worker_takes_an_item():
    sent = []
    with Mailbox[int](2) as mailbox, mailbox.sender() as send:

        async def producer() -> None:
            for item in range(3):
                await send.send(item)
                sent.append(item)

        async with anyio.create_task_group() as tg:
            tg.start_soon(producer)
            await anyio.wait_all_tasks_blocked()
            assert sent == [0, 1]  # the third send waits: backpressure
            stats = mailbox.statistics()
            assert (stats.capacity, stats.depth, stats.waiting_senders) == (2, 2, 1)

            with mailbox.receiver() as inbox:
                assert await inbox.receive() == 0
                await anyio.wait_all_tasks_blocked()
                assert sent == [0, 1, 2]
                assert mailbox.statistics().depth == 2


async def test_send_nowait_on_a_full_mailbox_raises_would_block():
    with Mailbox[str](1) as mailbox, mailbox.sender() as send:
        send.send_nowait("a")
        with pytest.raises(anyio.WouldBlock):
            send.send_nowait("b")


async def test_a_worker_closing_its_clone_leaves_the_mailbox_and_its_items_usable():
    with Mailbox[str](4) as mailbox:
        with mailbox.sender() as send:
            send.send_nowait("first")
            send.send_nowait("second")
        # A worker that stops (e.g. is restarted) closes only its own clone.
        with mailbox.receiver() as worker:
            assert await worker.receive() == "first"
        with mailbox.receiver() as restarted_worker:
            assert await restarted_worker.receive() == "second"
        with mailbox.sender() as send:
            send.send_nowait("third")  # the root still owns open ends
        assert mailbox.statistics().depth == 1


async def test_clones_share_the_work_each_item_reaching_exactly_one_worker():
    taken: dict[str, list[int]] = {"w1": [], "w2": []}

    async def worker(mailbox: Mailbox[int], name: str) -> None:
        with mailbox.receiver() as inbox:
            async for item in inbox:
                taken[name].append(item)
                await anyio.lowlevel.checkpoint()

    with anyio.fail_after(5), Mailbox[int](8) as mailbox:
        async with anyio.create_task_group() as tg:
            tg.start_soon(worker, mailbox, "w1")
            tg.start_soon(worker, mailbox, "w2")
            with mailbox.sender() as send:
                for item in range(100):
                    await send.send(item)
            await anyio.wait_all_tasks_blocked()
            tg.cancel_scope.cancel()
    assert sorted(taken["w1"] + taken["w2"]) == list(range(100))
    assert taken["w1"]
    assert taken["w2"]


def test_capacity_must_be_positive():
    with pytest.raises(ValueError, match="capacity"):
        Mailbox(0)
