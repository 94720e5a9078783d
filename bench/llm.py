"""A real OpenAI-compatible model server behind the assistant: does each shopping turn work?

    python bench/llm.py --url http://127.0.0.1:8081/v1 [--model NAME] [--timeout 300]
                        [--max-steps 8] [--temperature 0.2] [--quick]

One process, an embedded PostgreSQL, the sample catalog (200 products) indexed with the local
embedding model, and the chat API on loopback with `chat.provider = "openai"` pointed at
`--url` (llama.cpp's llama-server, llama-cpp-python's server, Ollama, vLLM…). Fifteen shopper
messages go through `POST /api/assistant-agent/chat` as event streams: thirteen new
conversations and one of two turns (a follow-up about the first answer). Per turn:

- outcome: `answered` (the model's own answer), `fallback` (it gave none within
  `--max-steps`, or repeated a call it had the result of: the shopper got the last search's
  products), or the error code the chat API answered;
- steps (model calls); tool calls, how many the tool accepted (valid: not an error result)
  and how many the model wrote as text instead of making them;
- quotes: the catalog product names and prices the answer mentions, and whether it is
  grounded: every one of them appears in that turn's tool results
  (`shopagent.application.evaluation.ungrounded`; "-" for an answer that quotes nothing);
- the turn's wall time over HTTP.

Then a summary. The model is called one turn at a time; a CPU-only server needs a long
`--timeout` (the request timeout, `chat.openai_timeout_seconds`; the turn timeout is set
above it). Without `--url` the script drives a scripted stand-in on loopback (one search, then
an answer quoting the first product): a check that it runs, not figures; `--quick` does that
with three messages and the hash embedder.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as `python bench/NAME.py`: the checkout goes first on the path instead of bench/, so that
# bench/mcp.py cannot shadow the mcp package; the shared helpers are bench.common.
sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import json
import secrets
import statistics
import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import anyio
import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from bench.common import Provenance, free_port, grid, scratch
from shopagent.actors.http import run_http
from shopagent.adapters.local.hash_embedder import HashEmbedder
from shopagent.adapters.local.minilm import MiniLMEmbedder
from shopagent.adapters.postgres.database import ensure_database
from shopagent.adapters.postgres.embedded import EmbeddedPostgres
from shopagent.application.catalog import import_products
from shopagent.application.evaluation import quoted, ungrounded
from shopagent.bootstrap import SAMPLE_CATALOG, build_public_app
from shopagent.domain.catalog import ProductInput
from shopagent.domain.chat import ChatMessage, FunctionResponse
from shopagent.domain.tokens import issue_token
from shopagent.entrypoints.catalog_files import read_catalog_file
from shopagent.runtime.asgi import bind_tcp, serve_asgi
from shopagent.settings import ChatSettings, EmbeddingSettings, HttpSettings, Secret, Secrets, Settings
from shopagent.wiring.policies import listening
from shopagent.wiring.services import open_services
from shopagent.wiring.startup import INDEXER_ACTORS

BENCH_SECRET = secrets.token_urlsafe(32)

# Each inner list is one conversation; the last one has a follow-up.
CONVERSATIONS = [
    ["warm winter boots for women in size 38"],
    ["a waterproof jacket for hiking under 200 euros"],
    ["black leather chelsea boots"],
    ["a linen shirt for summer"],
    ["a cashmere scarf as a gift"],
    ["running sneakers in size 44"],
    ["a dress for a summer wedding"],
    ["something warm for my dad who is always cold"],
    ["a parka for very cold winters"],
    ["cheap sandals for the beach"],
    ["wool trousers for the office"],
    ["do you sell bicycles?"],
    ["what's the weather in Berlin?"],
    ["red sneakers", "tell me more about the first one"],
]
QUICK = [["warm winter boots in size 42"], ["red sneakers", "tell me more about the first one"]]


@dataclass
class Turn:
    question: str
    outcome: str = ""
    steps: int = 0
    calls: int = 0
    valid: int = 0
    written: int = 0  # calls the model wrote as text (stored with ids written-…)
    quotes: int = 0  # catalog product names and prices the answer mentions
    grounded: bool | None = None  # all of them in the turn's tool results
    seconds: float = 0.0
    answer: str = ""
    problems: list[str] = field(default_factory=list)


def stand_in() -> Starlette:
    """A scripted OpenAI-compatible server: a search for the shopper's words, then an answer
    quoting the first product found (or saying none was)."""

    async def complete(request: Request) -> JSONResponse:
        body = await request.json()
        last = body["messages"][-1]
        if last["role"] == "tool":
            output = json.loads(last["content"])["output"].get("structuredContent") or {}
            products = output.get("products") or []
            first = products[0] if products else None
            text = f"Try the {first['name']} for {first['effectivePrice']} {first['currency']}." if first else "None."
            message: dict[str, Any] = {"role": "assistant", "content": text}
        else:
            arguments = json.dumps({"query": last["content"], "limit": 3})
            call = {"id": "call_1", "type": "function",
                    "function": {"name": "product-semantic-search", "arguments": arguments}}  # fmt: skip
            message = {"role": "assistant", "content": "", "tool_calls": [call]}
        choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if "tool_calls" in message else "stop"}
        return JSONResponse({"id": "stand-in", "object": "chat.completion", "choices": [choice]})

    return Starlette(routes=[Route("/v1/chat/completions", complete, methods=["POST"])])


def events_of(body: str) -> list[tuple[str, dict[str, Any]]]:
    kinds = [line.removeprefix("event: ") for line in body.splitlines() if line.startswith("event: ")]
    data = [json.loads(line.removeprefix("data: ")) for line in body.splitlines() if line.startswith("data: ")]
    return list(zip(kinds, data, strict=True))


async def one_turn(
    client: httpx.AsyncClient, question: str, conversation_id: str | None, names: list[str]
) -> tuple[Turn, str | None]:
    """The turn through the chat API as an event stream, then what it stored."""
    turn = Turn(question)
    headers = {"Authorization": f"Bearer {issue_token(BENCH_SECRET, 'bench-user')}", "Accept": "text/event-stream"}
    body = {"query": question, **({"conversationId": conversation_id} if conversation_id else {})}
    began = time.perf_counter()
    response = await client.post("/api/assistant-agent/chat", json=body, headers=headers)
    turn.seconds = time.perf_counter() - began
    if response.status_code != 200:
        turn.outcome = f"HTTP {response.status_code}"
        return turn, conversation_id
    events = events_of(response.text)
    steps = [data for kind, data in events if kind == "step"]
    turn.steps = len(steps)
    failed = next((data for kind, data in events if kind == "error"), None)
    if failed is not None:
        turn.outcome = f"{failed['status']} {failed['code']}"
        turn.problems.append(failed["message"][:300])
        return turn, conversation_id
    turn.answer = next(data["text"] for kind, data in events if kind == "answer")
    conversation_id = next(data["conversationId"] for kind, data in events if kind == "done")
    # The model gave the answer itself when its last step called nothing.
    turn.outcome = "answered" if steps and not steps[-1]["calls"] else "fallback"
    detail = (await client.get(f"/api/conversations/{conversation_id}", headers=headers)).json()
    this_turn = detail["messages"][_last_user_message(detail["messages"]) :]
    responses = []
    for message in this_turn:
        turn.calls += len(message["toolCalls"])
        turn.written += sum(1 for c in message["toolCalls"] if (c["id"] or "").startswith("written-"))
        for result in message["toolResults"]:
            turn.valid += not result["isError"]
            if isinstance(result["result"], dict):
                responses.append(FunctionResponse(result["name"], result["result"], result["id"]))
    named, prices = quoted(turn.answer, names)
    turn.quotes = len(named) + len(prices)
    unknown_names, unknown_prices = ungrounded(turn.answer, [ChatMessage(role="user", parts=list(responses))], names)
    turn.grounded = not unknown_names and not unknown_prices
    if not turn.grounded:
        turn.problems.append(f"not in the tool results: {', '.join(sorted(unknown_names | unknown_prices))}")
    return turn, conversation_id


def _last_user_message(messages: list[dict[str, Any]]) -> int:
    """Where this turn's messages start: after the last user message that has text."""
    return max(n for n, m in enumerate(messages) if m["role"] == "user" and m["text"]) + 1


async def main(args: argparse.Namespace) -> None:
    provenance = Provenance()
    with scratch("shopagent-bench-llm-") as work:
        turns = await measure(args, EmbeddedPostgres(work))
    report(args, turns)
    print(provenance.line())


async def measure(args: argparse.Namespace, server: EmbeddedPostgres) -> list[Turn]:
    await anyio.to_thread.run_sync(server.start)
    try:
        await ensure_database(server.dsn("postgres"), "bench_llm")
        async with anyio.create_task_group() as tg:
            url = args.url
            if url is None:
                sock = bind_tcp("127.0.0.1", 0)
                url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
                await tg.start(partial(serve_asgi, stand_in(), sock, name="stand-in", grace_seconds=1))
            turns = await converse(args, server.dsn("bench_llm"), url)
            tg.cancel_scope.cancel()
        return turns
    finally:
        await anyio.to_thread.run_sync(server.stop)


async def converse(args: argparse.Namespace, dsn: str, url: str) -> list[Turn]:
    port = free_port()
    chat = ChatSettings(
        provider="openai", openai_base_url=url, openai_model=args.model, openai_timeout_seconds=args.timeout,
        turn_timeout_seconds=args.timeout * args.max_steps + 60, max_steps=args.max_steps,
        temperature=args.temperature, rate_per_minute=1e9, rate_burst=1_000_000,
    )  # fmt: skip
    settings = Settings(
        secrets=Secrets(database_url=Secret(dsn), auth_secret=Secret(BENCH_SECRET)),
        embedding=EmbeddingSettings(model="hash" if args.quick else "local"),
        http=HttpSettings(port=port),
        chat=chat,
    )
    embedder = HashEmbedder() if args.quick else await MiniLMEmbedder.load()
    catalog = read_catalog_file(SAMPLE_CATALOG)
    names = [item.name for _, item in catalog if isinstance(item, ProductInput)]
    turns: list[Turn] = []
    async with open_services(settings, INDEXER_ACTORS | {"http"}, embedder=embedder) as services:
        await import_products(services.catalog, catalog)
        while events := await services.outbox.claim(64, 60, 5, "bench"):
            await services.index_product.index(events)
        await services.search.refresh()  # its words read from the finished index, whatever the load
        async with anyio.create_task_group() as tg:
            await tg.start(partial(run_http, listening(settings, "http"), partial(build_public_app, services, None)))
            timeout = httpx.Timeout(chat.turn_timeout_seconds + 30)
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=timeout) as client:
                for conversation in QUICK if args.quick else CONVERSATIONS:
                    conversation_id = None
                    for question in conversation:
                        turn, conversation_id = await one_turn(client, question, conversation_id, names)
                        turns.append(turn)
                        print(f"  {len(turns):2d}. {turn.outcome:<9} {turn.seconds:6.1f} s  {question}", flush=True)
            tg.cancel_scope.cancel()
    return turns


def report(args: argparse.Namespace, turns: list[Turn]) -> None:
    print()
    rows = [("#", "message", "outcome", "steps", "calls valid/made (as text)", "quotes", "grounded", "seconds")]
    for n, t in enumerate(turns, 1):
        grounded = "-" if t.grounded is None or not t.quotes else "yes" if t.grounded else "NO"
        rows.append((str(n), t.question[:40], t.outcome, str(t.steps), f"{t.valid}/{t.calls} ({t.written})",
                     str(t.quotes), grounded, f"{t.seconds:.1f}"))  # fmt: skip
    grid(rows)
    for n, t in enumerate(turns, 1):
        for problem in t.problems:
            print(f"  {n}. {problem}")
        print(f"  {n}. answer: {' '.join(t.answer.split())[:300]}")
    answered = [t for t in turns if t.outcome == "answered"]
    fallback = [t for t in turns if t.outcome == "fallback"]
    calls, valid, written = (sum(getattr(t, k) for t in turns) for k in ("calls", "valid", "written"))
    seconds = [t.seconds for t in turns]
    print()
    grid([
        ("measure", "value"),
        ("server", f"{args.url or 'the scripted stand-in (no --url)'}, model {args.model!r}"),
        ("turns answered by the model", f"{len(answered)} of {len(turns)}"),
        ("turns answered from the last search (fallback)", f"{len(fallback)}"),
        ("turns failed", f"{len(turns) - len(answered) - len(fallback)}"),
        ("tool calls valid", f"{valid} of {calls}" + (f" ({written} written as text)" if written else "")),
        ("model answers quoting products or prices", f"{sum(1 for t in answered if t.quotes)} of {len(answered)}"),
        ("... of which grounded (all in the tool results)",
         f"{sum(1 for t in answered if t.quotes and t.grounded)} of {sum(1 for t in answered if t.quotes)}"),
        ("turn time p50 / max", f"{statistics.median(seconds):.1f} / {max(seconds):.1f} s"),
    ])  # fmt: skip
    print(f"\nmax_steps {args.max_steps}, request timeout {args.timeout:g} s, temperature {args.temperature}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="the server's OpenAI-compatible base URL, e.g. http://127.0.0.1:8081/v1")
    parser.add_argument("--model", default="local", help="the model name sent (llama-server serves its one model)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds one model request may take")
    parser.add_argument("--max-steps", type=int, default=8)
    parser.add_argument("--temperature", type=float, default=0.2)
    parser.add_argument("--quick", action="store_true", help="three messages to the stand-in: a smoke run")
    arguments = parser.parse_args()
    if arguments.quick:
        arguments.url = None
    anyio.run(main, arguments, backend="asyncio")
