#!/usr/bin/env python3
"""What a shopper meets from the offline assistant, per trade and split, for this tree and
(optionally) another.

    python bench/assistant_quality.py [--split heldout] [--before DIR] [--quick]

Each trade's catalog (the clothing sample, tests/data/kitchen, electronics, pets, garden, toys and bikes) is
imported into an embedded PostgreSQL in a scratch folder and indexed with the local model.
Then the offline assistant answers, through the agent loop and the in-process MCP tools:

- every judged query of the split, each as the first message of a new conversation:
  "first fits" is the share of answerable queries whose first named product is acceptable,
  "wrong 'not carried'" the share of answerable ones told the shop does not carry it, and
  "honest" the share of unanswerable ones where no product was presented as a strong match;
- every judged conversation of the split (tests/data/conversations.jsonl counts as `tune`: it
  was written for, and tuned on, the first two trades), checked turn by turn as in
  tests/conversation_set.py: turns that pass, info turns whose asked facts were stated,
  turns about a shown product that looked up the right one, and answers with a product name
  or price that no tool result of the turn gave (must be 0).

A second batch of messages and conversations, written blind later (tests/data/<trade>/queries_2.jsonl and
conversations_2.jsonl), is measured the same way and reported in tables of its own, so that the first batch's
figures stay comparable with earlier runs; so are a third and a fourth batch of conversations
(conversations_3.jsonl, conversations_4.jsonl).

Turn times are wall-clock per message (search or details lookups included), one at a time.
`--before DIR` measures another source tree first (e.g. a `git worktree` of an older commit),
so before and after come from one run on one machine; the judged data always come from this
checkout.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import os
import re
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

TREE = Path(os.environ.get("SHOPAGENT_TREE", Path(__file__).resolve().parent.parent))
# Not this folder: bench/mcp.py would stand in for the `mcp` package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(TREE))
HERE = Path(__file__).resolve().parent.parent  # the judged sets always come from this checkout
sys.path.insert(1, str(HERE))

import msgspec

from bench.common import Provenance, grid, scratch

DATA = HERE / "tests" / "data"
SAMPLE = HERE / "shopagent" / "sample_data"
TRADES = {
    "clothing": (SAMPLE / "catalog.json", None, SAMPLE / "eval_queries.jsonl"),
    **{
        trade: (DATA / trade / "catalog.json", DATA / trade / "config.toml", DATA / trade / "queries.jsonl")
        for trade in ("kitchen", "electronics", "pets", "garden", "toys", "bikes")
        if (DATA / trade / "queries.jsonl").is_file()
    },
}


# The assistant saying a product's data does not tell (its words in English, German and French)
_NOT_TOLD = re.compile(r"doesn't say|nicht (?:genau )?angegeben|ne le pr[ée]cisent pas")


def chosen_trades(quick: bool = False) -> list[str]:
    """The trades to measure: all, or those of --trades (kept in the environment, so that the
    --before subprocess measures the same ones); with --quick and none chosen, the smallest
    catalog only (a check that the script runs)."""
    wanted = [t for t in os.environ.get("SHOPAGENT_BENCH_TRADES", "").split(",") if t]
    unknown = set(wanted) - set(TRADES)
    if unknown:
        raise SystemExit(f"unknown trade(s) {sorted(unknown)}; choose from {sorted(TRADES)}")
    return wanted or (["kitchen"] if quick else list(TRADES))


def judge():
    """tests/conversation_set.py of this checkout (also when another tree's package is measured)."""
    import importlib.util

    if "conversation_set" in sys.modules:
        return sys.modules["conversation_set"]
    spec = importlib.util.spec_from_file_location("conversation_set", HERE / "tests" / "conversation_set.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["conversation_set"] = module
    spec.loader.exec_module(module)
    return module


def conversations_of(trade: str, split: str) -> list[dict]:
    j = judge()
    CONVERSATIONS, ELECTRONICS_CONVERSATIONS, load_conversations = (
        j.CONVERSATIONS,
        j.ELECTRONICS_CONVERSATIONS,
        j.load_conversations,
    )

    found = [c for c in load_conversations(CONVERSATIONS) if c["shop"] == trade]
    found = [{**c, "split": c.get("split", "tune")} for c in found]
    if trade == "electronics":
        found += load_conversations(ELECTRONICS_CONVERSATIONS)
    if trade in ("pets", "garden", "toys", "bikes") and (own := DATA / trade / "conversations.jsonl").is_file():
        found += load_conversations(own)
    if (second := DATA / trade / "conversations_2.jsonl").is_file():  # the second batch, reported on its own
        found += [{**c, "batch": 2} for c in load_conversations(second)]
    for batch in (3, 4):  # the third and fourth, the same
        if (later := DATA / trade / f"conversations_{batch}.jsonl").is_file():
            found += [{**c, "batch": batch} for c in load_conversations(later)]
    # Questions about the products shown, for every trade (tests/data/questions, questions_2 and _3,
    # each written blind from the shop's menu and judged from the catalog).
    for batch in ("questions", "questions_2", "questions_3", "questions_4"):
        if (questions := DATA / batch / "conversations.jsonl").is_file():
            found += [c for c in load_conversations(questions) if c["shop"] == trade]
    return [c for c in found if split == "all" or c["split"] == split]


# tests/data/shown_questions, _2 and _3: one question each, asked right after a given list was shown;
# three batches, each written blind and judged from the catalogs, each split half and half.
SHOWN_BATCHES = ("shown_questions", "shown_questions_2", "shown_questions_3")


def shown_questions_of(trade: str, split: str) -> list[dict]:
    items = []
    for batch in SHOWN_BATCHES:
        if (path := DATA / batch / "questions.jsonl").is_file():
            items += [{**json.loads(line), "batch": batch} for line in path.read_text().splitlines() if line.strip()]
    return [q for q in items if q["shop"] == trade and (split == "all" or q["split"] == split)]


async def measure_trade(server, trade: str, split: str, quick: bool) -> dict:
    import asyncpg

    from shopagent.adapters.local.minilm import MiniLMEmbedder
    from shopagent.adapters.mcp.gateway import open_in_process
    from shopagent.application.agent import AssistantAgent
    from shopagent.application.catalog import import_products
    from shopagent.domain.chat import ChatMessage
    from shopagent.entrypoints.catalog_files import read_catalog_file
    from shopagent.settings import EmbeddingSettings, Secret, Secrets, Settings, load_settings
    from shopagent.wiring.assistant import vocabulary_source
    from shopagent.wiring.database import prepare_schema
    from shopagent.wiring.providers import build_concierge
    from shopagent.wiring.services import open_services
    from shopagent.wiring.startup import INDEXER_ACTORS

    j = judge()
    NOT_CARRIED, Catalog, listed_names, run_conversation, tool_parts = (
        j.NOT_CARRIED,
        j.Catalog,
        j.listed_names,
        j.run_conversation,
        j.tool_parts,
    )

    catalog_file, config, queries = TRADES[trade]
    admin = await asyncpg.connect(server.dsn("postgres"))
    await admin.execute(f'CREATE DATABASE "a_{trade}"')
    await admin.close()
    dsn = server.dsn(f"a_{trade}")
    settings = Settings(secrets=Secrets(database_url=Secret(dsn)), embedding=EmbeddingSettings(model="local"))
    if config is not None:
        shop = load_settings(config, environ={})
        settings = msgspec.structs.replace(settings, catalog=shop.catalog, store=shop.store)
    await prepare_schema(dsn, settings)
    lines = [json.loads(t) for t in queries.read_text().splitlines() if t.strip()]
    if (second := DATA / trade / "queries_2.jsonl").is_file():  # the second batch, reported on its own
        lines += [{**json.loads(t), "batch": 2} for t in second.read_text().splitlines() if t.strip()]
    lines = [line for line in lines if split == "all" or line.get("split") == split][: 6 if quick else None]
    conversations = conversations_of(trade, split)[: 2 if quick else None]
    rows: list[dict] = []
    times: list[float] = []
    outcomes = []
    async with open_services(settings, INDEXER_ACTORS | {"mcp"}, embedder=MiniLMEmbedder()) as s:
        await import_products(s.catalog, read_catalog_file(catalog_file))
        titles: dict[str, str] = {}
        if (pages := DATA / trade / "store_pages").is_dir():  # the shop's own pages, where it has them
            from shopagent.application.store_pages import import_pages
            from shopagent.entrypoints.store_page_files import read_store_pages

            await import_pages(s.store_pages, read_store_pages(pages))
            titles = {p.title: p.slug for p in await s.store_pages.list()}
        while events := await s.outbox.claim(64, 60, 5, "bench"):
            await s.index_product.index(events)
        await s.search.refresh()  # its words read from the finished index, whatever the load
        catalog = Catalog(await s.catalog.list_products(limit=1000, after_id=0))
        # Older trees' concierge takes no embedding model.
        takes_model = "embedder" in inspect.signature(build_concierge).parameters
        model = {"embedder": s.embedder} if takes_model else {}
        concierge = build_concierge(s.settings, vocabulary_source(s), **model)
        async with open_in_process(s.mcp_server) as tools:
            agent = AssistantAgent(concierge, tools, "system")
            histories: dict[str, list[ChatMessage]] = {}

            async def say(conversation_id, text):
                key = conversation_id or f"c{len(histories)}"
                history = histories.setdefault(key, [])
                began = time.perf_counter()
                answer, new = await agent.run(history, text)
                times.append((time.perf_counter() - began) * 1000)
                history += [ChatMessage.user(text), *new]
                return key, answer, new

            for line in lines:
                _, answer, new = await say(None, line["query"])
                listed = listed_names(answer, new, catalog)
                acceptable = {catalog.by_slug[x].name for x in line["acceptable"] if x in catalog.by_slug}
                _, responses = tool_parts(new)
                strong = {
                    p.get("name")
                    for r in responses
                    for p in (r.result.get("structuredContent") or {}).get("products", [])
                    if p.get("match") == "strong"
                }
                rows.append({
                    "answerable": bool(acceptable), "first_fits": bool(listed) and listed[0] in acceptable,
                    "not_carried": bool(NOT_CARRIED.search(answer)),
                    "residue": j.residue(answer, line["query"]) if hasattr(j, "residue") else [],
                    "honest": not any(n in strong for n in listed), "query": line["query"], "answer": answer,
                    "batch": line.get("batch", 1),
                })  # fmt: skip
            batches: list[int] = []
            for conversation in conversations:
                got = await run_conversation(conversation, say, catalog)
                outcomes += got
                batches += [conversation.get("batch", 1)] * len(got)
            store_turns = [
                store_turn(o.say, o.answer, f"{t['expect'].get('answer', '')} {t['expect'].get('why', '')}", titles)
                for c in conversations
                for t in c["turns"]
                for o in outcomes
                if t["expect"]["reply"] == "store" and o.say == t["say"] and titles
            ]
            asked = [await j.ask_about_shown(q, agent, tools, catalog, times) for q in shown_questions_of(trade, split)]
            store = [await ask_store(say, q, tool_parts) for q in store_questions_of(trade, split, quick)]
    turns = [
        {"passed": o.passed, "facts_ok": o.facts_ok, "earlier_ok": o.earlier_ok, "grounded": o.grounded,
         "wrong_not_carried": o.wrong_not_carried, "residue": getattr(o, "residue", []), "say": o.say,
         "judged_looked_up": getattr(o, "judged_looked_up", None),
         "reply": o.reply, "problems": o.problems,
         "answer": o.answer, "batch": batch}
        for o, batch in zip(outcomes, batches, strict=True)
    ]  # fmt: skip
    return {
        "trade": trade,
        "queries": rows,
        "turns": turns,
        "times": times,
        "asked": asked,
        "store": store,
        "store_turns": store_turns,
    }


def store_questions_of(trade: str, split: str, quick: bool) -> list[dict]:
    """The shop's judged store questions (tests/data/<trade>/store_questions.jsonl: the page that
    answers each, judged from the shop's pages), of the split."""
    path = DATA / trade / "store_questions.jsonl"
    if not path.is_file():
        return []
    items = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [q for q in items if split == "all" or q["split"] == split][: 2 if quick else None]


# Where the judge's answer to a store turn of a conversation names the page it comes from:
# "(shipping page)", "(FAQ, shipping page)", "(returns page)"; "say nothing" / "do not mention"
# where no page answers.
_JUDGED_PAGE = re.compile(r"\b(shipping|returns|payment|size[- ]guide|plant[- ]delivery) page\b|\b(faq)\b", re.I)
_NO_PAGE = re.compile(r"no store page covers|pages say nothing|pages do not mention", re.I)
# "our page “Returns”", "unserer Seite „Versand“", "notre page « Retours »": the page an answer quotes
_QUOTED_PAGE = re.compile(r"(?:page|Seite) [\u201c\u201e\"\u00ab]\s?(.+?)\s?[\u201d\u201c\"\u00bb]")


def store_turn(said: str, answer: str, judged: str, titles: dict[str, str]) -> dict:
    """A store question asked inside a conversation: the page its answer quoted, and the pages
    the judge's answer names (none: no page answers it)."""
    found = [(m.group(1) or m.group(2)).casefold().replace(" ", "-") for m in _JUDGED_PAGE.finditer(judged)]
    wanted = set() if _NO_PAGE.search(judged) else set(found)
    quoted = titles.get(m.group(1)) if (m := _QUOTED_PAGE.search(answer)) else None
    return {"query": said, "pages": sorted(wanted), "quoted": quoted, "answer": answer,
            "right": (quoted in wanted) if wanted else quoted is None}  # fmt: skip


async def ask_store(say, question: dict, tool_parts) -> dict:
    """One store question as the first message of a conversation: which page the answer quoted
    (the first strong passage of its store-information results), or whether it said it does not
    know, or searched the catalog instead."""
    _, answer, new = await say(None, question["query"])
    calls, responses = tool_parts(new)
    searched = any(c.name != "search-store-information" for c in calls)
    quoted = None
    for r in responses:
        if r.name == "search-store-information":
            passages = (r.result.get("structuredContent") or {}).get("passages", [])
            strong = [p for p in passages if p.get("grade") == "strong"]
            quoted = quoted or (strong[0]["page"] if strong else None)
    # (no page: none answers it, and none should be quoted)
    wanted = Path(question["page"]).stem if question.get("page") else None
    return {"query": question["query"], "page": wanted, "quoted": quoted, "searched": searched, "answer": answer,
            "right": quoted == wanted and not searched}  # fmt: skip


def share(items: list, test) -> str:
    return f"{sum(map(test, items))}/{len(items)} = {sum(map(test, items)) / len(items):.2f}" if items else "-"


def batch_of(results: list[dict], batch: int) -> list[dict]:
    """The results of one batch of judged sets: the first (queries.jsonl, conversations.jsonl and the question
    batches), or a later one (queries_2.jsonl, conversations_2.jsonl, conversations_3.jsonl and _4: written blind later,
    reported apart so that the first batch's figures stay comparable with earlier runs)."""
    return [
        {**r, "queries": [q for q in r["queries"] if q.get("batch", 1) == batch],
         "turns": [t for t in r["turns"] if t.get("batch", 1) == batch],
         **({} if batch == 1 else {"asked": [], "store": [], "store_turns": [], "times": []})}
        for r in results
    ]  # fmt: skip


def all_tables(results: list[dict]) -> None:
    tables(batch_of(results, 1))
    later = ((2, "queries_2.jsonl, conversations_2.jsonl"), (3, "conversations_3.jsonl"), (4, "conversations_4.jsonl"))
    for batch, files in later:
        of_batch = batch_of(results, batch)
        if any(r["queries"] or r["turns"] for r in of_batch):
            print(f"{('second', 'third', 'fourth')[batch - 2]} batch (tests/data/<trade>/{files}):")
            tables([r for r in of_batch if r["queries"] or r["turns"]])


def tables(results: list[dict]) -> None:
    out = [("trade", "queries", "first fits", "wrong 'not carried'", "honest (unanswerable)", "residue")]
    conv = [
        ("trade", "turns", "pass", "facts stated", "right earlier item", "wrong 'not carried'", "residue", "ungrounded")
    ]
    groups: dict[str, list[dict]] = defaultdict(list)
    for result in results:
        groups[result["trade"]].append(result)
        groups["all"].append(result)
    for trade, items in groups.items():
        queries = [q for r in items for q in r["queries"]]
        answerable = [q for q in queries if q["answerable"]]
        others = [q for q in queries if not q["answerable"]]
        out.append((trade, str(len(queries)), share(answerable, lambda q: q["first_fits"]),
                    share(answerable, lambda q: q["not_carried"]), share(others, lambda q: q["honest"]),
                    share(queries, lambda q: bool(q.get("residue")))))  # fmt: skip
        turns = [t for r in items for t in r["turns"]]
        facts = [t for t in turns if t["facts_ok"] is not None]
        earlier = [t for t in turns if t["earlier_ok"] is not None]
        products = [t for t in turns if t["reply"] == "products"]
        listing = [t for t in turns if t["reply"] in ("products", "nomatch")]
        conv.append((trade, str(len(turns)), share(turns, lambda t: t["passed"]),
                     share(facts, lambda t: t["facts_ok"]), share(earlier, lambda t: t["earlier_ok"]),
                     share(products, lambda t: t["wrong_not_carried"]),
                     share(listing, lambda t: bool(t.get("residue"))),
                     str(sum(not t["grounded"] for t in turns))))  # fmt: skip
    shown: dict[str, list[tuple[str, ...]]] = {}
    for batch in SHOWN_BATCHES:
        shown[batch] = [("trade", "questions", "right product(s)", "facts stated", "ungrounded")]
        for trade, items in groups.items():
            asked = [a for r in items for a in r.get("asked", []) if (a.get("batch") or SHOWN_BATCHES[0]) == batch]
            if asked:
                judged = [a for a in asked if a["facts_ok"] is not None]
                ungrounded = str(sum(not a["grounded"] for a in asked))
                shown[batch].append((trade, str(len(asked)), share(asked, lambda a: a["right_products"]),
                                     share(judged, lambda a: a["facts_ok"]), ungrounded))  # fmt: skip
    store = [("trade", "questions", "right page quoted", "another page", '"don\'t know"', "searched products")]
    for trade, items in groups.items():
        if asked_store := [q for r in items for q in r.get("store", [])]:
            store.append((trade, str(len(asked_store)), share(asked_store, lambda q: q["right"]),
                          share(asked_store, lambda q: q["quoted"] not in (None, q["page"])),
                          share(asked_store, lambda q: q["quoted"] is None and not q["searched"]),
                          share(asked_store, lambda q: q["searched"])))  # fmt: skip
    print("single messages (each opens a conversation):")
    grid(out)
    print("conversations:")
    grid(conv)
    # (a turn's facts are judged on the products a shop might show at that point: none of them looked up means the
    # answer was about another product, the list shown or the pointing having differed from the judge's)
    missed = [("trade", "facts not stated", "no judged product looked up", "of them, a wrong earlier item",
               "said the data doesn't tell", "told something else")]  # fmt: skip
    for trade, items in groups.items():
        unstated = [t for r in items for t in r["turns"] if t["facts_ok"] is False]
        if unstated:
            about_another = [t.get("judged_looked_up") is False or t["earlier_ok"] is False for t in unstated]
            elsewhere = [t for t, other in zip(unstated, about_another, strict=True) if other]
            flagged = [t for t in elsewhere if t["earlier_ok"] is False]
            rest = [t for t, other in zip(unstated, about_another, strict=True) if not other]
            untold = [t for t in rest if _NOT_TOLD.search(t["answer"])]
            missed.append((trade, str(len(unstated)), str(len(elsewhere)), str(len(flagged)), str(len(untold)),
                           str(len(rest) - len(untold))))  # fmt: skip
    if len(missed) > 1:
        print("why asked facts were not stated (info turns of the conversations):")
        grid(missed)
    wrong = [("trade", "wrong earlier item", "one named by the shopper", "... listed earlier",
              "... answered with a list", "a place beyond the list shown", "a place in the list")]  # fmt: skip
    for trade, items in groups.items():
        if misses := [t for r in items for t in r["turns"] if t["earlier_ok"] is False]:
            named = [t for t in misses if "did not look up one of" in " ".join(t["problems"])]
            listed = sum(bool(re.search(r"^\s*1\. ", t["answer"], re.MULTILINE)) for t in named)
            before = sum("(listed earlier)" in " ".join(t["problems"]) for t in named)
            beyond = sum("though the last list has" in " ".join(t["problems"]) for t in misses)
            wrong.append((trade, str(len(misses)), str(len(named)), str(before), str(listed), str(beyond),
                          str(len(misses) - len(named) - beyond)))  # fmt: skip
    if len(wrong) > 1:
        print("which earlier items were missed (info turns of the conversations):")
        grid(wrong)
    for batch, table in shown.items():
        if len(table) > 1:
            print(f"questions right after a list was shown (tests/data/{batch}):")
            grid(table)
    turns_table = [("trade", "store turns", "right page quoted", "quoted where no page answers", '"don\'t know"')]
    for trade, items in groups.items():
        if asked_turns := [q for r in items for q in r.get("store_turns", [])]:
            answerable = [q for q in asked_turns if q["pages"]]
            turns_table.append((trade, str(len(asked_turns)), share(answerable, lambda q: q["right"]),
                                share([q for q in asked_turns if not q["pages"]], lambda q: q["quoted"] is not None),
                                share(asked_turns, lambda q: q["quoted"] is None)))  # fmt: skip
    if len(turns_table) > 1:
        print("store questions inside conversations (the page the judge's answer names):")
        grid(turns_table)
    if len(store) > 1:
        print("store questions (tests/data/<trade>/store_questions.jsonl):")
        grid(store)
    times = [t for r in results for t in r["times"]]
    if times:
        ordered = sorted(times)
        p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
        print(f"turn time: p50 {statistics.median(times):.1f} ms, p95 {p95:.1f} ms over {len(times)} turns")


async def run(split: str, quick: bool, folder: Path) -> list[dict]:
    from shopagent.adapters.postgres.embedded import EmbeddedPostgres

    server = EmbeddedPostgres(folder / "pg")
    await asyncio.to_thread(server.start)
    try:
        return [await measure_trade(server, trade, split, quick) for trade in chosen_trades(quick)]
    finally:
        await asyncio.to_thread(server.stop)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("tune", "heldout", "all"), default="heldout")
    parser.add_argument("--trades", default="", help="comma-separated trades to measure (default: all)")
    parser.add_argument("--before", type=Path, help="another source tree to measure first, in a subprocess")
    parser.add_argument("--quick", action="store_true", help="6 queries and 2 conversations of one trade")
    parser.add_argument("--show", action="store_true", help="print every failing query and turn")
    parser.add_argument("--trace", action="store_true", help="print every conversation turn, passing or not")
    parser.add_argument("--rows-json", action="store_true", help=argparse.SUPPRESS)  # the --before subprocess
    args = parser.parse_args()
    if args.trades:
        os.environ["SHOPAGENT_BENCH_TRADES"] = args.trades
    chosen_trades()
    provenance = Provenance()
    with scratch("assistant-quality") as folder:
        if args.rows_json:
            print(json.dumps(asyncio.run(run(args.split, args.quick, folder))))
            return
        if args.before is not None:
            from bench.common import on_other_tree  # this tree's (the subprocess imports another's)

            before = on_other_tree(__file__, args.before, ["--split", args.split, *(["--quick"] * args.quick)])
            print(f"before ({args.before}), {args.split}:")
            all_tables(before)
        results = asyncio.run(run(args.split, args.quick, folder))
    print(f"this tree, {args.split}:")
    all_tables(results)
    if args.show:
        for result in results:
            for q in result["queries"]:
                wrong = (q["answerable"] and not q["first_fits"]) or (q["not_carried"] and q["answerable"])
                if wrong or q["residue"] or not (q["answerable"] or q["honest"]):
                    print(f"\n[{result['trade']}] {q['query']!r}\n  {q['answer'][:300]!r}")
    if args.show or args.trace:
        for result in results:
            for t in result["turns"]:
                if args.trace or not t["passed"]:
                    head = f"[{result['trade']} turn] {t['say']!r} ({t['reply']}): {t['problems']}"
                    print(f"\n{head}\n  {t['answer'][:300]!r}")
            for q in result.get("store_turns", []):
                if args.trace or not q["right"]:
                    print(
                        f"\n[{result['trade']} store turn] {q['query']!r}: wanted {q['pages']}, quoted {q['quoted']}"
                        f"\n  {q['answer'][:300]!r}"
                    )
            for q in result.get("store", []):
                if args.trace or not q["right"]:
                    print(
                        f"\n[{result['trade']} store] {q['query']!r}: wanted {q['page']}, quoted {q['quoted']}"
                        f"\n  {q['answer'][:300]!r}"
                    )
            for a in result.get("asked", []):
                if args.trace or not (a["right_products"] and a["facts_ok"] is not False and a["grounded"]):
                    print(
                        f"\n[{result['trade']} shown {a['id']}] {a['say']!r}: meant {a['meant']}, "
                        f"looked up {a['looked_up']}, facts {a['facts_ok']}\n  {a['answer'][:1200]!r}"
                    )
    print(provenance.line())


if __name__ == "__main__":
    main()
