"""The CLI commands' bodies: what each command does with the use cases it is given, and the
lines (and exit code) it answers with, for people. Opening the services is
`shopagent.commands`'s."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import msgspec

from shopagent.application.catalog import CatalogService, ImportSummary, import_products
from shopagent.application.index_status import IndexStatus
from shopagent.application.insights import MAX_REPORT_QUERIES
from shopagent.application.store_pages import PageImportSummary, StorePageService, import_pages
from shopagent.domain.errors import ConfigError, ValidationError
from shopagent.domain.insights import UnmetSearches, parse_period
from shopagent.domain.text import OptionWords
from shopagent.domain.tokens import issue_token
from shopagent.entrypoints.catalog_files import CatalogStream, CsvFormat, open_catalog_stream
from shopagent.entrypoints.store_page_files import ParsedPage, read_store_pages

if TYPE_CHECKING:
    from shopagent.application.agent import AssistantAgent
    from shopagent.application.search import CatalogSearch

EXIT_FAILURE = 1
EXIT_USAGE = 2  # as argparse's: the command was given something it cannot use
Progress = Callable[[int, int], None]


def report_migrations(applied: Sequence[object]) -> None:
    print(f"applied {len(applied)} migration(s)" if applied else "the schema is up to date")


async def show_index(
    status: Callable[[], Awaitable[IndexStatus]],
    action: str,
    *,
    retry_dead: Callable[[], Awaitable[int]],
    rebuild: Callable[[Progress], Awaitable[None]],
) -> int:
    """`index status`, `index retry-failed` and `index rebuild`: each ends with the status."""
    if action == "retry-failed":
        print(f"{await retry_dead()} dead-lettered event(s) queued again")
    elif action == "rebuild":
        await rebuild(ProgressBar("indexing"))
    print_index_status(await status())
    return 0


async def evaluate(
    search: CatalogSearch,
    catalog: CatalogService,
    path: Path,
    open_agent: Callable[[], AbstractAsyncContextManager[AssistantAgent]] | None,
    json_out: Path | None,
    min_hit5: float | None,
    split: str | None = None,
) -> int:
    """`eval`: score the search three ways (and the assistant, given `open_agent`) on FILE
    (on its lines of one `split` when given)."""
    from shopagent.application.evaluation import SEARCH_MODES, evaluate_assistant, evaluate_search, product_names
    from shopagent.entrypoints.eval_files import EvalFileError, print_report, read_eval_file, write_json

    names = await product_names(catalog)
    try:
        cases = read_eval_file(path, search, set(names))
    except EvalFileError as exc:
        print(f"shopagent: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if split is not None:
        cases = [case for case in cases if case.split == split]
        if not cases:
            print(f'shopagent: error: {path} has no lines with "split": "{split}"', file=sys.stderr)
            return EXIT_USAGE
    scores = [await evaluate_search(search, cases, mode) for mode in SEARCH_MODES]
    answers = None
    if open_agent is not None:
        async with open_agent() as agent:
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


def print_token(secret: str | None, user_id: str, ttl: int | None, *, default_ttl: int, max_ttl: int) -> int:
    """`token issue`: a chat token for `user_id`, alone on stdout."""
    if secret is None:
        raise ConfigError("set SHOPAGENT_AUTH_SECRET (or run `shopagent demo` once, which generates one)")
    ttl = ttl or default_ttl
    if not 0 < ttl <= max_ttl:
        raise ConfigError(f"--ttl must be 1-{max_ttl} seconds (chat.token_max_ttl_seconds)")
    try:
        print(issue_token(secret, user_id, ttl))
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    return 0


@dataclass(frozen=True, kw_only=True)
class Banner:
    """What the demo's banner shows: where each server listens, with which key."""

    http: str  # http://host:port of the public API
    mcp: str
    ops: str
    admin_key: str | None
    mcp_key: str | None
    auth_secret: str | None
    token_ttl_seconds: int
    data_dir: Path
    example_query: str = "warm winter boots under 200 euros"


def say_waiting_for_database() -> None:
    print("indexing the catalog: the database is unavailable; waiting for it …", flush=True)


async def print_banner(banner: Banner, wait_until_indexed: Callable[[Progress], Awaitable[None]]) -> None:
    """Once the catalog is indexed (with progress meanwhile), the URLs, keys, a token and a
    request to paste: the first answer is then the right one."""
    shown: list[tuple[int, int]] = []

    def progress(indexed: int, total: int) -> None:
        if (indexed, total) not in shown and indexed < total:
            shown.append((indexed, total))
            print(f"indexing the catalog: {indexed}/{total} products …", flush=True)

    print("shopagent is starting: the services are up, the catalog is being indexed.", flush=True)
    await wait_until_indexed(progress)
    admin_key = banner.admin_key or "(disabled)"
    mcp_key = banner.mcp_key or "(none: loopback only)"
    if banner.auth_secret is None:  # the demo generates one when the environment has none
        raise ConfigError("the demo's chat needs SHOPAGENT_AUTH_SECRET")
    demo_token = issue_token(banner.auth_secret, "demo", banner.token_ttl_seconds)
    http = banner.http
    lines = [
        "",
        "shopagent is ready. Press Ctrl-C to stop.",
        f"  chat page  {http}/#token={demo_token}",
        f"  HTTP API   {http}/api",
        f"  admin API  {http}/api/admin/products",
        f"             Authorization: Bearer {admin_key}",
        f"  MCP        {banner.mcp}/mcp",
        f"             Authorization: Bearer {mcp_key}",
        f"  readiness  {banner.ops}/readyz",
        f"  chat       POST {http}/api/assistant-agent/chat",
        f"             Authorization: Bearer {demo_token}",
        f"             (a token for the user 'demo'; mint others with `{command()} token issue USER_ID`)",
        f"  data       {banner.data_dir} (generated demo keys: demo-secrets.json)",
        "",
        "Ask it something:",
        f"  curl -s {http}/api/assistant-agent/chat -H 'Authorization: Bearer {demo_token}' "
        f"""-H 'Content-Type: application/json' -d '{{"query": "{banner.example_query}"}}'""",
        f"or chat in a terminal, in another window: {command()} repl",
        "",
    ]
    print("\n".join(lines), flush=True)


def command() -> str:
    """How this command was started, to repeat in hints: the script's path, or `python -m`."""
    launched = Path(sys.argv[0])
    if launched.name == "__main__.py":
        return f"{sys.executable} -m shopagent"
    return str(launched) if launched.is_absolute() or launched.parent != Path() else launched.name


class ProgressBar:
    """A one-line progress bar on a terminal; a few plain lines otherwise."""

    def __init__(self, label: str, stream: TextIO = sys.stderr, width: int = 30) -> None:
        self.label, self.stream, self.width = label, stream, width
        self._tty = stream.isatty()
        self._last_tenth = -1

    def __call__(self, done: int, total: int) -> None:
        total = max(total, 1)
        if self._tty:
            filled = self.width * done // total
            bar = "#" * filled + "." * (self.width - filled)
            end = "\n" if done >= total else ""
            self.stream.write(f"\r{self.label} [{bar}] {done}/{total}{end}")
            self.stream.flush()
        elif (tenth := 10 * done // total) != self._last_tenth:
            self._last_tenth = tenth
            self.stream.write(f"{self.label}: {done}/{total}\n")


class ImportProgress:
    """An import's progress: products done and the share of the file read, on one line on a
    terminal, else a line per tenth of the file."""

    def __init__(self, label: str, file: CatalogStream, stream: TextIO = sys.stderr) -> None:
        self.label, self.file, self.stream = label, file, stream
        self._tty = stream.isatty()
        self._last = -1
        self._shown = 0

    def __call__(self, done: int) -> None:
        share = self.file.position() / max(self.file.size, 1)
        if self._tty:
            if done >= self._shown + 100 or share >= 1:  # told after each batch written, or each item skipped
                self._shown = done
                self.stream.write(f"\r{self.label}: {done} products, {share:.0%} of the file")
                self.stream.flush()
        elif (tenth := int(10 * share)) != self._last:
            self._last = tenth
            self.stream.write(f"{self.label}: {done} products, {share:.0%} of the file\n")
            self.stream.flush()

    def finish(self, done: int) -> None:
        if self._tty:
            self.stream.write(f"\r{self.label}: {done} products, 100% of the file\n")


def open_catalog_file(
    path: Path, *, format: CsvFormat = "auto", words: OptionWords | None = None
) -> CatalogStream | None:
    """`catalog import FILE`, before any database: the file opened (a .json one checked through,
    a CSV one's encoding read through and its header checked); None (with the reason on stderr)
    when it cannot be read at all (missing, a workbook, unreadable text, a header that does not
    fit, not one JSON array)."""
    try:
        return open_catalog_stream(path, format=format, words=words)
    except ValidationError as exc:
        print(f"shopagent: error: {exc}", file=sys.stderr)
        return None


async def import_catalog_file(
    catalog: CatalogService, path: Path, file: CatalogStream, out: TextIO = sys.stdout
) -> ImportSummary:
    if file.encoding is not None:
        out.write(f"{path.name}: read as {file.encoding} text\n")
    progress = ImportProgress(f"importing {path.name}", file)
    summary = await import_products(catalog, file.records, progress)
    progress.finish(summary.total)
    out.write(
        f"{path.name}: {summary.created} created, {summary.updated} updated, "
        f"{summary.unchanged} unchanged, {len(summary.rejected)} rejected"
        + (f", {len(summary.notes)} note(s)\n" if summary.notes else "\n")
    )
    for where, why in sorted(summary.rejected, key=_row_order):
        out.write(f"  rejected {where}: {why}\n")
    for where, what in sorted(summary.notes, key=_row_order):
        out.write(f"  note {where}: {what}\n")
    return summary


def open_store_pages(path: Path) -> list[ParsedPage] | None:
    """`store-info import PATH`, before any database: its pages; None (with the reason on stderr)
    when PATH cannot be read at all."""
    try:
        return read_store_pages(path)
    except ValidationError as exc:
        print(f"shopagent: error: {exc}", file=sys.stderr)
        return None


async def import_store_pages(
    service: StorePageService, path: Path, items: list[ParsedPage], out: TextIO = sys.stdout
) -> PageImportSummary:
    summary = await import_pages(service, items, ProgressBar(f"importing {path.name}"))
    out.write(
        f"{path.name}: {summary.created} created, {summary.updated} updated, {summary.unchanged} unchanged, "
        f"{len(summary.rejected)} rejected\n"
    )
    for where, why in summary.rejected:
        out.write(f"  rejected {where}: {why}\n")
    return summary


def _row_order(entry: tuple[str, str]) -> int:
    """Where a record is ("row 12 (…)", "line 3", "item 4"), as a number to sort by; 0 when unknown."""
    number = entry[0].split(" ", 2)[1:2]
    return int(number[0]) if number and number[0].isdigit() else 0


def _vector_index(status: IndexStatus) -> str:
    if status.vector_index_ready:
        return f"ready ({status.vector_index_settings})"
    if status.vector_index_build:
        return f"building ({status.vector_index_build}); searches scan every chunk until it is ready"
    return "not built: searches scan every chunk until the indexer builds it (once its backlog drains)"


def _full_text(status: IndexStatus) -> str:
    current = status.text_documents.get(status.text_search_config, 0)
    line = f"{current} of {status.products_total} products in {status.text_search_config}"
    others = {c: n for c, n in status.text_documents.items() if c != status.text_search_config}
    if others:
        line += (
            "; " + ", ".join(f"{n} in {c}" for c, n in others.items()) + " (`shopagent index rebuild` rewrites them)"
        )
    return line


def print_index_status(status: IndexStatus, out: TextIO = sys.stdout) -> None:
    out.write(
        f"model     {status.model}\n"
        f"products  {status.products_indexed} indexed of {status.products_total}\n"
        f"store pages  {status.store_pages_indexed} indexed of {status.store_pages_total}\n"
        f"events    {status.pending} pending, {status.in_flight} in flight, {status.dead} dead-lettered\n"
        f"vector index  {_vector_index(status)}\n"
        f"full text  {_full_text(status)}\n"
    )
    if status.dead_events:
        out.write("dead-lettered events (newest first; `shopagent index retry-failed` retries them):\n")
        for e in status.dead_events:
            out.write(
                f"  #{e['id']} {e['kind']} {e['kind'].partition('.')[0].replace('_', ' ')} {e['productId']}, "
                f"{e['attempts']} failed attempts, "
                f"{e['lostLeases']} lost leases: {e['lastError']}\n"
            )


def insights_period(since: str, limit: int) -> timedelta | None:
    """`insights --since --limit`, checked: the period, or None (with the reason on stderr)."""
    try:
        if not 1 <= limit <= MAX_REPORT_QUERIES:
            raise ValidationError(f"--limit must be from 1 to {MAX_REPORT_QUERIES}")
        return parse_period(since)
    except ValidationError as exc:
        print(f"shopagent: error: {exc}", file=sys.stderr)
        return None


def show_unmet_searches(report: UnmetSearches, as_json: bool, out: TextIO = sys.stdout) -> None:
    if as_json:
        out.write(msgspec.json.encode(report).decode() + "\n")
    else:
        print_unmet_searches(report, out)


def print_unmet_searches(report: UnmetSearches, out: TextIO = sys.stdout) -> None:
    """`insights`: the queries that found nothing strong, most frequent first, as a table."""
    when = "%Y-%m-%d %H:%M"
    out.write(
        f"{report.total_searches} search(es) found nothing strong from {report.since.strftime(when)} to "
        f"{report.until.strftime(when)} UTC ({len(report.queries)} distinct queries shown; "
        f"kept {report.retention_days} days)\n"
    )
    if not report.queries:
        return
    tools = max(5, *(len(", ".join(q.tools)) for q in report.queries))
    out.write(f"{'searches':>8}  {'best':<7}  {'last searched':<16}  {'tools':<{tools}}  query\n")
    for q in report.queries:
        out.write(
            f"{q.searches:>8}  {q.best_match or '-':<7}  {q.last_searched_at.strftime(when):<16}  "
            f"{', '.join(q.tools):<{tools}}  {q.query}\n"
        )
