"""One-for-one supervision on anyio.

A child is `async def run(*, task_status=anyio.TASK_STATUS_IGNORED)`: it acquires what it
needs, calls `task_status.started()` when it can do its job, then runs until cancelled.
Each child runs in its own task group, so a crash restarts only that child. Restarts are
charged to one budget (at most `max_restarts` within `within_seconds`, OTP's "intensity");
past it the whole tree is cancelled and `Supervisor.run` raises `RestartBudgetExceeded`,
so the process exits non-zero and the orchestrator restarts it. Each restart waits a little
longer than the last (the service's backoff, `runtime.retry`), counted over the same window.
"""

from __future__ import annotations

import enum
import logging
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import anyio
from anyio.abc import TaskStatus

from shopagent.runtime.retry import Backoff, wait

log = logging.getLogger("shopagent.supervisor")


class Restart(enum.Enum):
    PERMANENT = "permanent"  # always restarted, even after a normal return
    TRANSIENT = "transient"  # restarted only after a crash
    TEMPORARY = "temporary"  # never restarted


class State(enum.StrEnum):
    STARTING = "starting"
    READY = "ready"
    RESTARTING = "restarting"
    STOPPED = "stopped"
    FAILED = "failed"


@dataclass(frozen=True)
class ChildSpec:
    name: str
    run: Callable[..., Coroutine[Any, Any, None]]
    restart: Restart = Restart.PERMANENT
    ready_timeout: float = 60.0


@dataclass(frozen=True)
class RestartPolicy:
    max_restarts: int = 5
    within_seconds: float = 60.0
    backoff_seconds: float = 0.5
    backoff_max_seconds: float = 10.0
    backoff_jitter: float = 0.2  # the random fraction of each restart delay

    def backoff(self) -> Backoff:
        """The restart delays; the budget, not an attempt count, bounds how many there are."""
        return Backoff(base=self.backoff_seconds, cap=self.backoff_max_seconds, jitter=self.backoff_jitter)


@dataclass
class ActorStatus:
    name: str
    state: State = State.STARTING
    restarts: int = 0
    last_error: str | None = None
    recent_restarts: deque[float] = field(default_factory=deque, repr=False)


class SupervisorError(Exception):
    """The supervision tree gave up; the message says which child and why."""


class StartupFailed(SupervisorError):
    def __init__(self, name: str, cause: BaseException | None) -> None:
        reason = _describe(cause) if cause is not None else "it exited before reporting ready"
        super().__init__(f"actor {name} failed to start: {reason}")
        self.actor = name


class RestartBudgetExceeded(SupervisorError):
    pass


class Supervisor:
    """Starts children in order, each ready before the next, and restarts them one for one."""

    def __init__(self, children: Sequence[ChildSpec], policy: RestartPolicy | None = None) -> None:
        names = [c.name for c in children]
        if len(set(names)) != len(names):
            raise ValueError(f"child names must be unique: {names}")
        self._children = list(children)
        self._policy = policy or RestartPolicy()
        self._delays = self._policy.backoff()
        self._status = {c.name: ActorStatus(c.name) for c in children}
        self._restart_times: deque[float] = deque()

    def statuses(self) -> list[ActorStatus]:
        """A snapshot of every child's state, in start order."""
        return [replace(self._status[c.name], recent_restarts=deque()) for c in self._children]

    def all_ready(self) -> bool:
        return all(s.state is State.READY for s in self._status.values())

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Run the tree until cancelled. Reports ready once every child has.

        Raises StartupFailed if a child fails before its first ready, RestartBudgetExceeded
        if restarts exceed the budget; in both cases every other child is cancelled first.
        """
        try:
            async with anyio.create_task_group() as tg:
                for child in self._children:
                    await tg.start(self._keep, child)
                log.info("all actors ready: %s", ", ".join(c.name for c in self._children))
                task_status.started()
        except ExceptionGroup as group:
            raise _first_supervisor_error(group) from None

    async def _keep(self, child: ChildSpec, *, task_status: TaskStatus[None]) -> None:
        status = self._status[child.name]
        ready_once = False

        def first_ready() -> None:
            nonlocal ready_once
            ready_once = True
            task_status.started()

        while True:
            status.state = State.STARTING
            error = await self._run_once(child, status, None if ready_once else first_ready)
            if not ready_once:
                status.state = State.FAILED
                raise StartupFailed(child.name, error)
            if error is None and child.restart is not Restart.PERMANENT:
                status.state = State.STOPPED
                log.info("actor %s stopped", child.name)
                return
            status.last_error = _describe(error) if error else "exited while it should keep running"
            if error is not None and child.restart is Restart.TEMPORARY:
                status.state = State.FAILED
                log.error("actor %s failed and is not restarted: %s", child.name, status.last_error)
                return
            await self._backoff(child, status)

    async def _run_once(
        self, child: ChildSpec, status: ActorStatus, on_first_ready: Callable[[], None] | None
    ) -> Exception | None:
        """Run one incarnation of the child; return its crash (None if it returned)."""
        try:
            async with anyio.create_task_group() as tg:
                with anyio.move_on_after(child.ready_timeout) as waiting:
                    await tg.start(child.run)
                if waiting.cancelled_caught:
                    raise TimeoutError(f"not ready within {child.ready_timeout:g}s")
                status.state = State.READY
                log.info("actor %s ready", child.name)
                if on_first_ready is not None:
                    on_first_ready()
        except Exception as exc:
            error = _unwrap(exc)
            if status.state is State.READY:
                log.error("actor %s crashed: %s", child.name, _describe(error), exc_info=error)
            else:
                status.state = State.FAILED
                log.error("actor %s failed to start: %s", child.name, _describe(error), exc_info=error)
            return error
        return None

    async def _backoff(self, child: ChildSpec, status: ActorStatus) -> None:
        now = anyio.current_time()
        window = self._policy.within_seconds
        self._restart_times.append(now)
        while self._restart_times and now - self._restart_times[0] > window:
            self._restart_times.popleft()
        if len(self._restart_times) > self._policy.max_restarts:
            status.state = State.FAILED
            raise RestartBudgetExceeded(
                f"more than {self._policy.max_restarts} restarts within {window:g}s; "
                f"last: actor {child.name}: {status.last_error}"
            )
        status.recent_restarts.append(now)
        while now - status.recent_restarts[0] > window:
            status.recent_restarts.popleft()
        delay = self._delays.delay(len(status.recent_restarts))
        status.restarts += 1
        status.state = State.RESTARTING
        log.warning("restarting actor %s in %.2fs (restart %d)", child.name, delay, status.restarts)
        await wait(delay)


def _unwrap(exc: Exception) -> Exception:
    while isinstance(exc, ExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def _first_supervisor_error(group: ExceptionGroup) -> Exception:
    matched, _ = group.split(SupervisorError)
    if matched is None:
        return group
    first: Exception = matched
    while isinstance(first, ExceptionGroup):
        first = first.exceptions[0]
    return first


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
