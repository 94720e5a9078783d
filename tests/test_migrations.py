from __future__ import annotations

import json
import logging
from pathlib import Path

import anyio
import asyncpg
import pytest

from shopagent.adapters.postgres.database import check_pgvector
from shopagent.adapters.postgres.migrations import EQUIVALENT_CHECKSUMS, Migration, load_migrations, migrate
from shopagent.domain.errors import DatabaseError, MigrationError
from shopagent.settings import Settings
from shopagent.wiring.database import prepare_schema

pytestmark = pytest.mark.anyio

FIRST = Migration(1, "colours", "CREATE TABLE colour (name text PRIMARY KEY);")
# pg_sleep makes concurrent runners overlap for real.
SLOW = Migration(2, "sizes", "SELECT pg_sleep(0.2); CREATE TABLE size (name text PRIMARY KEY);")
THIRD = Migration(3, "seed", "INSERT INTO colour VALUES ('red'), ('blue');")


async def recorded(dsn: str) -> list[int]:
    conn = await asyncpg.connect(dsn)
    try:
        return [r["version"] for r in await conn.fetch("SELECT version FROM schema_migration ORDER BY version")]
    finally:
        await conn.close()


async def run_migrations(dsn: str, migrations: list[Migration]) -> list[Migration]:
    conn = await asyncpg.connect(dsn)
    try:
        return await migrate(conn, migrations)
    finally:
        await conn.close()


async def test_the_shipped_migrations_apply_to_an_empty_database_and_install_pgvector(empty_database):
    applied = await prepare_schema(empty_database, Settings())
    assert [m.version for m in applied] == [m.version for m in load_migrations()]
    assert await recorded(empty_database) == [m.version for m in load_migrations()]
    conn = await asyncpg.connect(empty_database)
    try:
        assert await conn.fetchval("SELECT extversion FROM pg_extension WHERE extname = 'vector'") >= "0.8"
    finally:
        await conn.close()


async def test_migrating_twice_applies_nothing_the_second_time(empty_database):
    assert len(await run_migrations(empty_database, [FIRST, SLOW])) == 2
    assert await run_migrations(empty_database, [FIRST, SLOW]) == []
    assert await run_migrations(empty_database, [FIRST, SLOW, THIRD]) == [THIRD]
    assert await recorded(empty_database) == [1, 2, 3]


async def test_concurrent_runners_apply_each_migration_exactly_once(empty_database):
    results: list[list[Migration]] = []

    async def runner() -> None:
        results.append(await run_migrations(empty_database, [FIRST, SLOW, THIRD]))

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            for _ in range(6):
                tg.start_soon(runner)
    applied = [m.version for result in results for m in result]
    assert sorted(applied) == [1, 2, 3]
    assert await recorded(empty_database) == [1, 2, 3]
    conn = await asyncpg.connect(empty_database)
    try:
        assert await conn.fetchval("SELECT count(*) FROM colour") == 2  # the seed ran once
    finally:
        await conn.close()


async def test_a_failing_migration_leaves_the_schema_as_it_was(empty_database):
    broken = Migration(2, "half_done", "CREATE TABLE size (name text); SELECT 1 / 0;")
    with pytest.raises(MigrationError, match="migration 0002_half_done failed and was rolled back: division by zero"):
        await run_migrations(empty_database, [FIRST, broken])
    conn = await asyncpg.connect(empty_database)
    try:
        assert await conn.fetchval("SELECT to_regclass('size')") is None  # nothing of it remains
        assert await conn.fetchval("SELECT to_regclass('colour')") == "colour"  # the good one stays
    finally:
        await conn.close()
    assert await recorded(empty_database) == [1]
    # Once fixed, the migration applies.
    assert await run_migrations(empty_database, [FIRST, SLOW]) == [SLOW]


async def test_a_migration_changed_after_it_was_applied_is_refused(empty_database):
    await run_migrations(empty_database, [FIRST])
    edited = Migration(1, "colours", "CREATE TABLE colour (name text PRIMARY KEY, hex text);")
    with pytest.raises(MigrationError, match="0001_colours was changed after it was applied"):
        await run_migrations(empty_database, [edited, SLOW])
    assert await recorded(empty_database) == [1]


# What each shipped migration file hashes to. A database records it when it applies the file
# and refuses to start if the file changes afterwards, so a released file must never change:
# put a schema change in a new migration. If only comments changed, add the old checksum to
# EQUIVALENT_CHECKSUMS in shopagent/adapters/postgres/migrations.py, then update it here.
SHIPPED = {
    "0001_pgvector": "a705d2055fb652ccd83c935273ab62cd7d32ba6bedf3c6a52dfbb2adf271536f",
    "0002_catalog": "75639bf69c1970252f052e657d4a52a864ac2635f92d1fde79de66f88478c974",
    "0003_conversations": "cbd7830f7f31f2a9f8301a51deac341a8bed8972411fe8d4463b5b28c2741802",
    "0004_lexical_search": "7168938140614162b5a39b3ff46d8fd4e30321935fdc02103d7f23b209de1506",
    "0005_rate_limits": "afad0ed7047f45ae72d51ea573f2fbf9a9b6726a4222c617750b3c31aac1b018",
    "0006_lost_leases": "30dea7116e18fddb3474f18a43392e5085c7a165961dc39654cc8c302d65a7ad",
    "0007_halfvec_vector_index": "d36fbfc2369b676786adb1c510b07d4d4dde499d7b17bd474da63d787049fdac",
}


def test_a_shipped_migration_file_never_changes():
    shipped = {str(m): m.checksum for m in load_migrations()}
    changed = {name for name, checksum in SHIPPED.items() if shipped.get(name) != checksum}
    assert not changed, f"released migrations were edited: {sorted(changed)} (see the comment above SHIPPED)"


async def test_a_database_migrated_before_a_comment_was_edited_still_starts(empty_database):
    """0004's comments were re-wrapped after release: databases that recorded the earlier
    file's checksum are up to date, and start; any other checksum is still refused."""
    shipped = load_migrations()
    await run_migrations(empty_database, shipped)
    conn = await asyncpg.connect(empty_database)
    try:
        for checksum in EQUIVALENT_CHECKSUMS[4]:
            await conn.execute("UPDATE schema_migration SET checksum = $1 WHERE version = 4", checksum)
            assert await run_migrations(empty_database, shipped) == []
        await conn.execute("UPDATE schema_migration SET checksum = $1 WHERE version = 4", "0" * 64)
        with pytest.raises(MigrationError, match="0004_lexical_search was changed after it was applied"):
            await run_migrations(empty_database, shipped)
    finally:
        await conn.close()


async def test_a_database_migrated_by_a_newer_version_is_accepted_with_a_warning(empty_database, caplog):
    await run_migrations(empty_database, [FIRST, SLOW])
    with caplog.at_level(logging.WARNING, logger="shopagent.migrations"):
        assert await run_migrations(empty_database, [FIRST]) == []
    assert "0002_sizes that this version does not know" in caplog.text


def test_migration_files_must_follow_the_naming_scheme(tmp_path):
    (tmp_path / "0001_first.sql").write_text("SELECT 1;")
    (tmp_path / "notes.txt").write_text("not a migration")
    assert [str(m) for m in load_migrations(tmp_path)] == ["0001_first"]
    (tmp_path / "2_second.sql").write_text("SELECT 2;")
    with pytest.raises(MigrationError, match=r"'2_second\.sql' is not named NNNN_description\.sql"):
        load_migrations(tmp_path)


def test_two_migrations_may_not_share_a_version(tmp_path):
    (tmp_path / "0001_first.sql").write_text("SELECT 1;")
    (tmp_path / "0001_other.sql").write_text("SELECT 2;")
    with pytest.raises(MigrationError, match="share a version"):
        load_migrations(tmp_path)


async def test_the_pgvector_check_accepts_the_embedded_servers_version(empty_database):
    conn = await asyncpg.connect(empty_database)
    try:
        version = await check_pgvector(conn)  # offered, not yet installed
        assert tuple(int(p) for p in version.split(".")) >= (0, 8)
    finally:
        await conn.close()


async def test_a_server_without_pgvector_is_reported_with_what_to_do(empty_database):
    conn = await asyncpg.connect(empty_database)
    try:
        # PostgreSQL 18 looks for extensions along this path; pointing it nowhere hides pgvector.
        await conn.execute("SET extension_control_path = '/nonexistent'")
        with pytest.raises(DatabaseError, match=r"pgvector extension .* is not available .* SHOPAGENT_DATABASE_URL"):
            await check_pgvector(conn)
    finally:
        await conn.close()


async def test_a_vector_index_built_before_halfvec_is_replaced_by_a_halfvec_one(empty_database):
    from shopagent.adapters.postgres.database import open_pool
    from shopagent.adapters.postgres.vector_index import ensure_vector_index, vector_index_name

    before = [m for m in load_migrations() if m.version <= 6]
    name = vector_index_name("hash-384")
    conn = await asyncpg.connect(empty_database)
    try:
        await migrate(conn, before)
        # The index as versions before migration 0007 built it, over a product's chunk.
        product = await conn.fetchval(
            "INSERT INTO product (slug, name, category, price, currency) VALUES ('p', 'P', 'C', 1, 'EUR') RETURNING id"
        )
        await conn.execute(
            "INSERT INTO product_chunk (product_id, model, ordinal, kind, content, content_hash, embedding) "
            "VALUES ($1, 'hash-384', 0, 'title', 'P', '\\x00', array_fill(0.5, ARRAY[384])::vector)",
            product,
        )
        await conn.execute(
            f'CREATE INDEX "{name}" ON product_chunk USING hnsw ((embedding::vector(384)) vector_cosine_ops) '
            "WHERE model = 'hash-384'"
        )
        await prepare_schema(empty_database, Settings())
        assert await conn.fetchval("SELECT to_regclass($1)", name) is None  # dropped by the migration
        async with open_pool(empty_database, min_size=1, max_size=2, connect_timeout=10, command_timeout=60) as pool:
            await ensure_vector_index(pool, "hash-384", 384)
        definition = await conn.fetchval("SELECT pg_get_indexdef(to_regclass($1))", name)
        assert "halfvec(384)" in definition and "halfvec_cosine_ops" in definition
        assert await conn.fetchval("SELECT count(*) FROM product_chunk") == 1  # the vectors stay
    finally:
        await conn.close()


async def test_products_indexed_before_their_kind_was_kept_are_queued_for_the_indexer(empty_database):
    """0011 adds the kind word the indexer writes, and queues every indexed product for it (its
    chunk set is unchanged, so nothing is embedded again); the kind is left to the indexer's rule."""
    shipped = load_migrations()
    await run_migrations(empty_database, [m for m in shipped if m.version < 11])
    names = sorted({p["name"] for p in _sample_products()})[:20]
    conn = await asyncpg.connect(empty_database)
    try:
        await conn.execute(
            "INSERT INTO product (slug, name, category, price, price_low, price_high, currency) "
            "SELECT 'p' || n, name, 'Things', 9.90, 9.90, 9.90, 'EUR' "
            "FROM unnest($1::text[]) WITH ORDINALITY AS u(name, n)",
            names,
        )
        await conn.execute(
            "INSERT INTO product_index (product_id, model, product_version, chunk_set_hash) "
            "SELECT id, 'local', 1, '\\x00' FROM product"
        )
        await run_migrations(empty_database, shipped)
        queued = await conn.fetch(
            "SELECT product_id FROM outbox_event WHERE kind = 'product.upserted' AND status = 'pending'"
        )
        kinds = await conn.fetch("SELECT kind FROM product_index")
    finally:
        await conn.close()
    assert len({r["product_id"] for r in queued}) == len(names) == 20
    assert {r["kind"] for r in kinds} == {None}


def _sample_products() -> list[dict]:
    root = Path(__file__).parent
    files = [root.parent / "shopagent" / "sample_data" / "catalog.json"]
    trades = ("kitchen", "electronics", "pets", "garden", "toys", "bikes")
    files += [root / "data" / trade / "catalog.json" for trade in trades]
    found = []
    for path in files:
        data = json.loads(path.read_text())
        found += data if isinstance(data, list) else data["products"]
    return found


async def test_the_colour_and_size_filter_is_answered_from_its_index(empty_database):
    """0012: the colour and size index holds each variation's product and stock, so the filter
    "red, M, in stock" reads no variation row (an index-only scan once the table is vacuumed)."""
    await prepare_schema(empty_database, Settings())
    conn = await asyncpg.connect(empty_database)
    try:
        definition = await conn.fetchval("SELECT pg_get_indexdef(to_regclass('product_variation_color_size_cover'))")
        assert definition is not None and "INCLUDE (product_id, quantity, reserved)" in definition
        assert await conn.fetchval("SELECT to_regclass('product_variation_color_size')") is None
        await conn.execute(
            "INSERT INTO product (slug, name, category, price, price_low, price_high, currency) "
            "SELECT 'p' || n, 'Thing ' || n, 'Things', 9.90, 9.90, 9.90, 'EUR' FROM generate_series(1, 2000) n"
        )
        await conn.execute(
            "INSERT INTO product_variation (product_id, color, size, quantity, reserved, variant_key, paid_price) "
            "SELECT id, (ARRAY['red', 'blue', 'grey'])[id % 3 + 1], (ARRAY['S', 'M', 'L', 'XL'])[id % 4 + 1], "
            "id % 5, 0, 'k', 9.90 FROM product"
        )
        await conn.execute("VACUUM ANALYZE product_variation")
        await conn.execute("SET enable_seqscan = off; SET enable_bitmapscan = off")
        plan = "\n".join(
            r[0]
            for r in await conn.fetch(
                "EXPLAIN SELECT product_id FROM product_variation "
                "WHERE color = ANY('{red}') AND size = ANY('{M}') AND quantity > reserved"
            )
        )
        assert "Index Only Scan using product_variation_color_size_cover" in plan, plan
    finally:
        await conn.close()
