"""PostgresStorePages: the shop's store pages, each write with its outbox event in one transaction.

As for products, every write changes (locks) the page row before it inserts its event, so for
one page the events' ids follow commit order.
"""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from shopagent.adapters.postgres.catalog import record_event
from shopagent.adapters.postgres.pool import ConnectionPool
from shopagent.domain.errors import Conflict, VersionConflict
from shopagent.domain.indexing import EventKind
from shopagent.domain.store_pages import StorePage, StorePageDraft

_COLUMNS = "id, slug, title, body, url, language, version, created_at, updated_at"


class PostgresStorePages:
    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool

    async def create(self, draft: StorePageDraft) -> StorePage:
        async with self._pool.acquire() as conn, conn.transaction():
            try:
                row = await conn.fetchrow(
                    f"""
                    INSERT INTO store_page (slug, title, body, url, language) VALUES ($1, $2, $3, $4, $5)
                    RETURNING {_COLUMNS}
                    """,
                    draft.slug,
                    draft.title,
                    draft.text,
                    draft.url,
                    draft.language,
                )
            except asyncpg.UniqueViolationError:
                raise Conflict(f"a store page with slug {draft.slug!r} already exists") from None
            assert row is not None  # an INSERT without ON CONFLICT returns its row or raises
            await record_event(conn, EventKind.PAGE_UPSERTED, row["id"])
        return _page(row)

    async def replace(self, page_id: int, draft: StorePageDraft, expected_version: int) -> StorePage:
        """Raises VersionConflict when the page changed (or went) since `expected_version` was read."""
        async with self._pool.acquire() as conn, conn.transaction():
            try:
                row = await conn.fetchrow(
                    f"""
                    UPDATE store_page SET slug = $1, title = $2, body = $3, url = $4, language = $5,
                        version = version + 1, updated_at = now()
                    WHERE id = $6 AND version = $7
                    RETURNING {_COLUMNS}
                    """,
                    draft.slug,
                    draft.title,
                    draft.text,
                    draft.url,
                    draft.language,
                    page_id,
                    expected_version,
                )
            except asyncpg.UniqueViolationError:
                raise Conflict(f"a store page with slug {draft.slug!r} already exists") from None
            if row is None:
                raise VersionConflict(f"store page {draft.slug!r} changed meanwhile")
            await record_event(conn, EventKind.PAGE_UPSERTED, page_id)
        return _page(row)

    async def delete(self, slug: str) -> bool:
        async with self._pool.acquire() as conn, conn.transaction():
            page_id = await conn.fetchval("DELETE FROM store_page WHERE slug = $1 RETURNING id", slug)
            if page_id is None:
                return False
            await record_event(conn, EventKind.PAGE_DELETED, page_id)
        return True

    async def get_by_slug(self, slug: str) -> StorePage | None:
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(f"SELECT {_COLUMNS} FROM store_page WHERE slug = $1", slug)
        return None if row is None else _page(row)

    async def get_many(self, page_ids: Sequence[int]) -> dict[int, StorePage]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(f"SELECT {_COLUMNS} FROM store_page WHERE id = ANY($1::bigint[])", page_ids)
        return {r["id"]: _page(r) for r in rows}

    async def list(self) -> list[StorePage]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(f"SELECT {_COLUMNS} FROM store_page ORDER BY slug")
        return [_page(r) for r in rows]

    async def count(self) -> int:
        async with self._pool.acquire() as conn:
            return await conn.fetchval("SELECT count(*) FROM store_page")


def _page(row: asyncpg.Record) -> StorePage:
    return StorePage(
        id=row["id"],
        slug=row["slug"],
        title=row["title"],
        text=row["body"],
        url=row["url"],
        language=row["language"],
        version=row["version"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )
