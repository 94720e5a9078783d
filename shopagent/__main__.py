"""The `shopagent` command line: parses arguments, then hands over to bootstrap."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import NoReturn

import anyio

from shopagent import __version__, bootstrap
from shopagent.domain.errors import ConfigError, ShopagentError
from shopagent.runtime.asgi import ListenError, ServerError
from shopagent.runtime.logging import Scrubber, configure_logging
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings(args.config)
        actors = bootstrap.parse_roles(args.role if args.command == "run" else "all")
    except ConfigError as exc:
        print(f"shopagent: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    scrub = Scrubber(settings.secrets.values())
    configure_logging(
        settings.logging.level,
        settings.logging.format,
        secrets=settings.secrets.values(),
        access_log=settings.logging.access_log,
    )
    if args.command == "migrate":
        job = partial(_migrate, settings)
    else:
        on_ready = partial(_print_banner, settings) if args.command == "demo" else None
        job = partial(bootstrap.serve, settings, actors, scrub=scrub, on_ready=on_ready)
    try:
        anyio.run(job, backend="asyncio")
    except BaseException as exc:
        return _report_failure(exc)
    return 0


async def _migrate(settings: Settings) -> None:
    async with bootstrap.open_database(settings) as dsn:
        applied = await bootstrap.prepare_schema(dsn, settings)
    print(f"applied {len(applied)} migration(s)" if applied else "the schema is up to date")


def _print_banner(settings: Settings, services: bootstrap.Services) -> None:
    lines = [
        "",
        "shopagent is running. Press Ctrl-C to stop.",
        f"  HTTP API   http://{settings.http.host}:{settings.http.port}/api",
        f"  MCP        http://{settings.mcp.host}:{settings.mcp.port}/mcp",
        f"  readiness  http://{settings.ops.host}:{settings.ops.port}/readyz",
        f"  data       {resolve_data_dir(settings)}",
        "",
    ]
    print("\n".join(lines), flush=True)


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


if __name__ == "__main__":
    sys.exit(main())
