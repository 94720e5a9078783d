"""A clock the test moves: what the in-memory twins read instead of the real time, so that a
test lets time pass by saying how much, never by sleeping."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class FakeClock:
    """Starts at a fixed moment and moves only when told (`advance`); `tick` is added after
    every reading, so two readings are never equal (as the database's statement times are not)."""

    def __init__(self, tick: float = 0.0) -> None:
        self._at = datetime(2026, 1, 1, tzinfo=UTC)
        self._tick = timedelta(seconds=tick)

    def now(self) -> datetime:
        at = self._at
        self._at += self._tick
        return at

    def monotonic(self) -> float:
        return (self.now() - datetime(2026, 1, 1, tzinfo=UTC)).total_seconds()

    def advance(self, seconds: float) -> None:
        self._at += timedelta(seconds=seconds)
