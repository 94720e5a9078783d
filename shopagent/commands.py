"""Each CLI command wired: the services it needs opened (and closed), then its body in
`shopagent.entrypoints.cli`. `shopagent.__main__` dispatches here once the arguments parse."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from functools import partial
from pathlib import Path

import anyio
import msgspec
from msgspec.structs import replace

from shopagent import bootstrap
from shopagent.application.catalog import import_if_empty
from shopagent.application.index_runs import wait_until_indexed
from shopagent.application.store_pages import import_pages
from shopagent.domain.catalog import ProductInput
from shopagent.domain.errors import ConfigError
from shopagent.entrypoints import cli
from shopagent.entrypoints.catalog_files import CsvFormat, read_catalog_file
from shopagent.entrypoints.http.pictures import picture_url
from shopagent.entrypoints.import_records import Parsed
from shopagent.entrypoints.store_page_files import read_store_pages
from shopagent.runtime.signals import StopRequest, cancel_on_signals
from shopagent.sample_data import DEFAULT_SAMPLE, SAMPLES, Sample
from shopagent.settings import Settings, resolve_data_dir
from shopagent.wiring.assistant import open_agent
from shopagent.wiring.database import open_database, prepare_schema
from shopagent.wiring.generated_secrets import GENERATED_SECRETS_FILE, demo_secret
from shopagent.wiring.policies import embedding_model_id
from shopagent.wiring.providers import option_words
from shopagent.wiring.services import CoreServices, SearchServices, open_core, open_indexer, open_search, open_services
from shopagent.wiring.startup import INDEXER_ACTORS, preflight_mcp

log = logging.getLogger("shopagent")
MCP = frozenset({"mcp"})  # the actor set that opens the search (and the in-process MCP server)


@contextlib.asynccontextmanager
async def open_search_only(settings: Settings) -> AsyncIterator[SearchServices]:
    """The search over the catalog (and the in-process MCP server), without the indexer."""
    async with open_core(settings, MCP) as core, open_search(core) as searching:
        yield searching


async def run(settings: Settings, actors: frozenset[str], scrub: Callable[[str], str]) -> None:
    if settings.runtime.generate_secrets:
        where = resolve_data_dir(settings) / GENERATED_SECRETS_FILE
        log.info("keys the environment does not set are the generated ones in %s", where)
    await preflight_mcp(settings, actors)
    await bootstrap.serve(settings, actors, scrub=scrub)


async def demo(
    settings: Settings, actors: frozenset[str], scrub: Callable[[str], str], sample: Sample = SAMPLES[DEFAULT_SAMPLE]
) -> None:
    async def banner(services: CoreServices) -> None:
        status = partial(services.index_status, embedding_model_id(settings))
        waiting = partial(wait_until_indexed, status, on_outage=cli.say_waiting_for_database)
        await cli.print_banner(banner_of(settings, sample), waiting)

    prepare = partial(import_sample_catalog_if_empty, sample=sample)
    await bootstrap.serve(settings, actors, scrub=scrub, prepare=prepare, on_ready=banner)


def banner_of(settings: Settings, sample: Sample = SAMPLES[DEFAULT_SAMPLE]) -> cli.Banner:
    s = settings.secrets
    return cli.Banner(
        http=f"http://{settings.http.host}:{settings.http.port}",
        mcp=f"http://{settings.mcp.host}:{settings.mcp.port}",
        ops=f"http://{settings.ops.host}:{settings.ops.port}",
        admin_key=s.admin_api_key.reveal() if s.admin_api_key else None,
        mcp_key=s.mcp_api_key.reveal() if s.mcp_api_key else None,
        auth_secret=s.auth_secret.reveal() if s.auth_secret else None,
        token_ttl_seconds=settings.chat.token_ttl_seconds,
        data_dir=resolve_data_dir(settings),
        example_query=sample.example_query,
    )


async def import_sample_catalog_if_empty(services: CoreServices, sample: Sample = SAMPLES[DEFAULT_SAMPLE]) -> None:
    await refuse_another_sample(services, sample)
    await _import_sample_catalog(services, sample)
    await _import_sample_store_pages(services, sample)


async def refuse_another_sample(services: CoreServices, sample: Sample) -> None:
    """A catalog holding another sample's products (and none of this one's) is not this sample's
    shop: its settings (colours, sizes) would not fit them, and the two shops mixed would show
    neither. The demo stops, naming a way to run each."""
    held = {product.slug for product in await services.catalog.repository.list(limit=100)}
    if not held or held & _sample_slugs(sample):
        return
    other = next((s for s in SAMPLES.values() if held & _sample_slugs(s)), None)
    if other is None:  # the shop's own products: the demo runs on them as they are
        return
    if services.settings.secrets.database_url is not None:
        where, own = "the database at SHOPAGENT_DATABASE_URL", "an empty database of its own"
    else:
        where = f"the data directory {resolve_data_dir(services.settings)}"
        own = f"a data directory of its own (e.g. SHOPAGENT_DATA_DIR=/tmp/shopagent-{sample.name})"
    flag = "" if other.name == DEFAULT_SAMPLE else f" --sample {other.name}"
    raise ConfigError(
        f"{where} holds the {other.name} sample shop, not the {sample.name} one; run `{cli.command()} demo{flag}` "
        f"on it, or give the {sample.name} sample {own}"
    )


def _sample_slugs(sample: Sample) -> set[str]:
    return {item.slug for item in msgspec.json.decode(sample.catalog.read_bytes(), type=list[_Slugged])}


class _Slugged(msgspec.Struct):
    slug: str


async def _import_sample_store_pages(services: CoreServices, sample: Sample) -> None:
    if await services.store_pages.repository.count() > 0:
        return
    summary = await import_pages(services.store_pages, read_store_pages(sample.store_pages))
    log.info("imported the sample store pages: %d pages", summary.created)
    if summary.rejected:
        log.warning("sample store pages: %d rejected: %s", len(summary.rejected), summary.rejected[:3])


async def _import_sample_catalog(services: CoreServices, sample: Sample) -> None:
    summary = await import_if_empty(services.catalog, partial(sample_catalog, http_base_url(services.settings), sample))
    if summary is None:
        return
    log.info("imported the sample catalog: %d products", summary.created)
    if summary.rejected:
        log.warning("sample catalog: %d product(s) rejected: %s", len(summary.rejected), summary.rejected[:3])


def sample_catalog(base_url: str, sample: Sample = SAMPLES[DEFAULT_SAMPLE]) -> list[Parsed]:
    """A sample's catalog, each product pictured on this server by its category in its first colour."""
    return [
        (where, replace(item, main_image=picture_url(base_url, item.category, _first_color(item)), images=[]))
        if isinstance(item, ProductInput)
        else (where, item)
        for where, item in read_catalog_file(sample.catalog)
    ]


def _first_color(product: ProductInput) -> str | None:
    return product.variations[0].color if product.variations else None


def http_base_url(settings: Settings) -> str:
    """Where a browser on this machine reaches the http server (a wildcard address is reached as localhost)."""
    host = settings.http.host
    wildcard = host in ("0.0.0.0", "::", "")  # noqa: S104 - recognised here, not bound
    host = "localhost" if wildcard else f"[{host}]" if ":" in host else host
    return f"http://{host}:{settings.http.port}"


async def migrate(settings: Settings) -> None:
    async with open_database(settings) as dsn:
        applied = await prepare_schema(dsn, settings)
    cli.report_migrations(applied)


async def catalog_import(settings: Settings, path: Path, format: CsvFormat) -> int:
    # The file is opened (a .json one checked through) before the database starts: one it cannot
    # read costs no start-up.
    file = cli.open_catalog_file(path, format=format, words=option_words(settings))
    if file is None:
        return cli.EXIT_USAGE
    async with open_services(settings, frozenset()) as services:
        summary = await cli.import_catalog_file(services.catalog, path, file)
    return 1 if summary.rejected else 0


async def store_pages_import(settings: Settings, path: Path) -> int:
    pages = cli.open_store_pages(path)
    if pages is None:
        return cli.EXIT_USAGE
    async with open_services(settings, frozenset()) as services:
        summary = await cli.import_store_pages(services.store_pages, path, pages)
    return 1 if summary.rejected else 0


async def index(settings: Settings, action: str) -> int:
    """`index status|retry-failed` need the database alone; `index rebuild` runs the indexer here."""
    actors = INDEXER_ACTORS if action == "rebuild" else frozenset()
    async with open_core(settings, actors) as core:

        async def rebuild(progress: cli.Progress) -> None:
            async with open_search(core) as searching, open_indexer(searching) as indexing:
                total, first = await core.outbox.enqueue_all()
                await bootstrap.drain_index(indexing, first, total, progress, rebuild_vector_index=True)

        status = partial(core.index_status, embedding_model_id(settings))
        return await cli.show_index(status, action, retry_dead=core.outbox.retry_dead, rebuild=rebuild)


async def evaluate(
    settings: Settings,
    path: Path,
    assistant: bool,
    json_out: Path | None,
    min_hit5: float | None,
    split: str | None = None,
) -> int:
    async with open_search_only(settings) as services:
        services.unmet_searches.recording = False  # an evaluation's searches are not shoppers'
        agent = partial(open_agent, services) if assistant else None
        return await cli.evaluate(services.search, services.catalog, path, agent, json_out, min_hit5, split)


async def insights(settings: Settings, since: str, limit: int, as_json: bool) -> int:
    period = cli.insights_period(since, limit)  # checked before the database starts
    if period is None:
        return cli.EXIT_USAGE
    async with open_core(settings, frozenset()) as core:
        cli.show_unmet_searches(await core.unmet_searches.report(period, limit), as_json)
    return 0


async def issue_token(settings: Settings, user_id: str, ttl: int | None) -> int:
    secret = settings.secrets.auth_secret or demo_secret(settings, "auth_secret")
    chat = settings.chat
    return cli.print_token(
        secret.reveal() if secret else None,
        user_id,
        ttl,
        default_ttl=chat.token_ttl_seconds,
        max_ttl=chat.token_max_ttl_seconds,
    )


async def repl(settings: Settings) -> None:
    from shopagent.entrypoints.repl import run_repl

    async with open_search_only(settings) as services:
        services.unmet_searches.recording = False  # the operator's questions, not shoppers'
        async with open_agent(services) as agent:
            await run_repl(agent)


async def mcp_stdio(settings: Settings) -> None:
    """Serve MCP on stdin/stdout; SIGTERM and SIGINT end it like the end of input (the
    embedded PostgreSQL is stopped, exit 0)."""
    from shopagent.entrypoints.mcp.stdio import serve_stdio

    stop = StopRequest()
    async with anyio.create_task_group() as signals:
        with anyio.CancelScope() as serving:
            await signals.start(
                partial(cancel_on_signals, serving, stop, grace_seconds=settings.runtime.shutdown_grace_seconds)
            )
            async with open_search_only(settings) as services:
                await serve_stdio(services.mcp_server)
        signals.cancel_scope.cancel()
