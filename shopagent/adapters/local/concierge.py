"""The offline concierge: a rule-based stand-in for a chat model. It is NOT an LLM.

It makes `shopagent demo` useful without any API key. From the customer's latest message
it extracts colours, sizes, price bounds ("under 80", "between 30 and 50", "at least 100"),
"in stock" and what they are looking for, and calls product-semantic-search; "tell me more
about the second one" (or a product's name) calls get-product-full-details; anything else
gets a polite redirect. On tool results it writes a short answer that quotes names and
prices exactly as the tools returned them. It understands English phrasing only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from shopagent.domain.catalog import CatalogRules
from shopagent.domain.chat import ChatMessage, FunctionCall, FunctionResponse, ModelReply, TextPart, ToolSpec

SEARCH = "product-semantic-search"
DETAILS = "get-product-full-details"

_AMOUNT = r"(?:€\s*|eur\s+)?(\d+(?:[.,]\d{1,2})?)\s*(?:€|eur(?:os?)?\b|euros?\b)?"
_BETWEEN = re.compile(rf"\b(?:between|from)\s+{_AMOUNT}\s*(?:and|to|-)\s*{_AMOUNT}", re.I)
_MAX = re.compile(
    r"\b(?:under|below|less than|cheaper than|up to|at most|no more than|max(?:imum)?|within|budget(?: of| is)?)"
    rf"\s+{_AMOUNT}",
    re.I,
)
_MIN = re.compile(rf"\b(?:over|above|more than|at least|from|starting at|min(?:imum)?)\s+{_AMOUNT}", re.I)
_IN_STOCK = re.compile(r"\b(?:in[ -]stock|available(?: now)?|ready to ship)\b", re.I)
_SIZE_WORDS = re.compile(r"\b(?:in\s+)?(?:eu\s+)?sizes?\s+((?:[a-z0-9]+)(?:\s*(?:,|/|or|and)\s*[a-z0-9]+)*)", re.I)
_BARE_SIZE = re.compile(r"\b(?:in|an?)\s+(XS|S|M|L|XL|XXL|XXXL)\b")  # case-sensitive: "in M", "an XL"
_EU_SIZE = re.compile(r"\b(?:eu\s*(3[6-9]|4[0-6])|(3[6-9]|4[0-6])\s*eu)\b", re.I)
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
             "fifth": 5, "5th": 5, "last": -1}  # fmt: skip
_MORE = re.compile(
    r"\b(?:tell me more about|more (?:about|on|details (?:about|on))|details (?:about|on|of)|what about|"
    r"describe|info(?:rmation)? (?:about|on))\s+(?:the\s+)?(.+)$",
    re.I,
)
_ORDINAL_REF = re.compile(
    r"^(first|1st|second|2nd|third|3rd|fourth|4th|fifth|5th|last|#?\d+)(?:\s+(?:one|item|product))?\b", re.I
)
_FILLER = re.compile(
    r"\b(?:hi|hello|hey|please|thanks|thank you|i'?m looking for|i am looking for|looking for|do you have|"
    r"have you got|show me|i want|i'?d like|i would like|i need|can you find|could you find|find me|"
    r"can i get|search for|some|any|a pair of|pair of|something in|costing|priced|that (?:is|are)|which (?:is|are))\b",
    re.I,
)
_SHOPPING = re.compile(
    r"\b(?:boots?|shoes?|sneakers?|trainers?|sandals?|slides?|loafers?|oxfords?|heels?|flats?|coats?|jackets?|"
    r"parkas?|blazers?|sweaters?|jumpers?|cardigans?|knit\w*|hoodies?|shirts?|t-?shirts?|tees?|tops?|blouses?|"
    r"trousers|pants|jeans|chinos|joggers|shorts|leggings|dress(?:es)?|skirts?|scarf|scarves|gloves?|hats?|beanies?|"
    r"caps?|bags?|backpacks?|belts?|socks?|wear|outfit|clothes|clothing|footwear|gift|present|buy|shop|warm|waterproof|"
    r"rain|winter|summer|beach|hiking|running|office|wedding|party|casual|formal|size|price|cheap|sale|discount)\b",
    re.I,
)
_GREETING = re.compile(r"^\s*(?:hi|hello|hey|good (?:morning|afternoon|evening))\b[\s!.]*$", re.I)


class OfflineConcierge:
    """Implements the ChatModel port with rules instead of a language model."""

    model_id = "offline-concierge"

    def __init__(self, rules: CatalogRules, store_name: str) -> None:
        self._rules = rules
        self._store = store_name
        names = sorted({*rules.colors, *rules.color_aliases}, key=len, reverse=True)
        self._colors = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b", re.I)

    async def aclose(self) -> None:
        """Nothing to release."""

    async def generate(
        self,
        system: str,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        temperature: float | None = None,
    ) -> ModelReply:
        last = messages[-1]
        responses = [p for p in last.parts if isinstance(p, FunctionResponse)]
        if responses:
            return _say(self._describe(responses[0], messages))
        return self._act_on(last.text, messages)

    # -- the customer's words -> a tool call (or a reply) --------------------------------

    def _act_on(self, text: str, messages: Sequence[ChatMessage]) -> ModelReply:
        more = _MORE.search(text.strip())
        if more:
            product_id = self._resolve(more.group(1), messages)
            if product_id is not None:
                return _call(DETAILS, {"productId": product_id})
            if not _last_search_results(messages):
                return _say("Which product do you mean? Tell me what you are looking for and I'll show some options.")
        if _GREETING.match(text):
            return _say(f"Hello! I'm the {self._store} shopping assistant. What are you looking for today?")
        args = self.parse(text)
        if args is None:
            return _say(
                f"I can only help with finding products at {self._store}. Tell me what you are looking for, "
                "for example: waterproof boots in size 42 under 150."
            )
        return _call(SEARCH, args)

    def parse(self, text: str) -> dict[str, Any] | None:
        """Search arguments for a request, or None when it is not about shopping."""
        rest, filters = text, {}
        if match := _BETWEEN.search(rest):
            low, high = sorted((_money(match.group(1)), _money(match.group(2))))
            filters["minPrice"], filters["maxPrice"] = low, high
            rest = _cut(rest, match)
        else:
            if match := _MAX.search(rest):
                filters["maxPrice"] = _money(match.group(1))
                rest = _cut(rest, match)
            if match := _MIN.search(rest):
                filters["minPrice"] = _money(match.group(1))
                rest = _cut(rest, match)
        if match := _IN_STOCK.search(rest):
            filters["inStock"] = True
            rest = _cut(rest, match)
        sizes, rest = self._sizes(rest)
        colors = []
        for match in list(self._colors.finditer(rest)):
            color = self._rules.color(match.group(1))
            if color and color not in colors:
                colors.append(color)
        rest = self._colors.sub(" ", rest)
        if colors:
            filters["colors"] = colors
        if sizes:
            filters["sizes"] = sizes
        intent = " ".join(_FILLER.sub(" ", rest).replace("?", " ").split()).strip(" ,.!-")
        if not filters and not _SHOPPING.search(text):
            return None
        args: dict[str, Any] = {"query": intent or "popular products", "limit": 5}
        if filters:
            args["filters"] = {k: (float(v) if isinstance(v, Decimal) else v) for k, v in filters.items()}
        return args

    def _sizes(self, text: str) -> tuple[list[str], str]:
        found: list[str] = []
        for pattern in (_SIZE_WORDS, _EU_SIZE, _BARE_SIZE):
            for match in list(pattern.finditer(text)):
                raw = next(g for g in match.groups() if g)
                for token in re.split(r"\s*(?:,|/|\bor\b|\band\b)\s*", raw):
                    size = self._rules.size(token)
                    if size and size not in found:
                        found.append(size)
                text = text.replace(match.group(0), " ")
        return found, text

    def _resolve(self, reference: str, messages: Sequence[ChatMessage]) -> int | None:
        """The productId the customer points at: an ordinal or (part of) a name of the last results."""
        products = _last_search_results(messages)
        if not products:
            return None
        reference = reference.strip(" ?.!")
        if ordinal := _ORDINAL_REF.match(reference):
            word = ordinal.group(1).lower().lstrip("#")
            index = _ORDINALS[word] if word in _ORDINALS else int(re.sub(r"\D", "", word) or 0)
            if index == -1:
                return products[-1]["productId"]
            if 1 <= index <= len(products):
                return products[index - 1]["productId"]
            return None
        wanted = set(re.findall(r"\w+", reference.lower())) - {"the", "one", "a", "an"}
        best = max(products, key=lambda p: len(wanted & set(re.findall(r"\w+", p["name"].lower()))))
        return best["productId"] if wanted & set(re.findall(r"\w+", best["name"].lower())) else None

    # -- tool results -> a grounded answer ----------------------------------------------

    def _describe(self, response: FunctionResponse, messages: Sequence[ChatMessage]) -> str:
        result = response.result
        if result.get("isError"):
            return f"Sorry, I could not do that: {result.get('content', 'the catalog did not answer')}"
        data = result.get("structuredContent") or {}
        if response.name == DETAILS:
            return _details(data)
        return _results(data.get("products", []), _last_call_args(messages, SEARCH))


def _results(products: list[dict[str, Any]], args: dict[str, Any]) -> str:
    filters = args.get("filters", {})
    wanted = f"{args.get('query', 'that')}{_describe_filters(filters)}"
    if not products:
        hints = []
        if "colors" in filters:
            hints.append("another colour")
        if "sizes" in filters:
            hints.append("another size")
        if "maxPrice" in filters or "minPrice" in filters:
            hints.append("a wider price range")
        if filters.get("inStock"):
            hints.append("including items that are out of stock")
        hint = " or ".join(hints) if hints else "describing it in other words"
        return f"I couldn't find {wanted}. You could try {hint}."
    lines = [f"Here is what I found for {wanted}:"]
    for number, p in enumerate(products, start=1):
        price = f"{p['effectivePrice']} {p['currency']}"
        if p.get("discountedPrice"):
            price += f" (was {p['price']})"
        stock = ", ".join(p["availableColors"]) or "currently out of stock"
        sizes = f"; sizes {', '.join(p['availableSizes'])}" if p["availableSizes"] else ""
        lines.append(f"{number}. {p['name']} - {price} - {stock}{sizes}")
    lines.append("Ask me about any of them for details.")
    return "\n".join(lines)


def _details(d: dict[str, Any]) -> str:
    price = f"{d['effectivePrice']} {d['currency']}"
    if d.get("discountedPrice"):
        price += f" (was {d['price']})"
    by = f" by {d['brand']}" if d.get("brand") else ""
    parts = [f"{d['name']}{by} ({d['category']}) - {price}."]
    if d.get("description"):
        parts.append(d["description"])
    if d.get("material"):
        parts.append(f"Material: {d['material']}.")
    available = [f"{v['color']} {v['size']} ({v['available']} left)" for v in d["variations"] if v["available"] > 0]
    parts.append(f"Available: {', '.join(available)}." if available else "It is out of stock at the moment.")
    return " ".join(parts)


def _describe_filters(filters: dict[str, Any]) -> str:
    words = []
    if filters.get("colors"):
        words.append(" or ".join(filters["colors"]))
    if filters.get("sizes"):
        words.append("size " + " or ".join(filters["sizes"]))
    if "minPrice" in filters and "maxPrice" in filters:
        words.append(f"between {filters['minPrice']:g} and {filters['maxPrice']:g}")
    elif "maxPrice" in filters:
        words.append(f"up to {filters['maxPrice']:g}")
    elif "minPrice" in filters:
        words.append(f"from {filters['minPrice']:g}")
    if filters.get("inStock"):
        words.append("in stock")
    return f" ({', '.join(words)})" if words else ""


def _last_search_results(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    for message in reversed(messages):
        for part in message.parts:
            if isinstance(part, FunctionResponse) and part.name == SEARCH and not part.result.get("isError"):
                return (part.result.get("structuredContent") or {}).get("products", [])
    return []


def _last_call_args(messages: Sequence[ChatMessage], name: str) -> dict[str, Any]:
    for message in reversed(messages):
        for part in message.parts:
            if isinstance(part, FunctionCall) and part.name == name:
                return part.args
    return {}


def _money(raw: str) -> Decimal:
    try:
        return Decimal(raw.replace(",", "."))
    except InvalidOperation:  # the pattern only admits digits, so this is a bug guard
        return Decimal(0)


def _cut(text: str, match: re.Match[str]) -> str:
    return text[: match.start()] + " " + text[match.end() :]


def _call(name: str, args: dict[str, Any]) -> ModelReply:
    return ModelReply(message=ChatMessage(role="model", parts=[FunctionCall(name=name, args=args)]))


def _say(text: str) -> ModelReply:
    return ModelReply(message=ChatMessage(role="model", parts=[TextPart(text)]))
