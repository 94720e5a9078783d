"""StorageWatch: whether the database's disk is full, as the writes that fail for it tell.

PostgreSQL refuses a write it has no disk space for (SQLSTATE 53100) and goes on serving
reads. shopagent treats that as an outage of writes only: the write is answered 503
`storage_full` with a Retry-After, background writers (the indexer) pause for that long and
then try again, readiness says `degraded` with the reason, and the log says it once per
episode. Nothing is polled: the next write that goes through (or none failing for a while)
ends it.
"""

from __future__ import annotations

import logging
import time

import anyio

from shopagent.domain.errors import StorageFull

log = logging.getLogger("shopagent.postgres")

_MESSAGE = "the database's disk is full; writes are refused until there is room again"


class StorageWatch:
    def __init__(self, retry_seconds: float = 5.0) -> None:
        self.retry_seconds = retry_seconds
        self._last_seen: float | None = None  # when a write last failed for lack of space
        self._reason = ""

    def met(self, exc: BaseException) -> StorageFull:
        """A write failed with `exc` for lack of space: the error to raise instead."""
        if self._episode_over():
            log.error("%s (%s); indexing pauses, reads go on", _MESSAGE, _first_line(exc))
        self._last_seen, self._reason = time.monotonic(), _first_line(exc)
        return StorageFull(_MESSAGE, retry_after=self.retry_seconds)

    @property
    def reason(self) -> str | None:
        """Why writes fail, while one failed for lack of space within `retry_seconds`."""
        if self._last_seen is None or time.monotonic() - self._last_seen >= self.retry_seconds:
            return None
        return self._reason

    async def wait_for_room(self) -> None:
        """For background writers: return once `retry_seconds` have passed since the last
        write that failed for lack of space (at once if none did), so they try again."""
        while (left := self._wait_left()) > 0:  # noqa: ASYNC110 - another failure moves the end on
            await anyio.sleep(left)

    def _wait_left(self) -> float:
        return 0.0 if self._last_seen is None else self._last_seen + self.retry_seconds - time.monotonic()

    def _episode_over(self) -> bool:
        """No write failed for twice the retry time: a new failure starts a new episode."""
        if self._last_seen is None:
            return True
        if time.monotonic() - self._last_seen < 2 * self.retry_seconds:
            return False
        log.info("writes no longer fail for lack of disk space")
        return True


def _first_line(exc: BaseException) -> str:
    return (str(exc) or type(exc).__name__).splitlines()[0]
