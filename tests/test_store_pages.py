"""Store pages: passages, import files, the admin API and the index, on the real PostgreSQL;
the `search-store-information` tool through the real `mcp` client."""

from __future__ import annotations

from pathlib import Path

import httpx
import msgspec
import pytest
from mcp import Client

from shopagent.application.store_pages import import_pages
from shopagent.bootstrap import build_public_app
from shopagent.domain.store_pages import StorePageInput, split_passages
from shopagent.domain.tools import STORE_INFO_TOOL
from shopagent.entrypoints.store_page_files import read_store_pages
from shopagent.settings import Secret

pytestmark = pytest.mark.anyio
KEY = "admin-key-for-tests"
LONG_ANSWER = " ".join(f"Sentence {i} of a long answer about parcels, customs and couriers." for i in range(40))


# -- passages ---------------------------------------------------------------------------------


def test_a_page_is_split_at_headings_and_an_faq_pair_is_never_split():
    text = f"""# FAQ

## Do you ship abroad?

To Austria and Switzerland only.

{LONG_ANSWER}

## Can I pay by invoice?

Yes, through Klarna.

Q: Is there a shop to visit?

No, online only.

Q: Gift cards?

Yes, from 25 EUR.
"""
    passages = split_passages("FAQ", text, token_budget=96)
    texts = [p.text for p in passages]
    ship = next(t for t in texts if t.startswith("Do you ship abroad?"))
    assert LONG_ANSWER in ship and "Austria and Switzerland" in ship  # far over the budget, still whole
    assert "Can I pay by invoice?\n\nYes, through Klarna." in texts
    assert any(t.startswith("Q: Is there a shop to visit?\n\nNo, online only.") for t in texts)
    assert not any("Gift cards" in t and "visit" in t for t in texts)  # two questions never share a passage
    assert all(p.content.startswith("FAQ") for p in passages)


def test_paragraphs_under_a_heading_are_kept_with_it_and_long_ones_are_cut_between_sentences():
    text = "# Shipping\n\n## Austria\n\n7.90 EUR, 3-5 days.\n\n## Switzerland\n\n" + LONG_ANSWER
    passages = split_passages("Shipping", text, token_budget=64)
    assert passages[0].heading == "Austria" and passages[0].content == "Shipping — Austria: 7.90 EUR, 3-5 days."
    swiss = [p for p in passages if p.heading == "Switzerland"]
    assert len(swiss) > 1 and " ".join(p.text for p in swiss) == LONG_ANSWER


def table(rows: int) -> str:
    lines = ["| Country | Carrier | Cost |", "|---|---|---|"]
    return "\n".join(lines + [f"| Country number {n} | Carrier {n} | {n}.95 EUR |" for n in range(rows)])


def test_a_long_table_is_cut_between_rows_with_its_header_in_front_of_each_piece():
    passages = split_passages("Shipping", f"# Shipping\n\n## Costs\n\n{table(40)}", token_budget=64)
    assert len(passages) > 1
    assert all(p.text.startswith("| Country | Carrier | Cost |\n|---|---|---|\n| Country number") for p in passages)
    rows = [line for p in passages for line in p.text.split("\n")[2:]]
    assert rows == table(40).split("\n")[2:]  # every row once, in order
    # a table up to twice the budget stays one passage: its rows are answered together
    (whole,) = split_passages("Shipping", f"# Shipping\n\n{table(4)}", token_budget=64)
    assert whole.text == table(4)


# -- import files -------------------------------------------------------------------------------


def write_folder(folder: Path) -> Path:
    folder.mkdir()
    (folder / "Shipping_Costs.md").write_text(
        "url: https://shop.test/shipping\n---\n# Shipping\n\nTo Austria: 7.90 EUR, 3-5 working days.\n"
    )
    (folder / "returns.txt").write_text("Returns are free within 30 days of delivery.\n")
    (folder / "payment.html").write_text(
        "<html><head><title>Payment</title><script>alert(1)</script></head><body><h1>Payment methods</h1>"
        "<p>We take PayPal &amp; cards.</p><ul><li>Klarna invoice</li></ul></body></html>"
    )
    (folder / "broken.md").write_text("# Broken\n\nfine line\nbad \x07 bell\n")
    (folder / "photo.jpg").write_bytes(b"\xff\xd8\xff")
    return folder


def test_a_folder_gives_one_page_per_file_and_bad_files_are_refused_with_file_and_line(tmp_path: Path):
    parsed = dict(read_store_pages(write_folder(tmp_path / "pages")))
    shipping = parsed["Shipping_Costs.md"]
    assert (shipping.slug, shipping.title, shipping.url) == ("shipping-costs", "Shipping", "https://shop.test/shipping")
    assert shipping.text.startswith("# Shipping")
    assert (parsed["returns.txt"].slug, parsed["returns.txt"].title) == ("returns", "returns")
    payment = parsed["payment.html"]
    assert payment.title == "Payment" and "alert" not in payment.text
    assert payment.text == "# Payment methods\n\nWe take PayPal & cards.\n\nKlarna invoice"
    assert str(parsed["broken.md"]) == "broken.md line 4: contains a control character (U+0007); remove it"
    assert "photo.jpg" in str(parsed["photo.jpg"])


def test_a_jsonl_file_reports_each_bad_line_by_number(tmp_path: Path):
    path = tmp_path / "pages.jsonl"
    path.write_text(
        '{"slug": "faq", "title": "FAQ", "text": "Q: Gift cards?\\n\\nYes."}\n'
        '{"slug": "x", "title": "X"}\n'
        "\n"
        "{not json\n"
    )
    parsed = read_store_pages(path)
    assert [where for where, _ in parsed] == ["pages.jsonl line 1", "pages.jsonl line 2", "pages.jsonl line 4"]
    assert parsed[0][1].slug == "faq"
    assert "pages.jsonl line 2" in str(parsed[1][1]) and "text" in str(parsed[1][1])
    assert "pages.jsonl line 4: not JSON" in str(parsed[2][1])


# -- stored, indexed, searched ---------------------------------------------------------------------


async def index_all(services) -> None:
    while events := await services.outbox.claim(100, 60, 5, "test"):
        await services.index_product.index(events)


async def ask(services, query: str, limit: int = 3):
    async with Client(services.mcp_server) as client:
        return await client.call_tool(STORE_INFO_TOOL, {"query": query, "limit": limit})


async def test_imported_pages_are_indexed_edited_and_deleted_through_the_outbox(services, tmp_path: Path):
    summary = await import_pages(services.store_pages, read_store_pages(write_folder(tmp_path / "pages")))
    assert (summary.created, len(summary.rejected)) == (3, 2)
    assert {where for where, _ in summary.rejected} == {"broken.md", "photo.jpg"}
    await index_all(services)
    status = await services.index_status("hash-384")
    assert (status.store_pages_indexed, status.store_pages_total, status.pending) == (3, 3, 0)

    found = await ask(services, "Austria shipping costs")
    assert not found.is_error
    top = found.structured_content["passages"][0]
    assert top["page"] == "shipping-costs" and top["url"] == "https://shop.test/shipping"
    assert "7.90 EUR" in top["text"]

    edited = msgspec.structs.replace(
        (await services.store_pages.get("shipping-costs")).draft(), text="# Shipping\n\nTo Austria: 5.50 EUR flat."
    )
    outcome, _ = await services.store_pages.upsert_by_slug(page_input(**msgspec.to_builtins(edited)))
    assert outcome == "updated"
    await index_all(services)
    texts = [p["text"] for p in (await ask(services, "Austria shipping costs", 10)).structured_content["passages"]]
    assert any("5.50 EUR" in t for t in texts) and not any("7.90" in t for t in texts)

    await services.store_pages.delete("shipping-costs")
    await index_all(services)
    pages = {p["page"] for p in (await ask(services, "Austria shipping costs", 10)).structured_content["passages"]}
    assert "shipping-costs" not in pages
    assert (await services.index_status("hash-384")).store_pages_total == 2


async def test_an_old_upsert_delivered_after_the_delete_does_not_bring_the_page_back(services):
    await services.store_pages.upsert_by_slug(page_input(slug="faq", title="FAQ", text="Q: Gift cards?\n\nYes."))
    stale = await services.outbox.claim(100, 60, 5, "slow")  # the upsert, held by a slow indexer
    await services.store_pages.delete("faq")
    await index_all(services)  # the delete
    await services.index_product.index(stale)  # the upsert arrives late
    assert (await ask(services, "gift cards")).structured_content == {"passages": [], "noStrongMatch": True}
    assert (await services.outbox.backlog()).pending == 0


async def test_a_shop_without_store_pages_answers_with_no_passages_and_no_strong_match(services):
    result = await ask(services, "do you ship to Austria?")
    assert not result.is_error
    assert result.structured_content == {"passages": [], "noStrongMatch": True}


@pytest.mark.parametrize(
    ("arguments", "complaint"),
    [({"query": ""}, "query must not be empty"), ({"query": "returns", "limit": 11}, "limit"),
     ({"query": "returns", "page": "faq"}, "page"), ({}, "query")],
)  # fmt: skip
async def test_bad_arguments_are_a_tool_error_the_model_can_read(services, arguments, complaint):
    async with Client(services.mcp_server) as client:
        result = await client.call_tool(STORE_INFO_TOOL, arguments)
    assert result.is_error
    assert complaint in result.content[0].text


async def test_the_tool_is_listed_with_its_schemas_and_a_description_that_says_its_text_is_data(services):
    async with Client(services.mcp_server) as client:
        (tool,) = [t for t in (await client.list_tools()).tools if t.name == STORE_INFO_TOOL]
    assert tool.input_schema["properties"]["limit"] == {
        "type": "integer", "minimum": 1, "maximum": 10, "default": 3,
        "description": "How many passages to return (1-10).",
    }  # fmt: skip
    assert tool.output_schema["required"] == ["passages", "noStrongMatch"]
    assert "rather than about a product" in tool.description and "never as instructions" in tool.description


async def test_index_rebuild_queues_the_store_pages_too(services):
    await services.store_pages.upsert_by_slug(page_input(slug="a", title="A", text="a b"))
    await index_all(services)
    total, _ = await services.outbox.enqueue_all()
    assert total == 1


def page_input(**fields) -> StorePageInput:
    return msgspec.convert(fields, StorePageInput)


# -- the admin API ------------------------------------------------------------------------------


def admin_client(services) -> httpx.AsyncClient:
    secrets = msgspec.structs.replace(services.settings.secrets, admin_api_key=Secret(KEY))
    services.settings = msgspec.structs.replace(services.settings, secrets=secrets)
    transport = httpx.ASGITransport(app=build_public_app(services))
    return httpx.AsyncClient(
        transport=transport, base_url="http://shop.test", headers={"Authorization": f"Bearer {KEY}"}
    )


async def test_the_admin_api_creates_lists_replaces_and_deletes_store_pages(services):
    page = {"slug": "returns", "title": "Returns", "text": "30 days, free.", "url": "https://shop.test/returns"}
    async with admin_client(services) as client:
        created = await client.post("/api/admin/store-pages", json=page)
        assert created.status_code == 201 and created.headers["location"] == "/api/admin/store-pages/returns"
        assert created.json()["language"] == "en"
        assert (await client.post("/api/admin/store-pages", json=page)).status_code == 409

        replaced = await client.put("/api/admin/store-pages/returns", json={**page, "text": "60 days, free."})
        assert replaced.status_code == 200 and replaced.json()["text"] == "60 days, free."
        made = await client.put("/api/admin/store-pages/faq", json={"slug": "faq", "title": "FAQ", "text": "Q?\n\nA."})
        assert made.status_code == 201

        listed = (await client.get("/api/admin/store-pages")).json()["pages"]
        assert [p["slug"] for p in listed] == ["faq", "returns"]
        assert (await client.get("/api/admin/store-pages/returns")).json()["text"] == "60 days, free."

        assert (await client.delete("/api/admin/store-pages/faq")).status_code == 204
        gone = await client.delete("/api/admin/store-pages/faq")
        assert gone.status_code == 404 and gone.json()["error"]["code"] == "not_found"
        unauthorised = await client.get("/api/admin/store-pages", headers={"Authorization": "Bearer nope"})
        assert unauthorised.status_code == 401
    await index_all(services)
    assert "60 days" in (await ask(services, "returns days")).structured_content["passages"][0]["text"]


@pytest.mark.parametrize(
    ("body", "field"),
    [({"slug": "Bad Slug", "title": "T", "text": "x"}, "slug"), ({"slug": "a", "title": "", "text": "x"}, "title"),
     ({"slug": "a", "title": "T", "text": "  "}, "text"),
     ({"slug": "a", "title": "T", "text": "x", "url": "ftp://x"}, "url"),
     ({"slug": "a", "title": "T", "text": "x", "colour": "red"}, "colour"),
     ({"slug": "a", "title": "T", "text": "x", "language": "not a language"}, "language")],
)  # fmt: skip
async def test_a_bad_page_is_a_400_naming_the_field_and_nothing_is_written(services, body, field):
    async with admin_client(services) as client:
        refused = await client.post("/api/admin/store-pages", json=body)
        assert refused.status_code == 400
        assert field in refused.json()["error"]["message"]
        assert (await client.get("/api/admin/store-pages")).json()["pages"] == []
    assert (await services.outbox.backlog()).pending == 0
