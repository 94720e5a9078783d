"""How often a copy kept between searches is re-read: by its refresh interval, and never so often that
re-reading it takes more than a small share of one core. At a million products the typo vocabulary takes
about 6 s to read and the plan statistics 3 s; re-read every 30 s, as a catalog of thousands is, they kept
a third of one core busy."""

from __future__ import annotations

from dataclasses import dataclass

BACKGROUND_PACE = 20.0  # a background re-read waits at least this many times as long as the last read took
SEARCH_PACE = 40.0  # a search re-reads a copy itself only once it is this many times as old: the background is late


@dataclass
class ReadPace:
    """The pace of one kept copy: `refresh_seconds` (how old it may get), and how long its last read took."""

    refresh_seconds: float
    took: float = 0.0

    def stale(self, age: float) -> bool:
        """Whether a search should re-read a copy this old (seconds) before using it."""
        return age >= max(self.refresh_seconds, SEARCH_PACE * self.took)

    def due(self, age: float) -> bool:
        """Whether the background refresh should re-read a copy this old now."""
        return age >= BACKGROUND_PACE * self.took
