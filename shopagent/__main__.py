"""The `shopagent` command line: parses arguments, then hands the command over to
`shopagent.commands`, importing the service stack only then (`--help` stays quick)."""

from __future__ import annotations

import argparse
import gc
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from shopagent import __version__
from shopagent.entrypoints.catalog_formats import CSV_FORMATS
from shopagent.sample_data import DEFAULT_SAMPLE, SAMPLES

log = logging.getLogger("shopagent")

EXIT_FAILURE = 1
EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
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
    check = commands.add_parser(
        "check",
        parents=[common],
        help="check the settings and secrets `run` needs, then exit (0: ready; 2: the one line why not)",
        description="What `run --role ROLES` checks before it starts anything (placeholders of the example env "
        "file, secrets the roles need, a provider's key, the data directory), without starting anything: a "
        "one-shot step before the service in a compose file, so that `up` fails instead of a restart loop. "
        "Ports are not checked (the service may be running).",
    )
    check.add_argument("--role", default="all", metavar="ROLES", help="the roles `run` will be given (default: all)")
    demo = commands.add_parser(
        "demo",
        parents=[common],
        help="run everything on the embedded defaults and print where to find it",
        description="Run all roles (on the embedded PostgreSQL unless SHOPAGENT_DATABASE_URL is set) "
        "and print the URLs to use. An empty catalog gets the sample shop's products and store pages. "
        "Stop with Ctrl-C.",
    )
    demo.add_argument(
        "--sample",
        choices=sorted(SAMPLES),
        default=DEFAULT_SAMPLE,
        help=f"the sample shop (default: {DEFAULT_SAMPLE}). coffee is a roastery with brewing gear; its settings "
        "(store name, colours, no sizes, spec units, link template) take the place of the defaults; the environment, "
        "and config.toml values other than the defaults, still win. A catalog that holds the other sample is refused: "
        "give each sample its own SHOPAGENT_DATA_DIR",
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
    store_info = commands.add_parser(
        "store-info", help="manage the store pages", description="Manage the store pages (shipping, returns, FAQ...)."
    )
    store_info_commands = store_info.add_subparsers(
        dest="action", metavar="ACTION", required=True, parser_class=_Parser
    )
    pages = store_info_commands.add_parser(
        "import",
        parents=[common],
        help="create or update store pages from a folder of .md/.txt/.html files or a .json/.jsonl file",
        description="Upsert store pages by slug from PATH: a folder (one page per .md, .txt or .html file; the slug "
        "is the file name, the title its first heading) or a .json (an array of pages) or .jsonl (one page per "
        "line) file with slug, title, text and optionally url and language. Bad pages are reported with their file "
        "and line and skipped; the rest is imported. Exit code 1 if any page was rejected.",
    )
    pages.add_argument("path", metavar="PATH", type=Path)
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
    evaluate.add_argument(
        "--split",
        choices=("tune", "heldout"),
        help='only the lines of FILE with this "split" (a held-out half is what to report; tune on the other)',
    )
    insights = commands.add_parser(
        "insights",
        parents=[common],
        help="what shoppers searched for that found nothing strong, most frequent first",
        description="The searches (by the assistant or any MCP client) that found nothing graded strong over "
        "a period, counted per normalised query, most frequent first: what shoppers ask for that the shop "
        "may not carry. Kept insights.retention_days (90 by default).",
    )
    insights.add_argument("--since", default="7d", metavar="PERIOD", help="30m, 12h, 7d (default), 4w")
    insights.add_argument("--limit", type=int, default=50, help="how many queries at most (default 50)")
    insights.add_argument("--json", action="store_true", help="print the report as JSON (as the admin API does)")
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
    # Only now the command's own stack: `--help` and usage errors need none of it.
    import anyio

    from shopagent import commands
    from shopagent.domain.errors import ConfigError
    from shopagent.runtime.asgi import ListenError
    from shopagent.runtime.logging import Scrubber, configure_logging
    from shopagent.settings import load_settings, resolve_data_dir
    from shopagent.wiring import generated_secrets, startup

    try:
        sample = SAMPLES[args.sample] if args.command == "demo" else None
        settings = load_settings(args.config, beneath=sample.settings if sample else None)
        actors = startup.parse_roles(args.role if args.command in ("run", "check") else "all")
        if args.command == "demo":
            startup.check_data_dir(resolve_data_dir(settings))  # where its keys are kept
            settings = generated_secrets.with_demo_secrets(settings)
        elif args.command in ("run", "check") and settings.runtime.generate_secrets:
            startup.check_data_dir(resolve_data_dir(settings))
            settings = generated_secrets.with_demo_secrets(settings, generated_secrets.GENERATED_SECRETS_FILE)
        if args.command in ("run", "demo", "check"):
            startup.preflight(settings, actors, ports=args.command != "check")  # before the database starts
    except (ConfigError, ListenError) as exc:
        print(f"shopagent: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.command == "check":
        print(f"shopagent: ready to run the roles {args.role}")
        return 0
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
    jobs = {
        "run": lambda: commands.run(settings, actors, scrub),
        "demo": lambda: commands.demo(settings, actors, scrub, SAMPLES[args.sample]),
        "migrate": lambda: commands.migrate(settings),
        "catalog": lambda: commands.catalog_import(settings, args.file, args.format),
        "index": lambda: commands.index(settings, args.action),
        "store-info": lambda: commands.store_pages_import(settings, args.path),
        "mcp": lambda: commands.mcp_stdio(settings),
        "repl": lambda: commands.repl(settings),
        "insights": lambda: commands.insights(settings, args.since, args.limit, args.json),
        "token": lambda: commands.issue_token(settings, args.user_id, args.ttl),
        "eval": lambda: commands.evaluate(settings, args.file, args.assistant, args.json, args.min_hit5, args.split),
    }
    try:
        return anyio.run(jobs[args.command], backend="asyncio") or 0
    except BaseException as exc:
        return _report_failure(exc)


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
    from shopagent.domain.errors import ShopagentError
    from shopagent.runtime.asgi import ListenError, ServerError
    from shopagent.runtime.supervisor import SupervisorError

    # Failures we expect and explain in one line; anything else is a bug and gets a traceback.
    if isinstance(exc, (ShopagentError, SupervisorError, ListenError, ServerError)):
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
