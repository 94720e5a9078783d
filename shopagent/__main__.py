"""The `shopagent` command line: parses arguments, then hands over to bootstrap."""

from __future__ import annotations

import argparse
import gc
import logging
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import NoReturn

import anyio

from shopagent import __version__, bootstrap
from shopagent.domain.errors import ConfigError, ShopagentError
from shopagent.domain.tokens import issue_token
from shopagent.entrypoints.catalog_files import CSV_FORMATS, CsvFormat
from shopagent.entrypoints.cli_commands import ProgressBar, import_catalog_file, print_index_status
from shopagent.runtime.asgi import ListenError, ServerError
from shopagent.runtime.logging import Scrubber, configure_logging
from shopagent.runtime.signals import StopRequest, cancel_on_signals
from shopagent.runtime.supervisor import SupervisorError
from shopagent.settings import Settings, load_settings, resolve_data_dir

log = logging.getLogger("shopagent")

EXIT_FAILURE = 1
EXIT_USAGE = 2
# Failures we expect and explain in one line; anything else is a bug and gets a traceback.
_EXPLAINED = (ShopagentError, SupervisorError, ListenError, ServerError)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--config",
        metavar="FILE",
        type=Path,
        help="settings file (default: $SHOPAGENT_CONFIG, else ./config.toml if present, else defaults)",
    )
    parser = _Parser(
        prog="shopagent",
        description="An AI shopping assistant service: chat API, MCP catalog tools, semantic indexing.",
        epilog="Settings: config.toml, overridden by SHOPAGENT_<SECTION>__<KEY> environment variables. "
        "Without SHOPAGENT_DATABASE_URL an embedded PostgreSQL starts in the data directory.",
    )
    parser.add_argument("--version", action="version", version=f"shopagent {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=_Parser)

    run = commands.add_parser(
        "run",
        parents=[common],
        help="run the service (all roles, or the ones given)",
        description="Run shopagent's actors under one supervisor until SIGTERM/SIGINT. "
        "Migrations are applied first. Every role also runs the ops server (/healthz, /readyz, /metrics).",
    )
    run.add_argument(
        "--role",
        default="all",
        metavar="ROLES",
        help="comma-separated roles: all (default), chat (HTTP API), mcp (MCP server), "
        "indexer (outbox poller + embedding workers), reaper (housekeeping)",
    )
    commands.add_parser(
        "demo",
        parents=[common],
        help="run everything on the embedded defaults and print where to find it",
        description="Run all roles (on the embedded PostgreSQL unless SHOPAGENT_DATABASE_URL is set) "
        "and print the URLs to use. Stop with Ctrl-C.",
    )
    commands.add_parser(
        "migrate",
        parents=[common],
        help="apply pending database migrations and exit",
        description="Apply pending schema migrations (safe to run while other instances start) and exit.",
    )
    catalog = commands.add_parser("catalog", help="manage the catalog", description="Manage the catalog.")
    catalog_commands = catalog.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=_Parser)
    importing = catalog_commands.add_parser(
        "import",
        parents=[common],
        help="create or update products from a .json, .jsonl or .csv file (also Shopify and WooCommerce exports)",
        description="Upsert products by slug from FILE: .json (an array of products), .jsonl (one product per "
        "line) or .csv (one row per variation; see the README for the columns), or a product CSV exported by "
        "Shopify or WooCommerce. Bad records and rows are reported and skipped; the rest is imported. Exit code "
        "1 if any record was rejected.",
    )
    importing.add_argument("file", metavar="FILE", type=Path)
    importing.add_argument(
        "--format",
        choices=CSV_FORMATS,
        default="auto",
        help="layout of a .csv file (default: auto, told from its header)",
    )
    index = commands.add_parser("index", help="inspect and manage the semantic index", description="The index.")
    index_commands = index.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=_Parser)
    index_commands.add_parser(
        "status",
        parents=[common],
        help="show pending, in-flight and dead-lettered events and how many products are indexed",
        description="Show the outbox (pending, in flight, dead-lettered with their last error) and how many "
        "products the active embedding model has indexed.",
    )
    index_commands.add_parser(
        "retry-failed",
        parents=[common],
        help="put dead-lettered events back in the queue",
        description="Reset every dead-lettered event so a running indexer processes it again.",
    )
    index_commands.add_parser(
        "rebuild",
        parents=[common],
        help="re-index every product with the configured embedding model",
        description="Queue every product and index them in this process (running indexers help), with "
        "progress, then build the vector index anew. Use after changing embedding.model or the "
        "search.hnsw_* settings.",
    )
    evaluate = commands.add_parser(
        "eval",
        parents=[common],
        help="score search (and the assistant) on a file of judged queries",
        description='Run every query of FILE (JSONL: one {"query", "acceptable": [slug, ...], "filters"?, '
        '"kind"?} per line; acceptable [] = the shop has no right product) through the search three ways '
        "(vector leg, lexical leg, fused) and print hit@1, hit@5, MRR@10, how often queries with no right "
        "product are flagged noStrongMatch, and how often answerable ones are flagged wrongly. A bad line stops "
        "it before anything runs. Exit code 1 when the fused hit@5 is below --min-hit5.",
    )
    evaluate.add_argument("file", metavar="FILE", type=Path)
    evaluate.add_argument(
        "--assistant",
        action="store_true",
        help="also ask the assistant each query and check its answers are grounded in its tool results",
    )
    evaluate.add_argument(
        "--json", metavar="OUT", type=Path, help="also write the full report as JSON to OUT (- = stdout)"
    )
    evaluate.add_argument("--min-hit5", type=float, metavar="X", help="fail (exit 1) when the fused hit@5 is below X")
    token = commands.add_parser("token", help="chat API tokens", description="Chat API tokens.")
    token_commands = token.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=_Parser)
    issue = token_commands.add_parser(
        "issue",
        parents=[common],
        help="print a chat API token for a user id",
        description="Print (alone on stdout) a chat API token for USER_ID, signed with SHOPAGENT_AUTH_SECRET "
        "(or, when that is unset, the secret `shopagent demo` generated in the data directory).",
    )
    issue.add_argument("user_id", metavar="USER_ID")
    issue.add_argument("--ttl", type=int, metavar="SECONDS", help="lifetime (default: chat.token_ttl_seconds)")
    commands.add_parser(
        "repl",
        parents=[common],
        help="ask the assistant questions in the terminal and see each step",
        description="Ask the assistant one question per line (no memory between lines, nothing stored) and "
        "see every step: model calls, tools with their arguments, durations. exit or Ctrl-D quits.",
    )
    mcp = commands.add_parser("mcp", help="serve the MCP tools", description="Serve the catalog's MCP tools.")
    mcp_commands = mcp.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=_Parser)
    mcp_commands.add_parser(
        "stdio",
        parents=[common],
        help="serve the MCP tools over stdin/stdout (for desktop assistants and other local clients)",
        description="Serve product-semantic-search and get-product-full-details over stdio. Logs go to "
        "stderr. Uses the same database as `shopagent run` (the embedded one unless SHOPAGENT_DATABASE_URL "
        "is set); it does not index, so run an indexer (e.g. `shopagent demo`) to keep the index fresh.",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings(args.config)
        actors = bootstrap.parse_roles(args.role if args.command == "run" else "all")
        if args.command == "demo":
            bootstrap.check_data_dir(resolve_data_dir(settings))  # where its keys are kept
            settings = bootstrap.with_demo_secrets(settings)
        elif args.command == "run" and settings.runtime.generate_secrets:
            bootstrap.check_data_dir(resolve_data_dir(settings))
            settings = bootstrap.with_demo_secrets(settings, bootstrap.GENERATED_SECRETS_FILE)
        if args.command in ("run", "demo"):
            bootstrap.preflight(settings, actors)  # before the database starts
    except (ConfigError, ListenError) as exc:
        print(f"shopagent: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    scrub = Scrubber(settings.secrets.values())
    level = settings.logging.level
    if args.command in ("repl", "mcp", "eval") and level == "info":
        level = "warning"  # the terminal (or the stdio protocol) is for the conversation
    configure_logging(
        level,
        settings.logging.format,
        secrets=settings.secrets.values(),
        access_log=settings.logging.access_log,
    )
    if args.command == "run" and settings.runtime.generate_secrets:
        where = resolve_data_dir(settings) / bootstrap.GENERATED_SECRETS_FILE
        log.info("keys the environment does not set are the generated ones in %s", where)

    async def run() -> None:
        await bootstrap.preflight_mcp(settings, actors)
        await bootstrap.serve(settings, actors, scrub=scrub)

    jobs = {
        "run": run,
        "demo": lambda: bootstrap.serve(
            settings,
            actors,
            scrub=scrub,
            prepare=bootstrap.import_sample_catalog_if_empty,
            on_ready=partial(_print_banner, settings),
        ),
        "migrate": lambda: _migrate(settings),
        "catalog": lambda: _import(settings, args.file, args.format),
        "index": lambda: _index(settings, args.action),
        "mcp": lambda: _mcp_stdio(settings),
        "repl": lambda: _repl(settings),
        "token": lambda: _issue_token(settings, args.user_id, args.ttl),
        "eval": lambda: _eval(settings, args.file, args.assistant, args.json, args.min_hit5),
    }
    try:
        return anyio.run(jobs[args.command], backend="asyncio") or 0
    except BaseException as exc:
        return _report_failure(exc)


async def _migrate(settings: Settings) -> None:
    async with bootstrap.open_database(settings) as dsn:
        applied = await bootstrap.prepare_schema(dsn, settings)
    print(f"applied {len(applied)} migration(s)" if applied else "the schema is up to date")


async def _import(settings: Settings, path: Path, format: CsvFormat) -> int:
    words = bootstrap.option_words(settings)
    async with bootstrap.open_services(settings, frozenset()) as services:
        summary = await import_catalog_file(services.catalog, path, format=format, words=words)
    return 1 if summary.rejected else 0


async def _index(settings: Settings, action: str) -> int:
    actors = bootstrap.INDEXER_ACTORS if action == "rebuild" else frozenset()
    async with bootstrap.open_services(settings, actors) as services:
        outbox = services.outbox
        if action == "retry-failed":
            print(f"{await outbox.retry_dead()} dead-lettered event(s) queued again")
        elif action == "rebuild":
            total, first = await outbox.enqueue_all()
            await bootstrap.drain_index(services, first, total, ProgressBar("indexing"), rebuild_vector_index=True)
        status = await services.index_status(bootstrap.embedding_model_id(settings))
    print_index_status(status)
    return 0


async def _eval(settings: Settings, path: Path, assistant: bool, json_out: Path | None, min_hit5: float | None) -> int:
    from shopagent.application.evaluation import SEARCH_MODES, evaluate_assistant, evaluate_search, product_names
    from shopagent.entrypoints.eval_files import EvalFileError, print_report, read_eval_file, write_json

    async with bootstrap.open_services(settings, frozenset({"mcp"})) as services:
        search = services.search
        assert search is not None  # the mcp actor set builds it
        names = await product_names(services.catalog)
        try:
            cases = read_eval_file(path, search, set(names))
        except EvalFileError as exc:
            print(f"shopagent: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        scores = [await evaluate_search(search, cases, mode) for mode in SEARCH_MODES]
        answers = None
        if assistant:
            async with bootstrap.open_agent(services) as agent:
                answers = await evaluate_assistant(agent, cases, names)
    print_report(scores, answers, sys.stdout)
    if json_out is not None:
        if str(json_out) == "-":
            write_json(scores, answers, sys.stdout)
        else:
            with json_out.open("w", encoding="utf-8") as out:
                write_json(scores, answers, out)
    if min_hit5 is not None and scores[-1].hit5 < min_hit5:
        print(f"fused hit@5 {scores[-1].hit5:.2f} is below --min-hit5 {min_hit5}", file=sys.stderr)
        return EXIT_FAILURE
    return 0


async def _issue_token(settings: Settings, user_id: str, ttl: int | None) -> int:
    secret = settings.secrets.auth_secret or bootstrap.demo_secret(settings, "auth_secret")
    if secret is None:
        raise ConfigError("set SHOPAGENT_AUTH_SECRET (or run `shopagent demo` once, which generates one)")
    ttl = ttl or settings.chat.token_ttl_seconds
    if not 0 < ttl <= settings.chat.token_max_ttl_seconds:
        raise ConfigError(f"--ttl must be 1-{settings.chat.token_max_ttl_seconds} seconds (chat.token_max_ttl_seconds)")
    try:
        print(issue_token(secret.reveal(), user_id, ttl))
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    return 0


async def _repl(settings: Settings) -> None:
    from shopagent.entrypoints.repl import run_repl

    async with (
        bootstrap.open_services(settings, frozenset({"mcp"})) as services,
        bootstrap.open_agent(services) as agent,
    ):
        await run_repl(agent)


async def _mcp_stdio(settings: Settings) -> None:
    """Serve MCP on stdin/stdout; SIGTERM and SIGINT end it like the end of input (the
    embedded PostgreSQL is stopped, exit 0)."""
    from shopagent.entrypoints.mcp.stdio import serve_stdio

    stop = StopRequest()
    async with anyio.create_task_group() as signals:
        with anyio.CancelScope() as serving:
            await signals.start(
                partial(cancel_on_signals, serving, stop, grace_seconds=settings.runtime.shutdown_grace_seconds)
            )
            async with bootstrap.open_services(settings, frozenset({"mcp"})) as services:
                assert services.mcp_server is not None
                await serve_stdio(services.mcp_server)
        signals.cancel_scope.cancel()


async def _print_banner(settings: Settings, services: bootstrap.Services) -> None:
    """Once the catalog is indexed (with progress meanwhile), the URLs, keys, a token and a
    request to paste: the first answer is then the right one."""
    shown: list[tuple[int, int]] = []

    def progress(indexed: int, total: int) -> None:
        if (indexed, total) not in shown and indexed < total:
            shown.append((indexed, total))
            print(f"indexing the catalog: {indexed}/{total} products …", flush=True)

    print("shopagent is starting: the services are up, the catalog is being indexed.", flush=True)
    await bootstrap.wait_until_indexed(services, progress)
    admin_key = settings.secrets.admin_api_key.reveal() if settings.secrets.admin_api_key else "(disabled)"
    mcp_key = settings.secrets.mcp_api_key.reveal() if settings.secrets.mcp_api_key else "(none: loopback only)"
    assert settings.secrets.auth_secret is not None  # the demo always has one
    demo_token = issue_token(settings.secrets.auth_secret.reveal(), "demo", settings.chat.token_ttl_seconds)
    http = f"http://{settings.http.host}:{settings.http.port}"
    lines = [
        "",
        "shopagent is ready. Press Ctrl-C to stop.",
        f"  chat page  {http}/#token={demo_token}",
        f"  HTTP API   {http}/api",
        f"  admin API  {http}/api/admin/products",
        f"             Authorization: Bearer {admin_key}",
        f"  MCP        http://{settings.mcp.host}:{settings.mcp.port}/mcp",
        f"             Authorization: Bearer {mcp_key}",
        f"  readiness  http://{settings.ops.host}:{settings.ops.port}/readyz",
        f"  chat       POST {http}/api/assistant-agent/chat",
        f"             Authorization: Bearer {demo_token}",
        f"             (a token for the user 'demo'; mint others with `{_command()} token issue USER_ID`)",
        f"  data       {resolve_data_dir(settings)} (generated demo keys: demo-secrets.json)",
        "",
        "Ask it something:",
        f"  curl -s {http}/api/assistant-agent/chat -H 'Authorization: Bearer {demo_token}' "
        """-H 'Content-Type: application/json' -d '{"query": "warm winter boots under 200 euros"}'""",
        f"or chat in a terminal, in another window: {_command()} repl",
        "",
    ]
    print("\n".join(lines), flush=True)


def _command() -> str:
    """How this command was started, to repeat in hints: the script's path, or `python -m`."""
    launched = Path(sys.argv[0])
    if launched.name == "__main__.py":
        return f"{sys.executable} -m shopagent"
    return str(launched) if launched.is_absolute() or launched.parent != Path() else launched.name


def _report_failure(exc: BaseException) -> int:
    if isinstance(exc, KeyboardInterrupt):
        return 130
    explained = _find_explained(exc)
    if explained is not None:
        log.error("shopagent stopped: %s", explained)
    else:
        log.critical("shopagent stopped on an unexpected error", exc_info=exc)
    return EXIT_FAILURE


def _find_explained(exc: BaseException) -> BaseException | None:
    if isinstance(exc, _EXPLAINED):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _find_explained(inner)
            if found is not None:
                return found
    return None


def entry() -> None:
    """The `shopagent` command: `main`, then a quick exit. At exit the interpreter collects
    garbage over every object still alive several times (some 150,000 here, mostly model
    classes of the SDKs), which took seconds on a busy machine; frozen, they are skipped."""
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    entry()
