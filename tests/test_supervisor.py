from __future__ import annotations

from functools import partial

import anyio
import pytest
from anyio.abc import TaskStatus

from shopagent.runtime.retry import waits_on
from shopagent.runtime.supervisor import (
    ChildSpec,
    Restart,
    RestartBudgetExceeded,
    RestartPolicy,
    StartupFailed,
    State,
    Supervisor,
)

pytestmark = pytest.mark.anyio

FAST = RestartPolicy(max_restarts=3, within_seconds=60, backoff_seconds=0.001, backoff_max_seconds=0.01)


class Probe:
    """A child whose behaviour the test controls: crash on demand, count its starts."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.starts = 0
        self.crash = anyio.Event()
        self.running = anyio.Event()
        self.cancelled = 0

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        self.starts += 1
        self.crash = anyio.Event()
        task_status.started()
        self.running.set()
        try:
            await self.crash.wait()
        except anyio.get_cancelled_exc_class():
            self.cancelled += 1
            raise
        self.running = anyio.Event()
        raise RuntimeError(f"{self.name} crashed")


async def wait_for(predicate, timeout: float = 5) -> None:
    """Wait (bounded) until predicate() holds, letting other tasks run in between."""
    with anyio.fail_after(timeout):
        while not predicate():
            await anyio.wait_all_tasks_blocked()


async def test_children_start_in_order_each_ready_before_the_next():
    seen: list[str] = []

    async def child(name: str, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        seen.append(f"{name} starting")
        await anyio.lowlevel.checkpoint()  # a sibling started too early would run here
        seen.append(f"{name} ready")
        task_status.started()
        await anyio.sleep_forever()

    supervisor = Supervisor([ChildSpec(n, partial(child, n)) for n in ("a", "b", "c")], FAST)
    async with anyio.create_task_group() as tg:
        await tg.start(supervisor.run)
        assert seen == ["a starting", "a ready", "b starting", "b ready", "c starting", "c ready"]
        assert supervisor.all_ready()
        tg.cancel_scope.cancel()


async def test_a_crashing_child_is_restarted_while_its_sibling_keeps_running():
    crasher, sibling = Probe("crasher"), Probe("sibling")
    supervisor = Supervisor([ChildSpec("crasher", crasher.run), ChildSpec("sibling", sibling.run)], FAST)
    async with anyio.create_task_group() as tg:
        await tg.start(supervisor.run)
        crasher.crash.set()
        await wait_for(lambda: crasher.starts == 2 and supervisor.all_ready())
        status = {s.name: s for s in supervisor.statuses()}
        assert status["crasher"].restarts == 1
        assert status["crasher"].last_error == "RuntimeError: crasher crashed"
        assert status["sibling"].restarts == 0
        assert sibling.starts == 1  # never restarted
        assert sibling.cancelled == 0  # and never interrupted
        tg.cancel_scope.cancel()


async def test_exceeding_the_restart_budget_cancels_the_tree_and_raises():
    crasher, sibling = Probe("crasher"), Probe("sibling")
    supervisor = Supervisor([ChildSpec("sibling", sibling.run), ChildSpec("crasher", crasher.run)], FAST)
    over_budget = pytest.RaisesExc(RestartBudgetExceeded, match="more than 3 restarts within 60s")
    with anyio.fail_after(5), pytest.RaisesGroup(over_budget):
        async with anyio.create_task_group() as tg:
            await tg.start(supervisor.run)
            while True:
                await wait_for(lambda: crasher.running.is_set())
                crasher.crash.set()
                await wait_for(lambda: not crasher.running.is_set())
    assert crasher.starts == 4  # the first run and 3 restarts; the 4th crash is over budget
    assert sibling.cancelled == 1


async def test_a_child_failing_before_ready_fails_startup_and_later_children_never_start():
    later = Probe("later")

    async def broken(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        raise OSError("cannot reach the database")

    supervisor = Supervisor([ChildSpec("broken", broken), ChildSpec("later", later.run)], FAST)
    with pytest.raises(StartupFailed, match="actor broken failed to start: OSError: cannot reach the database"):
        await supervisor.run()
    assert later.starts == 0
    assert supervisor.statuses()[0].state is State.FAILED


async def test_a_child_that_never_reports_ready_times_out_at_startup():
    async def hangs(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        await anyio.sleep_forever()

    supervisor = Supervisor([ChildSpec("hangs", hangs, ready_timeout=0.05)], FAST)
    with anyio.fail_after(5), pytest.raises(StartupFailed, match=r"not ready within 0\.05s"):
        await supervisor.run()


async def test_a_transient_child_returning_normally_is_not_restarted():
    async def finishes(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        task_status.started()

    supervisor = Supervisor([ChildSpec("job", finishes, Restart.TRANSIENT)], FAST)
    with anyio.fail_after(5):
        await supervisor.run()  # returns: nothing left to supervise
    assert supervisor.statuses()[0].state is State.STOPPED
    assert supervisor.statuses()[0].restarts == 0


async def test_a_permanent_child_returning_normally_is_restarted():
    starts = 0

    async def returns(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        nonlocal starts
        starts += 1
        task_status.started()
        if starts > 1:
            await anyio.sleep_forever()

    supervisor = Supervisor([ChildSpec("loop", returns)], FAST)
    async with anyio.create_task_group() as tg:
        await tg.start(supervisor.run)
        await wait_for(lambda: starts == 2 and supervisor.all_ready())
        assert supervisor.statuses()[0].last_error == "exited while it should keep running"
        tg.cancel_scope.cancel()


async def test_a_temporary_child_that_crashes_stays_down_and_its_sibling_keeps_running():
    temporary, sibling = Probe("temporary"), Probe("sibling")
    supervisor = Supervisor(
        [ChildSpec("temporary", temporary.run, Restart.TEMPORARY), ChildSpec("sibling", sibling.run)], FAST
    )
    async with anyio.create_task_group() as tg:
        await tg.start(supervisor.run)
        temporary.crash.set()
        await wait_for(lambda: supervisor.statuses()[0].state is State.FAILED)
        assert temporary.starts == 1
        assert supervisor.statuses()[1].state is State.READY
        tg.cancel_scope.cancel()


async def test_restarts_back_off_exponentially_with_jitter_up_to_the_cap(retry_waits: list[float]):
    policy = RestartPolicy(max_restarts=10, within_seconds=60, backoff_seconds=0.5, backoff_max_seconds=3)
    crasher = Probe("crasher")
    supervisor = Supervisor([ChildSpec("crasher", crasher.run)], policy)
    async with anyio.create_task_group() as tg:
        await tg.start(supervisor.run)
        for expected_starts in range(2, 7):
            crasher.crash.set()
            await wait_for(lambda n=expected_starts: crasher.starts == n and crasher.running.is_set())
        tg.cancel_scope.cancel()
    # 0.5, 1, 2, then the cap of 3 s; each up to 20 % shorter, never longer.
    assert len(retry_waits) == 5
    for delay, ceiling in zip(retry_waits, [0.5, 1, 2, 3, 3], strict=True):
        assert ceiling * 0.8 <= delay <= ceiling


async def test_a_restart_really_waits_its_delay():
    policy = RestartPolicy(max_restarts=10, within_seconds=60, backoff_seconds=0.05, backoff_max_seconds=1)
    crasher = Probe("crasher")
    supervisor = Supervisor([ChildSpec("crasher", crasher.run)], policy)
    with waits_on() as asked:
        async with anyio.create_task_group() as tg:
            await tg.start(supervisor.run)
            crashed_at = anyio.current_time()
            crasher.crash.set()
            await wait_for(lambda: crasher.starts == 2 and crasher.running.is_set())
            gap = anyio.current_time() - crashed_at
            tg.cancel_scope.cancel()
    assert len(asked) == 1
    assert 0.04 <= asked[0] <= gap


def test_child_names_must_be_unique():
    with pytest.raises(ValueError, match="unique"):
        Supervisor([ChildSpec("a", Probe("a").run), ChildSpec("a", Probe("a").run)])
