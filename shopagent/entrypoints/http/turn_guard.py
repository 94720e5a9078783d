"""The turns in flight, so that a stop ends them with an answer, not a cut connection."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import anyio

from shopagent.domain.errors import ShuttingDown


class TurnGuard:
    """The chat turns in flight, so that a stop ends them with an answer, not a cut connection.

    Once `close()` is called new turns are refused; `end_all()` (at the end of the grace
    period) cancels the turns still running. Either way the client gets 503 `shutting_down`
    (JSON, or an `error` event), the conversation's claim is released and nothing of the
    turn is stored.
    """

    def __init__(self) -> None:
        self._scopes: set[anyio.CancelScope] = set()
        self.closing = False

    @property
    def running(self) -> int:
        return len(self._scopes)

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        if self.closing:
            raise ShuttingDown("the assistant is restarting; send your message again in a moment")
        scope = anyio.CancelScope()
        self._scopes.add(scope)
        try:
            with scope:
                yield
        finally:
            self._scopes.discard(scope)
        if scope.cancelled_caught:
            raise ShuttingDown(
                "the assistant is restarting and this message could not be finished in time; "
                "nothing of it was saved, send it again in a moment"
            )

    def close(self) -> None:
        self.closing = True

    def end_all(self) -> None:
        for scope in self._scopes:
            scope.cancel()
