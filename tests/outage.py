"""A link to the test PostgreSQL that a test can cut: a database outage without stopping the
server the rest of the suite shares.

Shopagent connects to a Unix socket of the link's own, which forwards every connection to the
real server's socket. `cut()` drops every open connection and refuses new ones, as a stopped
server does; `restore()` accepts again. The fault suite (tests/faults) stops a real server.
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

    async def _forward(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            target_reader, target_writer = await asyncio.open_unix_connection(str(self._target))
        except OSError:
            writer.transport.abort()
            return
        self._writers.update((writer, target_writer))

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, asyncio.CancelledError):
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            sink.transport.abort()

        await asyncio.gather(pump(reader, target_writer), pump(target_reader, writer))
        self._writers.difference_update((writer, target_writer))


@contextlib.asynccontextmanager
async def postgres_link(dsn: str, directory: Path) -> AsyncIterator[PostgresLink]:
    link = PostgresLink(dsn, directory)
    await link.restore()
    try:
        yield link
    finally:
        if link._server is not None:
            link.cut()
