"""SeenKeys: which keys (slugs, handles, parent IDs) a file read as a stream has shown so far,
in about 12 bytes a key, so that a product whose rows come apart is caught without holding the
file's products.

A key is kept as its 64-bit hash (two keys of a million share one with a chance of about 3 in
100 million): the latest in a set, the rest in sorted blocks of at most `BLOCK` hashes, found by
each block's first hash. Merging into blocks of one bounded size keeps the memory at what the
keys take: one sorted array merged whole each time peaked at three times its size and left the
process 78 MiB larger after a million keys (68 MiB more than the blocks)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Hashes = npt.NDArray[np.int64]


class SeenKeys:
    RECENT = 1 << 14  # hashes held in the set before they are merged into the blocks
    BLOCK = 1 << 13  # 64 KiB a block

    def __init__(self) -> None:
        self._recent: set[int] = set()
        self._blocks: list[Hashes] = []
        self._firsts: Hashes = np.empty(0, dtype=np.int64)  # each block's first (least) hash

    def add(self, key: str) -> None:
        self._recent.add(hash(key))
        if len(self._recent) >= self.RECENT:
            self._merge(np.sort(np.fromiter(self._recent, dtype=np.int64, count=len(self._recent))))
            self._recent.clear()

    def __contains__(self, key: object) -> bool:
        hashed = hash(key)
        if hashed in self._recent:
            return True
        at = int(np.searchsorted(self._firsts, hashed, side="right")) - 1
        if at < 0:
            return False
        block = self._blocks[at]
        found = int(np.searchsorted(block, hashed))
        return found < len(block) and int(block[found]) == hashed

    def _merge(self, new: Hashes) -> None:
        """Merge the sorted `new` hashes into the blocks, splitting any that grows past `BLOCK`."""
        if not self._blocks:
            self._blocks = self._pieces(new)
        else:
            into = np.maximum(np.searchsorted(self._firsts, new, side="right") - 1, 0)  # non-decreasing
            numbers = np.arange(len(self._blocks))
            starts, ends = np.searchsorted(into, numbers, side="left"), np.searchsorted(into, numbers, side="right")
            blocks: list[Hashes] = []
            for block, start, end in zip(self._blocks, starts, ends, strict=True):
                blocks.extend(self._pieces(np.union1d(block, new[start:end])) if end > start else [block])
            self._blocks = blocks
        self._firsts = np.fromiter((block[0] for block in self._blocks), dtype=np.int64, count=len(self._blocks))

    def _pieces(self, hashes: Hashes) -> list[Hashes]:
        parts = -(-len(hashes) // self.BLOCK)
        return [piece.copy() for piece in np.array_split(hashes, parts)] if parts > 1 else [hashes]
