"""The catalog's own words, for reading a shopper's query: misspellings corrected against the
names, brands, categories and materials (`Vocabulary.correct`), so a misspelling finds the product
it meant in any trade and any language; shoppers' words and phrases rewritten into the catalog's
(`Synonyms`); and the rarest words to match the full-text leg on."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Container, Iterator, Mapping, Sequence
from itertools import combinations

from rapidfuzz import process
from rapidfuzz.distance import OSA

from shopagent.domain.needs import NO_NEEDS, Needs
from shopagent.domain.text import MAX_QUERY_TERMS, QueryTerms, words

_NARROWING_SHARE = 0.2  # a word in more of the catalog's products than this share joins no match group
_MAX_GROUPED_WORDS = 6  # the rarest words match groups are made of (at most 20 groups of three)
_COMPOUND_PART = 4  # letters each part of a compound word has at least
_LINKS = ("s", "e", "n", "en", "es")  # what may join a compound's parts: Hunde-bett, Katzen-streu
_UMLAUT_WRITTEN_OUT = re.compile("(?<=[aou])e")  # German without umlauts: "fuer", "groesse", "schoen"


class Vocabulary:
    """The catalog's words: `known` (any field) and `targets` (name, category, brand,
    material), each with the number of products using it; `real_words`, the words of the
    languages the shop's customers write; `synonyms`, the shop's words for shoppers' words.

    A query word is corrected only when no product uses it anywhere, it is no real word of
    those languages (nor a plural of a catalog word), it is at least four letters long and not
    a number, and a target lies within one edit (two from seven letters on), a swap of
    neighbours counting as one; ties go to the more common word, and so does a word one edit
    further that is at least five times as common. A catalog word and one letter more is
    another word, mostly a name ("gardena" is no "garden"). So "stock" is never turned into
    "sock", nor "mens" into "lens"; "snekers" still finds "sneakers".

    A synonym (a shopper's word or phrase -> the catalog's) applies unless the catalog's names,
    categories, brands and materials use the shopper's word themselves, or a name or category
    the shopper's phrase (`phrases`): a shop that calls its boots "gumboots" keeps that word, and
    one selling a "Memory Card" and a "Streaming Stick" still turns "memory stick" into "usb
    flash drive".
    """

    def __init__(
        self,
        known: Mapping[str, int],
        targets: Mapping[str, int],
        real_words: Container[str] = frozenset(),
        synonyms: Synonyms | None = None,
        products: int = 0,
        phrases: Container[str] = frozenset(),
        kinds: frozenset[str] = frozenset(),
        category_words: frozenset[str] = frozenset(),
        needs: Needs = NO_NEEDS,
    ) -> None:
        self.known = known
        self._needs = needs
        self._phrases = phrases
        self.kinds = kinds  # the words names and categories name kinds of thing with (CatalogWords.kinds)
        self.category_words = category_words
        self.products = products  # indexed, all told
        self._targets = {w: n for w, n in targets.items() if len(w) >= 3 and not w.isdigit()}
        self._titles = targets
        self._choices = list(self._targets)
        self._real = real_words
        self._synonyms = synonyms or NO_SYNONYMS

    def __len__(self) -> int:
        return len(self.known)

    def correct(self, word: str) -> str | None:
        if word in self.known or len(word) < 4 or any(ch.isdigit() for ch in word) or not self._choices:
            return None
        if self._plural_of_target(word) or word in self._real:
            return None
        allowed = 1 if len(word) < 7 else 2
        reach = allowed + 1 if len(word) >= 6 else allowed
        found = process.extract(word, self._choices, scorer=OSA.distance, score_cutoff=reach, limit=16)
        # "gardena" is a name of its own, not "garden" mistyped
        within = [(w, d) for w, d, _ in found if d <= allowed and not _one_letter_on(word, w)]
        if not within:
            return self._misspelt_synonym(word, allowed)
        best, distance = min(within, key=lambda f: (f[1], -self._targets[f[0]], f[0]))
        # A much more common word one edit further is the likelier meaning ("sandles" is one
        # edit from a rare "handles", two from the category "sandals").
        common = [w for w, d, _ in found if d == distance + 1 and self._targets[w] >= 5 * self._targets[best]]
        if common and not _one_of_a_double(word, best):  # "terracota" is "terracotta", not a brand
            return max(common, key=lambda w: (self._targets[w], w))
        return best

    def _umlauts_written_out(self, word: str) -> str:
        """A German word written without its umlauts ("fuer", "groesse", "schoen") as the folded
        word lists and the catalog's folded words hold it ("fur", "grosse", "schon"): the same
        word, not a misspelling, so it is read so and never reported as a correction."""
        if word in self.known or word in self._real or not _UMLAUT_WRITTEN_OUT.search(word):
            return word
        plain = _UMLAUT_WRITTEN_OUT.sub("", word)
        return plain if plain in self._real or plain in self._targets else word

    def _misspelt_synonym(self, word: str, allowed: int) -> str | None:
        """A shopper's word of the synonym list, misspelt ("winterjake" for "Winterjacke"): its
        meaning in the catalog's words. Only words of six letters or more, within one edit."""
        if len(word) < 6 or not (words_listed := self._synonyms.single_words()):
            return None
        found = process.extractOne(word, words_listed, scorer=OSA.distance, score_cutoff=min(allowed, 1))
        meaning = self._synonyms.meaning(found[0], self._names, self._a_kind) if found else None
        # only to words of this catalog: "pupper" in a pet shop is no misspelt "Puppe" (a doll, sold by none)
        return meaning if meaning and all(self.uses(w) for w in meaning.split()) else None

    def _plural_of_target(self, word: str) -> bool:
        return _plural_of(word, self._targets)

    def names_products(self, word: str) -> bool:
        """Whether a (folded) word is one the catalog names its products with: in a name,
        category, brand or material, maybe misspelt or in the plural ("jackets", "snekers")."""
        return word in self._targets or self._plural_of_target(word) or self.correct(word) is not None

    def in_names(self, word: str) -> bool:
        """Whether a (folded) word, as written or in its English plural, is in a product's name, category,
        brand or material (no misspelling: "pellets" is not "Pelleted")."""
        return self._names(word) > 0 or (word.endswith("s") and self._names(word[:-1]) > 0)

    def names_a_kind(self, word: str) -> bool:
        """Whether a (folded) word is one the catalog's names or categories name a kind of thing
        with ("lead", "cages", "knife"; not "grain", "free" or "stainless"), maybe misspelt or in
        another language the synonyms know ("Rosenschere")."""
        return any(word_forms(w) & self.kinds for w in self._readings(word))

    def names_a_category(self, word: str) -> bool:
        """Whether a (folded) word is a word of a category's name ("dog" of "Dog food"), maybe misspelt."""
        return any(word_forms(w) & self.category_words for w in self._readings(word))

    def _readings(self, word: str) -> set[str]:
        """A word as the catalog may have it: as written, corrected, or its synonym's words in the
        catalog's language ("Rosenschere" -> secateur, "Handschuhe" -> gloves)."""
        found = word if word in self.known or _plural_of(word, self.known) else (self.correct(word) or word)
        return {found, *self.terms(word).terms}

    def terms(
        self, text: str, troubles: bool = False, *, thing_named: Callable[[Sequence[str]], bool] | None = None
    ) -> QueryTerms:
        """The words to search for `text`: synonyms applied, misspellings corrected; with `troubles`, the words
        of what answers a trouble it tells of added (a search's; not what a word means), of a situation too
        unless `thing_named` says the words found name a thing the catalog sells."""
        corrections: dict[str, str] = {}
        typo_fixes: dict[str, str] = {}
        rewritten: list[str] = []
        written = words(text)
        query = [self._umlauts_written_out(word) for word in written]
        as_written = {read: word for read, word in zip(query, written, strict=True) if read != word}
        for n, word in self._phrase_typos(query).items():  # "portible charger": a misspelt "portable charger"
            corrections[query[n]] = typo_fixes[query[n]] = word
            query[n] = word
        for phrase, replacement in self._synonyms.rewrite(query, self._in_titles, self._names, self.uses,
                                                          self._phrases.__contains__, self._a_kind):  # fmt: skip
            if replacement is not None:
                corrections[phrase] = replacement
                new = replacement.split()
            elif (parts := self.compound(phrase)) is not None:
                corrections[phrase] = parts
                new = parts.split()
            elif (fixed := self.correct(phrase)) is not None:
                corrections[phrase] = typo_fixes[phrase] = fixed
                new = [fixed]
            else:
                new = [phrase]
            rewritten.extend(new)
        # "my dog sheds everywhere": the words of what answers it too ("deshedding undercoat"), those the catalog uses
        # Each word once, in the query's order, a lone letter joined to its word ("t shirt" -> "tshirt").
        own = list(dict.fromkeys(self._letter_compounds(rewritten)))
        named = thing_named is not None and thing_named(own[:MAX_QUERY_TERMS])
        added = self._needs.answers([*query, *rewritten], self.uses, thing_named=named) if troubles else []
        rewritten.extend(added)
        found = list(dict.fromkeys([*own, *added]))[:MAX_QUERY_TERMS]

        def said(fixes: dict[str, str]) -> dict[str, str]:  # as the shopper wrote it ("groesse", not "grosse")
            return {" ".join(as_written.get(w, w) for w in k.split()): v for k, v in fixes.items()}

        return QueryTerms(
            terms=tuple(found),
            corrections=said(corrections),
            rewritten=tuple(rewritten),
            typo_fixes=said(typo_fixes),
            added=tuple(w for w in added if w in found),
            said=min(len(own), len(found)),
        )

    def _letter_compounds(self, terms: list[str]) -> list[str]:
        """A lone letter and the word after it as one word where the catalog writes them so ("t
        shirt", "t-shirt" -> "tshirt", as `text.letter_compounds` indexes a "T-Shirt"): apart, the
        letter says nothing and "t shirt" would ask for any shirt. "a shirt" stays two words."""
        joined: list[str] = []
        at = 0
        while at < len(terms):
            pair = terms[at] + terms[at + 1] if at + 1 < len(terms) else ""
            if len(terms[at]) == 1 and terms[at].isalpha() and terms[at] not in _WORD_LETTERS and pair in self.known:
                joined.append(pair)
                at += 2
            else:
                joined.append(terms[at])
                at += 1
        return joined

    def _phrase_typos(self, query: list[str]) -> dict[int, str]:
        """The misspelt words of a phrase of the synonym list ("portible charger" for "portable
        charger"), by position, with their corrections; a word is corrected as `correct` would."""
        fixes: dict[int, str] = {}
        for n, word in enumerate(query):
            fixed = self.correct(word)
            if fixed is None:
                continue
            for start, end in ((n - 1, n + 1), (n, n + 2), (n - 2, n + 1), (n - 1, n + 2), (n, n + 3)):
                if start >= 0 and end <= len(query):
                    phrase = [fixes.get(i, fixed if i == n else query[i]) for i in range(start, end)]
                    if self._synonyms.lists(" ".join(phrase)):
                        fixes[n] = fixed
                        break
        return fixes

    def compound(self, word: str) -> str | None:
        """A word no product uses that joins two the catalog or the synonym list knows, as German
        does ("hundeleckerli" -> "dog treats", "katzenbett" -> "cat bed"): the two, in the
        catalog's words. The longest known last part wins (the thing itself; the first part
        qualifies it), and a linking "s", "e", "n", "en" or "es" may join them, or the first drop its "e"."""
        if len(word) < 2 * _COMPOUND_PART or word in self.known or not self._targets:
            return None
        for at in range(_COMPOUND_PART, len(word) - _COMPOUND_PART + 1):
            head = self._meaning(word[at:])
            if head is None:
                continue
            first = word[:at]
            bare = [first[: -len(end)] for end in _LINKS if first.endswith(end) and len(first) - len(end) >= 3]
            # (a first part that drops its "e": "Woll-pullover" of "Wolle", "Erd-beere" of "Erde")
            for part in (first, *bare, first + "e"):
                if (modifier := self._meaning(part)) is not None:
                    return f"{modifier} {head}"
        return None

    def _meaning(self, part: str) -> str | None:
        """A compound's part in the catalog's words: its own if the catalog's names use it, else its
        synonym; None for a part neither knows."""
        if self._names(part):
            return part
        return self._synonyms.meaning(part, self._names, self._a_kind)

    def _a_kind(self, word: str) -> bool:
        """Whether the catalog's names or categories name a kind of thing with the word as written."""
        return bool(word_forms(word) & self.kinds)

    def rarest(self, terms: tuple[str, ...], products: int) -> tuple[str, ...]:
        """The query's rarest words whose products add up to at most `products` (at least the
        rarest one), by the catalog's word counts: what the full-text leg matches on. In a small
        catalog that is every word."""
        chosen: list[str] = []
        total = 0
        for term in sorted(terms, key=lambda t: self.known.get(t, 0)):
            count = self.known.get(term, 0)
            if chosen and total + count > products:
                break
            chosen.append(term)
            total += count
        return tuple(t for t in terms if t in chosen)

    def match_on(self, terms: tuple[str, ...], products: int) -> tuple[str, ...]:
        """What the full-text leg matches products on, each a word or words a product must all
        have: the rarest words (`rarest`) while the rarest alone is in at most `products`
        products; else the rarest of the query's narrowing words with one other (two others, ...):
        as few as keep the estimated matches within `products`.

        In a catalog of a million products every word of "oversized sun hat" is in thousands of
        them, and ranking every product with the rarest costs far more than the vector leg; few
        have two of them. The estimate takes the words as independent (n_a * n_b / products).
        Every group holds the rarest word, so the full-text index walks that word's products only
        (groups of any two words made it read the product lists of all the query's words in full:
        20-90 ms a query at a million products). Words in more than a fifth of the products are
        left out of the groups: they narrow little, and a stop word, which the full-text
        configuration drops from a group, would make the group as broad as its other words."""
        narrowing = self._narrowing(terms, products)
        if narrowing is None:
            return self.rarest(terms, products)
        anchor, others = narrowing[0], sorted(narrowing[1:], key=terms.index)  # (the groups in the query's order)
        total = self.products
        for size in range(1, len(others)):
            groups = [sorted((anchor, *group), key=terms.index) for group in combinations(others, size)]
            estimate = sum(total * math.prod(self.known[t] / total for t in group) for group in groups)
            if estimate <= products:
                return tuple(" ".join(group) for group in groups)
        return (" ".join(sorted(narrowing, key=terms.index)),)

    def match_first(self, terms: tuple[str, ...], products: int) -> str | None:
        """Where `match_on` groups the words, all of its words: the products having every one of them
        are ranked before any other, and where there are enough, alone (a million products: "sun hat
        yoga" has 69 products where its groups have 3,300, all of which the index must find)."""
        narrowing = self._narrowing(terms, products)
        return None if narrowing is None else " ".join(sorted(narrowing, key=terms.index))

    def _narrowing(self, terms: tuple[str, ...], products: int) -> list[str] | None:
        """The words `match_on` groups, rarest first, or None where it does not group them."""
        rarest = self.rarest(terms, products)
        total = self.products
        if len(rarest) != 1 or self.known.get(rarest[0], 0) <= products or total <= 0:
            return None
        narrowing = sorted(
            (t for t in dict.fromkeys(terms) if 0 < self.known.get(t, 0) <= total * _NARROWING_SHARE),
            key=lambda t: self.known[t],
        )[:_MAX_GROUPED_WORDS]
        return narrowing if len(narrowing) >= 2 else None

    def rarity(self, word: str) -> float:
        """How rare a (folded) word is among the indexed products: the inverse document frequency
        of the BM25 family, log(1 + (N - n + 0.5) / (n + 0.5)), for n the products using it or
        its singular or plural (at least one: a word no product uses is as rare as the rarest).
        "brambles" in 2 of 90 products weighs 3.6, "garden" in 40 weighs 0.8."""
        total = max(self.products, 1)
        used = max((self.known.get(form, 0) for form in word_forms(word)), default=0)
        used = min(max(used, 1), total)
        return math.log(1.0 + (total - used + 0.5) / (used + 0.5))

    def uses(self, word: str) -> bool:
        """Whether any product's text uses a (folded) word, maybe in the plural, or in the English plural
        only ("container" where the texts say "containers")."""
        return (
            word in self.known or _plural_of(word, self.known) or any(word + end in self.known for end in ("s", "es"))
        )

    def _names(self, word: str) -> int:
        """How many products' names, categories, brands or materials use a (folded) word, or
        its English plural."""
        return max(self._titles.get(word + end, 0) for end in ("", "s", "es"))

    def _in_titles(self, word: str) -> bool:
        """Whether the catalog's own names use a shopper's word as it is (so no synonym replaces
        it). No plural endings here: a German "Sandalen" or French "veste" is not the English
        "sandal" or "vest"."""
        return word in self._targets


class Synonyms:
    """Shoppers' words and phrases -> the catalog's words (all folded), longest phrase first.

    The pairs also join words into groups of one meaning ("leash" -> "lead" and "dog leash"
    -> "lead" put all three together), so a shopper's word is turned into whichever word of
    its group the catalog itself uses: a shop that says "leash" finds its leashes for "lead"
    as well as the other way round. The pair's own replacement comes first when the catalog
    uses it (a shop's own list thus wins); otherwise the group's word most of the catalog's
    names use; otherwise the pair's replacement.

    `rewrite` walks a query's words and yields each word, or each phrase of up to
    `MAX_SYNONYM_WORDS` words that has a synonym, with its replacement (None for a plain word).
    """

    def __init__(self, pairs: Mapping[str, str]) -> None:
        # a word of several meanings lists them, most usual first: "geschirr" -> "tableware|harness"
        self._meanings = {
            " ".join(words(k)): tuple(m for v in str(value).split("|") if (m := " ".join(words(v))))
            for k, value in pairs.items()
            if words(k)
        }
        self._meanings = {k: v for k, v in self._meanings.items() if v}
        self._pairs = {k: v[0] for k, v in self._meanings.items()}  # the usual meaning joins the groups
        self._groups = _groups(self._pairs)
        self._single = sorted(k for k in self._pairs if " " not in k)
        self._longest = max((k.count(" ") + 1 for k in self._groups), default=0)

    def __len__(self) -> int:
        return len(self._pairs)

    def __or__(self, other: Synonyms) -> Synonyms:
        """These synonyms with `other`'s over them (the shop's own list over the built-in one)."""
        if not other._pairs:
            return self
        joined = {k: "|".join(v) for k, v in self._meanings.items()}
        return Synonyms({**joined, **{k: "|".join(v) for k, v in other._meanings.items()}})

    def get(self, phrase: str) -> str | None:
        return self._pairs.get(phrase)

    def rewrite(
        self,
        query: list[str],
        catalog_uses: Callable[[str], bool],
        names: Callable[[str], int] = lambda _: 0,
        anywhere: Callable[[str], bool] = lambda _: False,
        named: Callable[[str], bool] = lambda _: False,
        kind: Callable[[str], bool] = lambda _: False,
    ) -> Iterator[tuple[str, str | None]]:
        """`catalog_uses`: whether the catalog's names use a word; `names`: by how many products;
        `anywhere`: whether any product's text uses it; `named`: whether a name or category has a
        phrase of several words. A phrase the catalog's text uses is never
        turned into one no product's name uses: "crate" in a description ("in a crate") is not
        made "kennel", a word of that catalog nowhere."""
        at = 0
        while at < len(query):
            for size in range(min(self._longest, len(query) - at), 0, -1):
                phrase = " ".join(query[at : at + size])
                if _names_phrase(query[at : at + size], catalog_uses, named):
                    continue
                listed = phrase if phrase in self._groups else _singular(phrase, self._groups)
                if listed is None or (listed != phrase and _names_phrase(listed.split(), catalog_uses, named)):
                    continue  # ("beanies" in a shop selling a "Beanie": the shop's own word, in the plural)
                replacement = self._choose(listed, names, named, kind)
                if replacement is not None and all(anywhere(w) for w in query[at : at + size]):
                    replacement = replacement if all(names(w) for w in replacement.split()) else None
                if replacement is not None and replacement != phrase:
                    yield phrase, replacement
                    at += size
                    break
            else:
                yield query[at], None
                at += 1

    def lists(self, phrase: str) -> bool:
        """Whether a phrase (folded words) is one of the list's."""
        return phrase in self._groups

    def phrases(self) -> list[str]:
        """The listed phrases of several words (shoppers' and the catalog's)."""
        return [p for p in self._groups if " " in p]

    def single_words(self) -> list[str]:
        """The listed shoppers' words of one word each (what a misspelling may be of)."""
        return self._single

    def meaning(
        self, phrase: str, names: Callable[[str], int], kind: Callable[[str], bool] = lambda _: False
    ) -> str | None:
        """A listed word in the catalog's words: itself if the catalog's names use it, else its
        replacement; None for a word the list does not hold."""
        if phrase not in self._groups:
            return None
        if all(names(w) for w in phrase.split()):
            return phrase
        return self._choose(phrase, names, kind=kind) or phrase

    def _choose(
        self,
        phrase: str,
        names: Callable[[str], int],
        named: Callable[[str], bool] = lambda _: False,
        kind: Callable[[str], bool] = lambda _: False,
    ) -> str | None:
        """The pair's replacement if the catalog uses it, else the group's most used word,
        else the pair's replacement (None for a catalog word no product uses: left alone).

        A replacement of several words that no name has as a phrase is followed one pair on
        where the catalog has that as written, unless that says less: "Vogelhaus" -> "bird house" ->
        "nest box" in a shop selling a "Nest Box" and a "Bird Bath" beside a "Greenhouse" (but a "chew
        toy" is not made any "chew")."""

        def use(candidate: str) -> int:
            return min(names(w) for w in candidate.split())

        # a word of several meanings means the first of them the catalog names a kind of thing with, as
        # it is or by a word of its group ("Geschirr" is a harness in a shop selling harnesses; "Lampe"
        # is no "Light" of a "Senior & Light Dog Food"); else its usual meaning, as any other word
        meanings = self._meanings.get(phrase, ())
        for meaning in meanings if len(meanings) > 1 else ():
            said = meaning if use(meaning) else self._most_used(meaning, use)
            if said is not None and kind(said.split()[-1]):
                return said
        replacement = self._pairs.get(phrase)
        if replacement is not None and " " in replacement and not named(replacement):
            onward = self._pairs.get(replacement)
            narrower = onward is not None and set(onward.split()) < set(replacement.split())  # "chew toy" -> "chew"
            if onward is not None and not narrower and (named(onward) if " " in onward else use(onward)):
                return onward
            # read as the catalog's language's shopper who wrote the replacement would be: "ferngesteuertes Auto" ->
            # "remote control car" -> "rc car" in a shop of "RC" cars, as "remote control car" itself is read (it stayed
            # so, its words being those of a category "Vehicles & remote control", and die-cast cars had them)
            if onward is None and (own := self._most_used(replacement, use)) is not None and own != phrase:
                return own
        if replacement is not None and use(replacement):
            return replacement
        return self._most_used(phrase, use) or self._word_by_word(replacement, use) or replacement

    def _word_by_word(self, replacement: str | None, use: Callable[[str], int]) -> str | None:
        """A replacement of several words, each in the catalog's word of its group where the names do not use it as
        it is ("Fahrradschloss" -> "bicycle lock" -> "bike lock" in a shop of "Bike"s); None unless then every word
        is one the names use."""
        if replacement is None or " " not in replacement:
            return None
        said = [w if use(w) else self._most_used(w, use) for w in replacement.split()]
        return " ".join(w for w in said if w is not None) if all(said) else None

    def _most_used(self, phrase: str, use: Callable[[str], int]) -> str | None:
        """The word of the phrase's group (itself aside) most of the catalog's names use, if any."""
        used = [(use(m), m) for m in self._groups.get(phrase, ()) if m != phrase]
        best = max((u for u in used if u[0]), default=None)
        return best[1] if best else None


def _names_phrase(phrase: list[str], catalog_uses: Callable[[str], bool], named: Callable[[str], bool]) -> bool:
    """Whether the catalog's names use a shopper's word as it is (a German "Sandalen" is no
    English "sandal"), or a phrase of several words word after word (`named`: the index's
    stemming lets "flip flops" be a "Flip-Flop")."""
    return catalog_uses(phrase[0]) if len(phrase) == 1 else named(" ".join(phrase))


def _singular(phrase: str, listed: Container[str]) -> str | None:
    """The listed word a plural is of ("gamelles" -> "gamelle", "Leinen" -> "leine"), if any;
    a word of five letters at least, so that "bus" or "les" never is one."""
    if " " in phrase or len(phrase) < 5 or phrase in _NO_PLURALS:
        return None
    return next(
        (phrase[: -len(end)] for end in _PLURALS if phrase.endswith(end) and phrase[: -len(end)] in listed), None
    )


def _groups(pairs: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """Every phrase of the pairs -> all phrases of its group (joined through shared words)."""
    parent: dict[str, str] = {}

    def root(phrase: str) -> str:
        while parent.setdefault(phrase, phrase) != phrase:
            parent[phrase] = parent[parent[phrase]]
            phrase = parent[phrase]
        return phrase

    for key, value in pairs.items():
        parent[root(key)] = root(value)
    members: dict[str, list[str]] = {}
    for phrase in parent:
        members.setdefault(root(phrase), []).append(phrase)
    return {phrase: tuple(sorted(members[root(phrase)])) for phrase in parent}


NO_SYNONYMS = Synonyms({})


_PLURALS = ("s", "es", "e", "en", "n", "er", "x")
# Words of another kind whose ending looks like a plural's: German "wollen" (to want) is no "Wolle" (wool).
_NO_PLURALS = frozenset({"wollen"})


def word_forms(word: str) -> set[str]:
    """A (folded) word with and without an English plural ending ("cages" -> cage, "knives" -> knife)."""
    forms = {word, word + "s", word + "es", word.removesuffix("s"), word.removesuffix("es")}
    if word.endswith("ves"):
        forms |= {word[:-3] + "fe", word[:-3] + "f"}
    return forms


def _plural_of(word: str, singulars: Container[str]) -> bool:
    """Whether `word` is one of `singulars` with a plural ending (English, German or French)."""
    return any(word.endswith(end) and word[: -len(end)] in singulars for end in _PLURALS)


# Letters that are words of the customers' languages ("a frame", "i need", "il y a"), never joined.
_WORD_LETTERS = frozenset({"a", "i", "y", "o"})

EMPTY_VOCABULARY = Vocabulary({}, {})


def _one_letter_on(word: str, target: str) -> bool:
    """Whether `word` is the whole of `target` and one letter more, not its last doubled
    ("gardena" of "garden", "lina" of "lin"; not "shoess"): another word, mostly a name (a brand
    the shop does not sell), which a slip of the finger seldom makes."""
    return len(word) == len(target) + 1 and word.startswith(target) and word[-1] != target[-1]


def _one_of_a_double(word: str, target: str) -> bool:
    """Whether `word` is `target` with a doubled letter written once or a letter written twice
    ("terracota", "accesory"; "pott"), the commonest slip of all."""
    short, long = sorted((word, target), key=len)
    if len(long) != len(short) + 1:
        return False
    return any(long[:n] + long[n + 1 :] == short and long[n] == long[n - 1] for n in range(1, len(long)))
