"""`shopagent eval FILE`, the real command against the indexed sample shop."""

from __future__ import annotations

import json

import pytest

from tests.helpers import shopagent

pytestmark = pytest.mark.anyio

QUERIES = "shopagent/sample_data/eval_queries.jsonl"


async def run_eval(sample_shop, *args: str) -> tuple[int, str, list[str]]:
    async with shopagent("eval", *args, env={"SHOPAGENT_DATABASE_URL": sample_shop.dsn}) as process:
        code = await process.wait_exit(timeout=180)
    return code, process.stdout, [e.get("message", "") for e in process.logs]


async def test_eval_scores_the_bundled_queries_and_the_assistant(sample_shop, tmp_path):
    report_file = tmp_path / "report.json"
    code, out, logs = await run_eval(
        sample_shop, QUERIES, "--assistant", "--json", str(report_file), "--min-hit5", "0.6"
    )
    assert code == 0, (out, logs)
    assert "136 queries: 111 with a right product, 25 without" in out
    assert "typo corrections:" in out and "corrected (typo)" in out
    for mode in ("vector", "lexical", "fused"):
        assert any(line.startswith(mode) for line in out.splitlines()), out
    report = json.loads(report_file.read_text())
    fused = report["search"]["fused"]
    assert fused["answerable"] == 111 and 0.6 <= fused["hit5"] <= 1
    assert fused["suspect_corrections"] is not None and fused["corrections"]
    assert report["assistant"]["cases"] == 136
    # The offline concierge only ever quotes its tool results.
    assert report["assistant"]["grounding"] == 1.0, report["assistant"]["ungrounded"]


async def test_a_bad_line_is_named_and_nothing_runs(sample_shop, tmp_path):
    path = tmp_path / "queries.jsonl"
    path.write_text(
        '{"query": "winter boots", "acceptable": ["nordkap-lined-leather-winter-boot"]}\n'
        '{"query": "broken", "acceptable": [}\n'
        "\n"
        '{"query": "boots", "acceptable": [], "filters": {"colors": ["chartreuse"]}}\n'
        '{"query": "boots", "acceptable": ["no-such-product"]}\n'
        '{"query": "boots", "acceptable": [], "colour": "red"}\n'
    )
    code, out, logs = await run_eval(sample_shop, str(path))
    assert code == 2
    assert out == ""  # nothing was scored
    message = next(m for m in logs if "queries.jsonl" in m)
    assert f"{path}:2: JSON is malformed" in message
    assert f"{path}:4: unknown colour 'chartreuse'" in message
    assert f"{path}:5: acceptable slug(s) not in the catalog: no-such-product" in message
    assert f"{path}:6: Object contains unknown field `colour`" in message
    assert f"{path}:1:" not in message


async def test_eval_fails_below_the_minimum_hit_rate(sample_shop, tmp_path):
    path = tmp_path / "queries.jsonl"
    path.write_text('{"query": "swimming goggles", "acceptable": ["nordkap-lined-leather-winter-boot"]}\n')
    code, out, logs = await run_eval(sample_shop, str(path), "--min-hit5", "0.5")
    assert code == 1
    assert "1 queries: 1 with a right product, 0 without" in out
    assert any("below --min-hit5 0.5" in m for m in logs), logs


@pytest.mark.process
async def test_eval_runs_the_kitchen_shops_queries_with_its_config(kitchen_shop):
    args = ("--config", "tests/data/kitchen/config.toml", "tests/data/kitchen/queries.jsonl", "--json", "-")
    async with shopagent("eval", *args, env={"SHOPAGENT_DATABASE_URL": kitchen_shop.dsn}) as process:
        assert await process.wait_exit(timeout=180) == 0, process.logs
    table, _, report = process.stdout.partition("\n{\n")
    assert "78 queries: 56 with a right product, 22 without" in table
    assert json.loads("{" + report)["search"]["fused"]["answerable"] == 56


@pytest.mark.process
async def test_eval_reports_one_split_when_asked(kitchen_shop):
    args = ("--config", "tests/data/kitchen/config.toml", "tests/data/kitchen/queries.jsonl", "--split", "heldout")
    async with shopagent("eval", *args, env={"SHOPAGENT_DATABASE_URL": kitchen_shop.dsn}) as process:
        assert await process.wait_exit(timeout=180) == 0, process.logs
    assert "36 queries: 25 with a right product, 11 without" in process.stdout


async def test_a_correction_in_a_query_marked_misspelt_is_not_suspect(sample_shop, tmp_path):
    path = tmp_path / "queries.jsonl"
    path.write_text(
        '{"query": "snekers", "acceptable": [], "kind": "german", "misspelt": true}\n'
        '{"query": "snekers", "acceptable": [], "kind": "german"}\n'
    )
    report_file = tmp_path / "report.json"
    code, out, logs = await run_eval(sample_shop, str(path), "--json", str(report_file))
    assert code == 0, (out, logs)
    fused = json.loads(report_file.read_text())["search"]["fused"]
    assert fused["suspect_corrections"] == 1.0  # the unmarked one of one unmarked query
    assert len(fused["corrections"]) == 2
