"""What the structured fields of a product answer: its weight (in the size asked or listed), its
stock per colour, size or option, its prices per variation, whether it is on sale, and a link to
buy it. The description answers the rest (facts.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from shopagent.adapters.local.concierge import asking as ask
from shopagent.adapters.local.concierge.product_data import (
    grams_of,
    grams_text,
    made_in,
    named_variations,
    price_said,
    stock_item,
    variant_text,
    weight_by_variation,
    weights_of,
)
from shopagent.adapters.local.concierge.replies import Replies
from shopagent.domain.prices import price_text

_LISTED = 8  # variations named in a stock answer


class StructuredFacts:
    """Answers from a product's structured fields, in the store language."""

    def __init__(self, replies: Replies, locale: str) -> None:
        self._say_in = replies
        self._locale = locale

    def answer(
        self,
        kind: str,
        folded: str,
        found: list[dict[str, Any]],
        asked: Mapping[str, Any],
        colour: Callable[[str], str],
        variation: Callable[[Mapping[str, Any]], str],
    ) -> list[str] | None:
        """The lines answering a question of this kind (folded), or None when the structured
        fields do not answer it (then the text does)."""
        r = self._say_in
        lines: list[str] = []
        if kind == "buy":
            return [self.offer(d, named_variations(folded, d, asked), colour) for d in found]
        if kind == "pick":
            return self.pick(found, asked.get("fitting") or []) if len(found) >= 2 else None
        if kind == "weight":
            sizes = asked.get("sizes") or asked.get("listSizes") or []
            lines += [self.weight(d, sizes) for d in found]
            weighed = [(w, d) for d in found if (w := grams_of(d, sizes)) is not None]
            if len(weighed) >= 2 and ask.LIGHTER.search(folded):
                lines.append(r.lightest.format(name=min(weighed, key=lambda x: x[0])[1]["name"]))
            return lines
        if kind == "discount":
            return [self.discount(d, colour) for d in found]
        if kind == "price" and any(named_variations(folded, d, asked) for d in found):
            return [self.variation_prices(d, named_variations(folded, d, asked), colour) for d in found]
        if kind == "price" and not asked.get("colors") and not asked.get("sizes"):
            lines += [self.variation_prices(d, d.get("variations", []), colour) for d in found]
            priced = [(Decimal(str(d["effectivePrice"])), d) for d in found if d.get("effectivePrice") is not None]
            currencies = {d.get("currency") for _, d in priced}
            if (
                len(priced) >= 2
                and len(priced) == len(found)
                and len(currencies) == 1
                and ask.PRICE_TOTAL.search(folded)
            ):
                # "the brush and the shampoo together, what's the total": their sum (at the prices said above:
                # the lowest, "from", where its variations differ)
                total = price_text(sum(p for p, _ in priced), str(currencies.pop()), self._locale)
                lines.append(r.cost_together.format(amount=total))
            elif (
                len(priced) == 2
                and ask.PRICE_DIFFERENCE.search(folded)
                and priced[0][1].get("currency") == priced[1][1].get("currency")
            ):
                # "what's the price difference between the two?": how much more the dearer one costs (at the
                # prices said above: the lowest, "from", where its variations differ)
                (cheap, cheaper), (dear, dearer) = sorted(priced, key=lambda x: x[0])
                if dear > cheap:
                    amount = price_text(dear - cheap, str(dearer.get("currency")), self._locale)
                    lines.append(r.costs_more.format(dearer=dearer["name"], amount=amount, cheaper=cheaper["name"]))
            elif len(priced) >= 2 and ask.CHEAPER.search(folded):
                lines.append(r.cheapest.format(name=min(priced, key=lambda x: x[0])[1]["name"]))
            elif len(priced) >= 2 and ask.DEARER.search(folded):
                lines.append(r.dearest.format(name=max(priced, key=lambda x: x[0])[1]["name"]))
            return lines
        filtered = (asked.get("colors") or asked.get("sizes")) and not asked.get("property")
        if filtered or asked.get("inStock") or kind == "stock":
            return [self.stock(d, asked, colour, variation, folded) for d in found]
        return None

    def weight(self, d: dict[str, Any], sizes: list[str]) -> str:
        """What it weighs: in the sizes asked about (or the list was for) when those have a weight."""
        grams = weights_of(d, sizes)
        if not grams:
            return self._say_in.not_told.format(name=d["name"])
        weight = grams_text(grams[0]) if len(grams) == 1 else f"{grams_text(grams[0])}\u2013{grams_text(grams[-1])}"
        if len(grams) > 1 and (each := weight_by_variation(d, sizes)):
            weight = ", ".join(f"{grams_text(g)} ({label})" for g, label in each)  # "8.6 kg (10 l), 17.2 kg (20 l)"
        return self._say_in.weighs.format(name=d["name"], weight=weight)

    def stock(
        self,
        d: dict[str, Any],
        asked: Mapping[str, Any],
        colour: Callable[[str], str],
        variation: Callable[[Mapping[str, Any]], str],
        question: str,
    ) -> str:
        r = self._say_in
        what = variation(asked)
        colours, sizes = asked.get("colors") or [], asked.get("sizes") or []
        named = {id(v) for v in named_variations(question, d, {})}
        fitting = [
            v for v in d.get("variations", [])
            if (not colours or v.get("color") in colours) and (not sizes or v.get("size") in sizes)
            and (not named or id(v) in named)
        ]  # fmt: skip
        if named and not colours and not sizes:
            what = what or f" ({', '.join(dict.fromkeys(variant_text(v, colour) for v in fitting))})"
        if colours and not fitting and not any(v.get("color") for v in d.get("variations", [])):
            # "gibt es die auch in grün?" of a galvanised watering can: it comes in no colours (not "not now"), and
            # what there is of it
            line = r.no_colours.format(name=d["name"])
            if others := [v for v in d.get("variations", []) if v.get("available", 0) > 0]:
                line += " " + r.available.format(items=", ".join(stock_item(r, v, colour) for v in others[:6]))
            return line
        if not fitting and (made := made_in(d, colours, sizes, colour)):
            variations = d.get("variations", [])
            if colours and sizes and not any(v.get("color") in colours for v in variations):
                # "is the blue one in stock in M?" of a jacket made in M but not in blue: the colour is what it
                # does not come in, and what there is in M is said too
                colour_only = variation({"colors": colours})
                line = r.not_made_in.format(name=d["name"], what=colour_only, options=", ".join(made))
                in_size = [v for v in variations if v.get("size") in sizes and v.get("available", 0) > 0]
                if in_size:
                    line += " " + r.available.format(items=", ".join(stock_item(r, v, colour) for v in in_size[:6]))
                return line
            return r.not_made_in.format(name=d["name"], what=what, options=", ".join(made))  # never, not "not now"
        available = [v for v in fitting if v.get("available", 0) > 0]
        if available and not (colours or sizes or named) and ask.COLOURS_ASKED.search(question):
            # "which colours does the second come in?": its colours to be had, not each size of each
            to_have = dict.fromkeys(colour(str(v["color"])) for v in available if v.get("color"))
            if to_have:
                return r.comes_in.format(name=d["name"], sizes=", ".join(to_have))
        if not available and not (colours or sizes or named) and ask.COLOURS_ASKED.search(question):
            # "what colours does it come in?" of one sold out: the colours it is made in, and that none is left
            colours_made = dict.fromkeys(colour(str(v["color"])) for v in fitting if v.get("color"))
            if colours_made:
                line = r.comes_in.format(name=d["name"], sizes=", ".join(colours_made))
                return f"{line} {r.stock_no.format(name=d['name'], what=what)}"
        if available:
            items = ", ".join(stock_item(r, v, colour) for v in available[:_LISTED])
            if len(available) > _LISTED:  # (the rest counted, not left out unsaid)
                items = r.more_variations.format(items=items, count=len(available) - _LISTED)
            return r.stock_yes.format(name=d["name"], what=what, items=items)
        others = [v for v in d.get("variations", []) if v.get("available", 0) > 0]
        line = r.stock_no.format(name=d["name"], what=what)
        if others and (colours or sizes):
            items = ", ".join(stock_item(r, v, colour) for v in others[:6])
            line += " " + r.available.format(items=items)
        return line

    def pick(self, found: list[dict[str, Any]], fitting: list[int]) -> list[str]:
        """ "which one would you pick?": the first of them that can be bought (they come in the order shown,
        the best fit to the request first), and the cheapest of the others where it costs less, of those that
        fit the request (`fitting`, the ids of the strong matches; all of them where none is)."""
        r = self._say_in
        for_sale = [d for d in found if any(v.get("available", 0) > 0 for v in d.get("variations", []))] or found
        best = for_sale[0]
        if fitting and best.get("productId") in fitting:
            for_sale = [d for d in for_sale if d.get("productId") in fitting]  # not a T-shirt "close" to linen shirts
        lines = [r.pick.format(name=best["name"], price=price_said(best, r, self._locale))]
        if best.get("effectivePrice") is None:
            return lines
        priced = [d for d in for_sale[1:] if d.get("effectivePrice") is not None]
        cheaper = min(priced, key=lambda d: Decimal(str(d["effectivePrice"])), default=None)
        if cheaper is not None and Decimal(str(cheaper["effectivePrice"])) < Decimal(str(best["effectivePrice"])):
            lines.append(r.pick_cheaper.format(name=cheaper["name"], price=price_said(cheaper, r, self._locale)))
        return lines

    def variation_prices(
        self, d: dict[str, Any], variations: list[dict[str, Any]], colour: Callable[[str], str]
    ) -> str:
        """What the product costs: one price, or each (named) variation's when they differ."""
        r = self._say_in
        prices = {
            price_said(v, r, self._locale, d["currency"]): None
            for v in variations
            if v.get("effectivePrice") is not None
        }
        if len(prices) <= 1:
            return r.costs.format(name=d["name"], price=next(iter(prices), None) or price_said(d, r, self._locale))
        each = dict.fromkeys(
            f"{variant_text(v, colour)} {price_said(v, r, self._locale, d['currency'])}" for v in variations
        )
        return r.costs_each.format(name=d["name"], prices=", ".join(list(each)[:8]))

    def discount(self, d: dict[str, Any], colour: Callable[[str], str]) -> str:
        """Whether it is on sale: its sale price (was …), the variations that are, or that it is not."""
        r = self._say_in
        variations = d.get("variations", [])
        on_sale = [v for v in variations if v.get("discountedPrice")]
        if on_sale and len(on_sale) < len(variations):
            prices = dict.fromkeys(
                f"{variant_text(v, colour)} {price_said(v, r, self._locale, d['currency'])}" for v in on_sale
            )
            return r.on_sale_some.format(name=d["name"], prices=", ".join(list(prices)[:8]))
        if on_sale or d.get("discountedPrice"):
            return r.on_sale.format(name=d["name"], price=price_said(d, r, self._locale))
        return r.not_discounted.format(name=d["name"], price=price_said(d, r, self._locale))

    def offer(self, d: dict[str, Any], named: list[dict[str, Any]], colour: Callable[[str], str]) -> str:
        """A link to buy: the basket link of the one variation meant (named, or the only one that can be
        bought), else the product's page."""
        r = self._say_in
        available = [v for v in d.get("variations", []) if v.get("available", 0) > 0]
        candidates = [v for v in named if v.get("available", 0) > 0] or (available if not named else [])
        if len(candidates) == 1 and candidates[0].get("url"):
            text = variant_text(candidates[0], colour)
            return r.buy_here.format(name=d["name"], what=f" ({text})" if text else "", url=candidates[0]["url"])
        if d.get("url"):
            return r.see_here.format(name=d["name"], url=d["url"])
        return r.no_link.format(name=d["name"])
