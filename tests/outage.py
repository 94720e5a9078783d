"""A link to the test PostgreSQL that a test can cut: a database outage without stopping the
server the rest of the suite shares.

Shopagent connects to a Unix socket of the link's own, which forwards every connection to the
real server's socket. `cut()` drops every open connection and refuses new ones, as a stopped
server does; `restore()` accepts again. `hold_hangups()` stretches the moment between the last
words the server sends on a connection (on a shutdown: "terminating connection due to
administrator command") and its hang-up, which a busy event loop sees one turn later: the link
passes the words on at once and the hang-up only at `release_hangups()`. The fault suite
(tests/faults) stops a real server.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit


class PostgresLink:
    def __init__(self, dsn: str, directory: Path) -> None:
        parts = urlsplit(dsn)
        self._target = Path(parse_qs(parts.query)["host"][0]) / f".s.PGSQL.{parts.port or 5432}"
        self._user = parts.username
        self._database = parts.path.lstrip("/")
        self._directory = directory
        self._path = directory / ".s.PGSQL.5432"
        self._server: asyncio.AbstractServer | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._hangups: asyncio.Event | None = None  # set: pass the server's hang-ups on
        self._held = 0
        self._held_changed = asyncio.Event()

    @property
    def dsn(self) -> str:
        return f"postgresql://{self._user}@/{quote(self._database)}?host={quote(str(self._directory))}"

    async def restore(self) -> None:
        assert self._server is None, "the link is up already"
        self._path.unlink(missing_ok=True)
        self._server = await asyncio.start_unix_server(self._forward, path=str(self._path))

    def cut(self) -> None:
        """Refuse new connections (no socket: as a stopped server) and drop the open ones."""
        assert self._server is not None, "the link is cut already"
        self._server.close()
        self._server = None
        self._path.unlink(missing_ok=True)
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()
        self.release_hangups()

    def hold_hangups(self) -> None:
        """Keep the app's end of each connection the server closes from now on open (after
        passing on all the server sent) until `release_hangups()`."""
        assert self._hangups is None, "hang-ups are held already"
        self._hangups = asyncio.Event()
        self._held = 0

    def release_hangups(self) -> None:
        if self._hangups is not None:
            self._hangups.set()
            self._hangups = None

    async def wait_held(self, count: int) -> None:
        """Wait until the server has hung up on `count` connections since `hold_hangups()`."""
        while self._held < count:
            self._held_changed.clear()
            await self._held_changed.wait()

    async def _forward(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            target_reader, target_writer = await asyncio.open_unix_connection(str(self._target))
        except OSError:
            writer.transport.abort()
            return
        self._writers.update((writer, target_writer))

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter, *, from_server: bool) -> None:
            with contextlib.suppress(OSError, asyncio.CancelledError):
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
                if from_server and (held := self._hangups) is not None:
                    await self._hold(held)
            sink.transport.abort()

        await asyncio.gather(
            pump(reader, target_writer, from_server=False), pump(target_reader, writer, from_server=True)
        )
        self._writers.difference_update((writer, target_writer))

    async def _hold(self, released: asyncio.Event) -> None:
        self._held += 1
        self._held_changed.set()
        await released.wait()


@contextlib.asynccontextmanager
async def postgres_link(dsn: str, directory: Path) -> AsyncIterator[PostgresLink]:
    link = PostgresLink(dsn, directory)
    await link.restore()
    try:
        yield link
    finally:
        if link._server is not None:
            link.cut()
