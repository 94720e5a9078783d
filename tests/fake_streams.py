"""A streamed answer of a fake model server, as server-sent events, that can stop midway."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import anyio


@dataclass
class Streamed:
    """Each chunk an event (`data: <json>`), then `trailer`. After `hold_after` chunks the fake
    sets `held` and waits for `resume` before sending the rest (a stream still running)."""

    chunks: list[dict[str, Any]]
    hold_after: int | None = None
    held: anyio.Event = field(default_factory=anyio.Event)
    resume: anyio.Event = field(default_factory=anyio.Event)
    line_end: str = "\n"
    trailer: bytes = b""

    async def events(self) -> AsyncIterator[bytes]:
        for index, chunk in enumerate(self.chunks):
            if index == self.hold_after:
                self.held.set()
                with anyio.fail_after(10):
                    await self.resume.wait()
            yield f"data: {json.dumps(chunk)}{self.line_end * 2}".encode()
        yield self.trailer
