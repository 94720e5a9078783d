"""`shopagent catalog import` streams JSON and JSON Lines: memory does not grow with the file,
progress is shown, and an import cut short is finished by running it again."""

from __future__ import annotations

import io
import json
import re
import signal
import sys
from pathlib import Path

import asyncpg
import msgspec
import pytest

from shopagent.domain.errors import ValidationError
from shopagent.entrypoints.catalog_files import read_catalog_file
from shopagent.entrypoints.json_stream import array_elements
from tests.factories import product_input
from tests.helpers import eventually, shopagent

PEAK_MEMORY = [sys.executable, str(Path(__file__).parent / "peak_memory.py")]
TRICKY = [
    {"s": "a, b [c] {d}", "n": [1, [2, {"x": "]"}]]},
    'a quote " and a backslash \\ and \\" both',
    "",
    3.5,
    {"deep": {"er": [[], {}]}},
]


@pytest.mark.unit
@pytest.mark.parametrize("block_size", [1, 2, 3, 7, 64, 1 << 20])
def test_array_elements_are_cut_at_the_top_level_commas_whatever_the_blocks(block_size: int):
    text = b"\xef\xbb\xbf \n" + json.dumps(TRICKY, indent=1).encode() + b"\n\n"
    elements = list(array_elements(io.BytesIO(text), block_size))
    assert [json.loads(e) for e in elements] == TRICKY
    assert list(array_elements(io.BytesIO(b" [ ] "), block_size)) == []


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b'{"slug": "x"}', "must be an array"),
        (b"", "the file is empty"),
        (b'[{"slug": "a"}, {"slug": "b"', "the array is not closed"),
        (b'[{"slug": "a"}] [', "text after the end of the array"),
    ],
)
def test_a_file_that_is_not_one_array_is_refused_as_a_whole(text: bytes, message: str):
    with pytest.raises(ValidationError, match=message):
        list(array_elements(io.BytesIO(text), 4))


@pytest.mark.unit
def test_a_bad_item_anywhere_in_a_json_array_imports_nothing(tmp_path: Path):
    path = tmp_path / "catalog.json"
    path.write_bytes(b'[{"slug": "a"}, {"slug": "b",}]')
    with pytest.raises(ValidationError, match="not valid JSON: item 2"):
        read_catalog_file(path)
    path.write_bytes(b'[{"slug": "a"},]')
    with pytest.raises(ValidationError, match="not valid JSON: item 2"):
        read_catalog_file(path)


def _write_catalog(path: Path, products: int) -> None:
    """A .json array of `products` products, written a product at a time."""
    with path.open("wb") as out:
        out.write(b"[\n")
        for n in range(products):
            product = msgspec.to_builtins(
                product_input(f"streamed-{n}", name=f"Streamed Product {n}", description="Soft and warm. " * 20)
            )
            out.write((b",\n" if n else b"") + msgspec.json.encode(product))
        out.write(b"\n]\n")


async def _import(database: str, path: Path) -> tuple[int, str]:
    """Import `path` with the real command: (peak resident memory in KiB, its standard output)."""
    env = {"SHOPAGENT_DATABASE_URL": database, "SHOPAGENT_EMBEDDING__MODEL": "hash"}
    async with shopagent("catalog", "import", str(path), env=env, launcher=PEAK_MEMORY) as proc:
        assert await proc.wait_exit(timeout=600) == 0, proc.logs[-5:]
        entry = await proc.wait_for_log("peak-rss-kib")
    return int(entry["message"].split()[1]), proc.stdout


@pytest.mark.process
@pytest.mark.anyio
async def test_importing_ten_times_the_products_takes_no_more_memory(database, tmp_path: Path):
    small, large = tmp_path / "small.json", tmp_path / "large.json"
    _write_catalog(small, 1_500)
    _write_catalog(large, 15_000)  # ~13 MB: decoded whole it added ~60 MiB
    small_peak, out = await _import(database, small)
    assert "small.json: 1500 created" in out
    large_peak, out = await _import(database, large)
    assert "large.json: 13500 created, 0 updated, 1500 unchanged, 0 rejected" in out
    assert large_peak <= small_peak * 1.1, (small_peak, large_peak)
    assert large_peak < 200 * 1024, large_peak  # KiB: the process with its libraries and pool, no catalog


@pytest.mark.process
@pytest.mark.anyio
async def test_an_import_killed_half_way_is_finished_by_running_it_again(database, tmp_path: Path):
    path = tmp_path / "catalog.json"
    _write_catalog(path, PRODUCTS := 20_000)  # written in batches, thousands a second: time to stop it
    env = {"SHOPAGENT_DATABASE_URL": database, "SHOPAGENT_EMBEDDING__MODEL": "hash"}
    async with shopagent("catalog", "import", str(path), env=env) as proc:

        async def written_a_third() -> bool:  # the progress lines say how many are done
            done = [re.search(r"catalog.json: (\d+) products, \d+% of the file", e["message"]) for e in proc.logs]
            return any(int(m[1]) >= 1_000 for m in done if m)

        await eventually(written_a_third, timeout=300)
        proc.signal(signal.SIGKILL)
        assert await proc.wait_exit() == -signal.SIGKILL
    conn = await asyncpg.connect(database)
    try:
        before = await conn.fetchval("SELECT count(*) FROM product")
        assert 0 < before < PRODUCTS
        async with shopagent("catalog", "import", str(path), env=env) as proc:
            assert await proc.wait_exit(timeout=300) == 0
        # What the first run wrote is whole (found unchanged); the rest is written once.
        assert f"catalog.json: {PRODUCTS - before} created, 0 updated, {before} unchanged, 0 rejected" in proc.stdout
        counts = await conn.fetchrow(
            "SELECT count(*) AS products, count(DISTINCT slug) AS slugs,"
            " (SELECT count(DISTINCT product_id) FROM outbox_event) AS events FROM product"
        )
        assert tuple(counts) == (PRODUCTS, PRODUCTS, PRODUCTS)
    finally:
        await conn.close()
