"""The MCP tool surface: `product-semantic-search`, `get-product-full-details` and
`search-store-information`.

Built on the SDK's low-level server, which does not validate arguments: we decode them with
msgspec and the domain rules ourselves, so every bad argument becomes a tool result with
`isError: true` and a message the model can act on — never a protocol error, never an
internal detail. Results carry structured content (matching the declared output schema)
and the same JSON as a text block for clients that read only text.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from decimal import Decimal
from functools import partial
from typing import Annotated, Any

import mcp.types as types
import msgspec
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from shopagent import __version__
from shopagent.application.search import CatalogSearch
from shopagent.application.store_pages import StoreInformationSearch
from shopagent.domain.catalog import CatalogRules
from shopagent.domain.errors import DatabaseUnavailable, EmbeddingError, NotFound, ValidationError
from shopagent.domain.inputs import split
from shopagent.domain.tools import DETAILS_TOOL, SEARCH_TOOL, STORE_INFO_TOOL
from shopagent.entrypoints.mcp.schemas import details_schemas, search_schemas
from shopagent.entrypoints.mcp.store_tool import StoreInfoArgs, store_info_description, store_info_schemas

log = logging.getLogger("shopagent.mcp")

MAX_ID = 2**63 - 1  # product ids are 64-bit


class _Args(msgspec.Struct, forbid_unknown_fields=True, rename="camel", kw_only=True):
    pass


class SpecRange(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    min: float | None = None
    max: float | None = None
    equals: bool | float | str | None = None


class FilterArgs(_Args):
    colors: list[str] = msgspec.field(default_factory=list)
    sizes: list[str] = msgspec.field(default_factory=list)
    min_price: Decimal | None = None
    max_price: Decimal | None = None
    in_stock: bool = False
    options: dict[str, list[str]] = msgspec.field(default_factory=dict)
    specs: dict[str, SpecRange] = msgspec.field(default_factory=dict)


class SearchArgs(_Args):
    query: str
    limit: int = 5
    filters: FilterArgs | None = None


class DetailsArgs(_Args):
    product_id: Annotated[int, msgspec.Meta(ge=1, le=MAX_ID)]


def search_description(store: str, currency: str, rules: CatalogRules | None = None) -> str:
    kinds = [
        k for k, given in (("colours", rules is None or rules.colors), ("sizes", rules is None or rules.sizes)) if given
    ]
    variation = ", ".join([*kinds, "options", "specs"])
    return (
        f"Search the {store} catalog. Use it whenever the customer describes what they want, by name or by need "
        "(what it is, what it is for, how it should be), in their own words and language; misspelt "
        "words and everyday or foreign words for things are mapped to the catalog's (see `corrections`). Put hard "
        f"constraints in `filters`, not in the query: {variation}, a price range, in stock only. Returns up to "
        "`limit` products (default 5), best first, each with productId, name, category, price, discountedPrice "
        "(null when not discounted), effectivePrice (what the customer pays; price filters apply to it; "
        f'`priceFrom` true when its variations differ in price, then say "from"), currency ({currency}), rating, '
        f"the {' and '.join([*kinds, 'options'])} in stock, `url` (its page in the shop: link it when recommending), "
        "and for the asked variation (any when none was asked) `inStock` and `availableQuantity`, so you can say "
        f'"sold out in that one". Every variation filter and the price range are checked on the same variation. '
        "Each product has a `match` grade, from a model of how likely a shop assistant would accept it for "
        "this request: `strong` = likely what was asked for; `partial` = a close alternative (the kind of "
        "thing asked for with a detail that differs, or related in meaning), check it fits before "
        "recommending; `weak` = only loosely related, do not present it as a match. Measured on held-out "
        "judged shopper queries of seven shops: 67 % of strong, 17 % of partial and 5 % of weak hits were "
        "right answers. Strong first, then partial, then weak; within a grade, products that can be bought "
        "come before sold-out ones. `noStrongMatch: true` means nothing strong was found (on those queries it "
        "was set for 33 % of the requests the shop could serve and 73 % of those it could not): say the shop "
        "may not carry exactly that and offer partial matches as alternatives; do not say it has nothing "
        "of the kind. `corrections` lists misspellings corrected and synonyms applied (shopper's word -> "
        'searched word); `misspelt` says which of them were misspellings: ask "did you mean …?" for those '
        "only. Quote names and prices exactly as returned. "
        f"Do not call {DETAILS_TOOL} for every hit, only for products the customer asks about. "
        "If nothing comes back, say so and relax a filter."
    )


def details_description(store: str, currency: str) -> str:
    return (
        f"Everything about one {store} product: description, brand, material, category, rating, images, "
        f"price, discountedPrice and effectivePrice in {currency}, its specs (named facts such as capacity or "
        "weight, also as text in specText), its page `url`, and every variation with its colour, size and other "
        "options, price, available quantity, weight, SKU, own specs and a basket link (`url`). Use it when the "
        "customer asks about a specific product from the search results (what it is made of, how big, what a "
        f"variation costs, whether one is left). productId comes from {SEARCH_TOOL}; an unknown id returns an error."
    )


Handler = Callable[[dict[str, Any]], Awaitable[Any]]


# Told of every tool call: (tool, outcome, seconds); for metrics.
ToolObserver = Callable[[str, str, float], None]
# Told of every search that found nothing strong: (tool, query, best grade found or None).
UnmetSearch = Callable[[str, str, str | None], Awaitable[None]]


@dataclass(frozen=True)
class ToolAnswer:
    """One tool call's answer, before any wire format: the result encoded once as JSON (the text
    block's text, and `structuredContent` decoded from it or embedded as it is), or the message
    of a tool error."""

    text: str
    is_error: bool
    outcome: str  # ok, invalid, unavailable or internal_error (the metrics' label)
    json: bytes = b""  # the result encoded once (empty for an error)

    def structured(self) -> Any:
        return None if self.is_error else msgspec.json.decode(self.json)


class CatalogTools:
    """The tools' handlers behind both MCP entries: the SDK's server (`call_tool` below) and the
    HTTP fast path (`fast_path.py`), so both answer a call alike and count it alike."""

    def __init__(self, handlers: dict[str, Handler], observe: ToolObserver | None) -> None:
        self._handlers = handlers
        self._observe = observe
        self.names = frozenset(handlers)

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolAnswer:
        """The answer of a known tool (see `names`); never raises but for cancellation."""
        started = time.perf_counter()
        outcome = "internal_error"
        try:
            answer = await _answer(name, self._handlers[name], arguments)
            outcome = answer.outcome
            return answer
        finally:  # a cancelled call counts as the internal error it is to the client
            if self._observe is not None:
                self._observe(name, outcome, time.perf_counter() - started)

    def unknown(self, name: str) -> MCPError:
        """The protocol error for an unknown tool, as the MCP specification says (not a tool result)."""
        if self._observe is not None:
            self._observe("unknown", "unknown_tool", 0.0)
        return MCPError(types.INVALID_PARAMS, f"unknown tool {name!r}; the tools are {', '.join(self._handlers)}")


class CatalogServer(Server[Any]):
    """The SDK's low-level server with our tools, which it carries for the HTTP fast path."""

    def __init__(self, tools: CatalogTools, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tools = tools


def build_mcp_server(
    search: CatalogSearch,
    store_name: str,
    currency: str,
    *,
    observe: ToolObserver | None = None,
    store_information: StoreInformationSearch | None = None,
    on_unmet: UnmetSearch | None = None,
) -> CatalogServer:
    """The tools over `search`, and `search-store-information` over `store_information` when given.
    `on_unmet` is told of each search of either that found nothing strong, before it answers."""
    rules = search.rules
    search_in, search_out = search_schemas(list(rules.colors), list(rules.sizes), currency, rules.spec_units)
    details_in, details_out = details_schemas(currency)
    tools = [
        types.Tool(
            name=SEARCH_TOOL,
            title="Search products",
            description=search_description(store_name, currency, rules),
            input_schema=search_in,
            output_schema=search_out,
            annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
        ),
        types.Tool(
            name=DETAILS_TOOL,
            title="Product details",
            description=details_description(store_name, currency),
            input_schema=details_in,
            output_schema=details_out,
            annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
        ),
    ]

    async def run_search(arguments: dict[str, Any]) -> Any:
        args = _decode(arguments, SearchArgs)
        f = args.filters or FilterArgs()
        request = search.request(
            args.query,
            args.limit,
            colors=f.colors,
            sizes=f.sizes,
            min_price=f.min_price,
            max_price=f.max_price,
            in_stock=f.in_stock,
            options=f.options,
            specs={name: msgspec.structs.asdict(bounds) for name, bounds in f.specs.items()},
        )
        result = await search.search(request)
        if result.no_strong_match and on_unmet is not None:
            await on_unmet(SEARCH_TOOL, request.query, result.best_match)
        return result

    async def run_details(arguments: dict[str, Any]) -> Any:
        return await search.details(_decode(arguments, DetailsArgs).product_id)

    handlers: dict[str, Handler] = {SEARCH_TOOL: run_search, DETAILS_TOOL: run_details}
    if store_information is not None:
        tools.append(_store_info_tool(store_name))
        handlers[STORE_INFO_TOOL] = partial(_run_store_info, store_information, on_unmet)
    catalog_tools = CatalogTools(handlers, observe)
    listing = types.ListToolsResult(tools=tools)  # built once: the tools never change
    input_schemas = {tool.name: tool.input_schema for tool in tools}

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return listing

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in catalog_tools.names:
            raise catalog_tools.unknown(params.name)
        answer = await catalog_tools.call(params.name, params.arguments or {})
        content: list[types.ContentBlock] = [types.TextContent(type="text", text=answer.text)]
        if answer.is_error:
            return types.CallToolResult(content=content, is_error=True)
        return types.CallToolResult(content=content, structured_content=answer.structured())

    instructions = (
        f"Catalog tools of {store_name}. Find products with {SEARCH_TOOL}; fetch one product's full "
        f"details with {DETAILS_TOOL}. Prices are in {currency}."
        + (f" Answer questions about the shop itself with {STORE_INFO_TOOL}." if store_information else "")
    )
    return CatalogServer(
        catalog_tools,
        "shopagent",
        version=__version__,
        title=f"{store_name} catalog",
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        # Without it the Streamable HTTP transport runs the whole tools/list for every call
        # (to check Mcp-Param headers against the tool's input schema).
        get_tool_input_schema=input_schemas.get,
    )


def _store_info_tool(store_name: str) -> types.Tool:
    inputs, outputs = store_info_schemas()
    return types.Tool(
        name=STORE_INFO_TOOL,
        title="Search store information",
        description=store_info_description(store_name),
        input_schema=inputs,
        output_schema=outputs,
        annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )


async def _run_store_info(
    store_information: StoreInformationSearch, on_unmet: UnmetSearch | None, arguments: dict[str, Any]
) -> Any:
    args = _decode(arguments, StoreInfoArgs)
    result = await store_information.search(args.query, args.limit)
    if result.no_strong_match and on_unmet is not None:
        best = result.passages[0].grade if result.passages else None
        await on_unmet(STORE_INFO_TOOL, args.query, best)
    return result


async def _answer(name: str, handler: Handler, arguments: dict[str, Any]) -> ToolAnswer:
    """The tool's answer; every failure becomes a tool error the model can read."""
    try:
        result = await handler(arguments)
        encoded = msgspec.json.encode(result)
    except (ValidationError, NotFound) as exc:
        return ToolAnswer(str(exc), True, "invalid")
    except DatabaseUnavailable:
        log.warning("tool %s failed: the database is unavailable", name)
        message = "the catalog is temporarily unavailable (its database cannot be reached); try again shortly"
        return ToolAnswer(message, True, "unavailable")
    except EmbeddingError:
        log.warning("search failed: the embedding model is unavailable", exc_info=True)
        message = "search is unavailable for a moment (the embedding service failed); try again shortly"
        return ToolAnswer(message, True, "unavailable")
    except Exception:
        log.exception("tool %s failed", name)
        message = "the catalog could not be searched because of an internal error; try again later"
        return ToolAnswer(message, True, "internal_error")
    return ToolAnswer(encoded.decode(), False, "ok", encoded)


def _decode(arguments: dict[str, Any], kind: type[msgspec.Struct]) -> Any:
    try:
        return msgspec.convert(arguments, kind)
    except msgspec.ValidationError as exc:
        where, what = split(exc)
        raise ValidationError(
            f"invalid argument `{where}`: {what}" if where else f"invalid arguments: {what}"
        ) from None
