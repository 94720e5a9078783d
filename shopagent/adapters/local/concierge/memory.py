"""What the concierge remembers between turns, and the replies that carry it.

The plan of a turn travels in `provider_state` of the model message that calls the tools,
and the list shown to the customer in that of the answer, so a later turn can point at
"the second one" exactly as it was shown. Another model's searches in the same
conversation count too: their results are taken as shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from shopagent.domain.chat import ChatMessage, FunctionCall, FunctionResponse, ModelReply, Part, TextPart
from shopagent.domain.text import words
from shopagent.domain.tools import DETAILS_TOOL, SEARCH_TOOL, STORE_INFO_TOOL

PROVIDER = "offline-concierge"
STORE_TOOL = STORE_INFO_TOOL
STORE_PASSAGES = 3
LIST_LENGTH = 5


@dataclass
class Shown:
    """The last list the customer saw and the search that produced it."""

    args: dict[str, Any]
    subject: str
    products: list[dict[str, Any]]
    hide_price: bool = False  # its price bounds were derived from prices shown, not said
    before: list[int] = field(default_factory=list)  # productIds shown in the lists before it for the same words
    # what its searches found and it did not show (ranked lower, or graded weak), in the order found
    unshown: list[dict[str, Any]] = field(default_factory=list)
    # the words of what the shopper did not want, which no product listed is named by ("no capsules", "she has a
    # balance bike now": balance), kept for the searches that narrow or widen it ("max 250 euro")
    without: list[str] = field(default_factory=list)


@dataclass
class History:
    shown: Shown | None = None
    detailed: list[int] = field(default_factory=list)  # productIds of the last details answer
    searches: list[dict[str, Any]] = field(default_factory=list)  # every search's arguments, oldest first
    lists: list[Shown] = field(default_factory=list)  # every list shown, oldest first (the last is `shown`)
    talked: list[int] = field(default_factory=list)  # productIds of the details answers, latest first
    question: str = ""  # the last question asked of products shown ("is it waterproof?"), for "and the other one?"
    looked_up: dict[int, dict[str, Any]] = field(default_factory=dict)  # the details of products looked up, by id
    store_asked: str = ""  # the question of the shop the last answer was to ("do you have a workshop?"), or none

    def returned_to(
        self, called: set[str], colour: str | None, stemmed: Callable[[str], set[str]], hint: Set[str] = frozenset()
    ) -> int | None:
        """The product of an earlier list the customer returns to ("back to the speaker", "going back to
        the red one"): of the latest list before the one shown with one named by all the `called` stems
        (and coming in `colour`), the one talked about last, else the one alone of them whose name has a
        word of `hint` (the question's other stems: "going back to the hose, is it kink-free?" is the
        "Anti-Kink Garden Hose"), else the first so named."""
        for shown in reversed(self.lists[:-1]):
            named = [
                p for p in shown.products
                if called <= stemmed(str(p.get("name", ""))) and (colour is None or colour in colours_of(p))
            ]  # fmt: skip
            if named:
                talked = [p for p in named if p.get("productId") in self.talked]
                if talked:
                    return int(min(talked, key=lambda p: self.talked.index(p["productId"]))["productId"])
                hinted = [p for p in named if (stemmed(str(p.get("name", ""))) - called) & hint]
                return int((hinted[0] if len(hinted) == 1 else named[0])["productId"])
        return None

    def earlier_of_kind(
        self, kinds: set[str], kinds_of: Callable[[dict[str, Any]], set[str]], position: int | None = None
    ) -> int | None:
        """The product of an earlier list the customer chooses or asks about by its kind ("I'll take the
        jacket" after gloves were shown since the jacket, "ich nehme die erste Schere"): of the latest list
        before the one shown with products of one of `kinds` (`kinds_of`: a product's), the one at
        `position` among those, else the one talked about last, else the first."""
        for shown in reversed(self.lists[:-1]):
            of_kind = [p for p in shown.products if kinds_of(p) & kinds]
            if not of_kind:
                continue
            if position is not None:
                return int(of_kind[position - 1]["productId"]) if 1 <= position <= len(of_kind) else None
            talked = [p for p in of_kind if p.get("productId") in self.talked]
            chosen = min(talked, key=lambda p: self.talked.index(p["productId"])) if talked else of_kind[0]
            return int(chosen["productId"])
        return None

    def earlier_search(self, named: list[str]) -> dict[str, Any] | None:
        """The latest search whose query has all these words: the subject the customer returns to."""
        for args in reversed(self.searches):
            if named and set(named) <= set(words(str(args.get("query", "")))):
                return args
        return None


def history_of(messages: Sequence[ChatMessage]) -> History:
    """What the conversation has shown so far, from its stored tool calls and answers."""
    history = History()
    args: dict[str, Any] = {}
    result: dict[str, Any] = {}
    found: dict[Any, dict[str, Any]] = {}  # the products the searches since the last answer found, by id
    for message in messages:
        for part in message.parts:
            if isinstance(part, FunctionCall) and part.name == SEARCH_TOOL:
                args = part.args
                history.searches.append(args)
            elif isinstance(part, FunctionResponse) and part.name == SEARCH_TOOL and not part.result.get("isError"):
                result = part.result.get("structuredContent") or {}
                found.update((p.get("productId"), p) for p in result.get("products", []))
            elif isinstance(part, FunctionResponse) and part.name == DETAILS_TOOL and not part.result.get("isError"):
                details = part.result.get("structuredContent") or {}
                if isinstance(details.get("productId"), int):
                    history.looked_up[details["productId"]] = details
        plan = state_of(message).get("plan") or {} if message.role == "model" else {}
        if any(isinstance(part, FunctionCall) and part.name == DETAILS_TOOL for part in message.parts):
            history.question = str(plan.get("question") or "")  # (a product shown without a question: none)
        if message.role != "model" or not message.text:
            continue
        state = state_of(message)
        history.store_asked = str(state.get("store_asked") or "")
        # a list may show products of an earlier search of its turn ("red shoes in 42": the red sneakers found
        # in 42 beside the shoes found in other colours)
        by_id, found = found, {}
        if "shown" in state:
            products = [by_id[i] for i in state["shown"] if i in by_id]
            subject = state.get("subject", args.get("query", ""))
            shown_args = state.get("args", args)
            # "anything else?" twice: neither what this list nor what the lists before it for the same words showed
            before = history.shown
            same = before is not None and before.args.get("query") == shown_args.get("query")
            seen = [*before.before, *(int(p["productId"]) for p in before.products)] if before and same else []
            unshown = [p for i, p in by_id.items() if i not in state["shown"]]
            without = [str(w) for w in state.get("without") or []]
            history.shown = Shown(shown_args, subject, products, bool(state.get("hide_price")), seen, unshown, without)
            history.lists.append(history.shown)
            history.detailed = []
            history.question = ""  # (asked of an earlier list)
        elif "detailed" in state:
            history.detailed = [i for i in state["detailed"] if isinstance(i, int)]
            history.talked = [*history.detailed, *(i for i in history.talked if i not in history.detailed)]
        elif "kept" in state:  # a search that found nothing: the list shown before stays
            continue
        elif result and args and not state:  # another model answered from a search: take its results as shown
            history.shown = Shown(args, str(args.get("query", "")), list(result.get("products", []))[:LIST_LENGTH])
            history.lists.append(history.shown)
    return history


def colours_of(product: dict[str, Any]) -> set[str]:
    """The colours a product shown comes in: in stock (a search's), or any of its variations (details')."""
    return {*product.get("availableColors", []), *(str(v.get("color")) for v in product.get("variations", []))}


def state_of(message: ChatMessage) -> dict[str, Any]:
    """What the concierge stored with a message (nothing for another model's messages)."""
    state = message.provider_state or {}
    return state if state.get("provider") == PROVIDER else {}


def decimal_or_none(value: Any) -> Decimal | None:
    """A price from a tool result, or None when it is missing or not a number."""
    try:
        return Decimal(str(value)) if value is not None else None
    except InvalidOperation:
        return None


def search_call(args: dict[str, Any], plan: dict[str, Any], *, also_details: int | None = None) -> ModelReply:
    """Searches the catalog with `args`; `also_details` looks one product up beside it (the
    one talked about, whose own text may already answer the request)."""
    plan = {**plan, "args": args}
    parts: list[Part] = [FunctionCall(name=SEARCH_TOOL, args=args)]
    if also_details is not None:
        parts.append(FunctionCall(name=DETAILS_TOOL, args={"productId": also_details}))
    message = ChatMessage(role="model", parts=parts, provider_state={"provider": PROVIDER, "plan": plan})
    return ModelReply(message=message)


def search_calls(each: list[dict[str, Any]], plan: dict[str, Any]) -> ModelReply:
    """Searches the catalog once for each of several things asked for at once (`plan["each"]`:
    how the answer names each)."""
    parts: list[Part] = [FunctionCall(name=SEARCH_TOOL, args=args) for args in each]
    message = ChatMessage(role="model", parts=parts, provider_state={"provider": PROVIDER, "plan": plan})
    return ModelReply(message=message)


def details_call(
    product_ids: list[int],
    *,
    compare: bool = False,
    question: str = "",
    asked: dict[str, Any] | None = None,
    also: dict[str, str] | None = None,
    called: list[str] | None = None,
    otherwise: list[int] | None = None,
    sized: dict[str, Any] | None = None,
    or_first: bool = False,
    among: list[int] | None = None,
    described: list[str] | None = None,
    described_next: list[int] | None = None,
    described_search: str = "",
    told_elsewhere: str = "",
    lead: str = "",
) -> ModelReply:
    """Looks the products up: to describe them, compare them, or answer `question` about them
    (`asked` holds the colours, sizes or stock the question named; `also` its words in the
    catalog's language, each shopper's word -> the catalog's; `called`: the question is about
    the first of them that is what these words say, "the leather ones", else about `otherwise` (or,
    `or_first`, the first of them; those of them `among` the products shown, all, where some are);
    `sized`: "the bigger one" of them, {"ref": "big" or "small", "most": the biggest or smallest,
    "from": the sizes the list was for}; `described`: the question is about those of them whose name or
    text has all these (stemmed) words, the first of them where one is, else about those of `described_next`
    whose text has them, looked up then, else about those the catalog's search for `described_search` finds
    whose text has them, else about `otherwise`; `told_elsewhere`: the thing so called, which no product shown
    was, said before the answer from those found for it; `lead`: a line said before the answer)."""
    calls = [FunctionCall(name=DETAILS_TOOL, args={"productId": i}) for i in product_ids]
    plan: dict[str, Any] = {"compare": compare}
    if lead:
        plan["lead"] = lead
    if sized:
        plan["sized"] = sized
    if question:
        plan.update(question=question, asked=asked or {}, also=also or {})
    if called:
        plan.update(ask_words=called, otherwise=otherwise or [], or_first=or_first, among=among or [])
    if described:
        plan.update(described=described, otherwise=otherwise or [], described_next=described_next or [],
                    described_search=described_search, told_elsewhere=told_elsewhere)  # fmt: skip
    state = {"provider": PROVIDER, "plan": plan}
    return ModelReply(message=ChatMessage(role="model", parts=list(calls), provider_state=state))


def say(text: str, **state: Any) -> ModelReply:
    # Always marked as the concierge's: a reply of its own with nothing shown ("Which product do you mean?",
    # "You're welcome") keeps the list, where another model's answer after a search is taken as showing it.
    provider_state: dict[str, Any] = {"provider": PROVIDER, **state}
    if "shown" in state:
        provider_state["shown"] = [p.get("productId") for p in state["shown"]]
    return ModelReply(message=ChatMessage(role="model", parts=[TextPart(text)], provider_state=provider_state))


def store_call(query: str, plan: dict[str, Any]) -> ModelReply:
    """Searches the shop's own pages (shipping, returns, payment…) for `query`."""
    args = {"query": query, "limit": STORE_PASSAGES}
    call = FunctionCall(name=STORE_TOOL, args=args)
    state = {"provider": PROVIDER, "plan": {**plan, "store": True, "store_query": query}}
    return ModelReply(message=ChatMessage(role="model", parts=[call], provider_state=state))
