"""JSON Schemas of the MCP tools, written for the models that read them: inline (no $ref,
which several LLM function-calling APIs reject), with a description on every field.

An MCP client hands the input schemas to its model, and servers built on llama.cpp compile
them into a grammar that cannot hold a repetition of 2000 or more: a limit that large (the
query's length) is said in the description instead of as `maxLength`, and enforced when the
tool runs (a longer query is a tool error the model can read)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shopagent.domain.catalog import MAX_PRICE
from shopagent.domain.search import MAX_QUERY_CHARS

MONEY = {"type": "string", "pattern": r"^\d+\.\d{2}$"}
# The same JSON as anyOf [MONEY, null] (a pattern applies to strings only), checked in one step
# instead of two and without an error raised and dropped for every null.
MONEY_OR_NULL = {"type": ["string", "null"], "pattern": MONEY["pattern"]}


SPEC_VALUE = {"type": ["string", "number", "boolean"]}


def search_schemas(
    colors: list[str], sizes: list[str], currency: str, spec_units: Mapping[str, str] | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The search tool's schemas for a shop with these colours and sizes (a vocabulary the shop
    leaves empty is left out) and spec units."""
    units = ", ".join(f"{name} in {unit}" for name, unit in (spec_units or {}).items())
    variation_filters: dict[str, Any] = {}
    if colors:
        variation_filters["colors"] = {
            "type": "array",
            "items": {"type": "string", "enum": colors},
            "description": "Any of these colours.",
        }
    if sizes:
        variation_filters["sizes"] = {
            "type": "array",
            "items": {"type": "string", "enum": sizes},
            "description": "Any of these sizes, as the shop names them.",
        }
    filters = {
        "type": "object",
        "description": "Hard constraints. Everything but the price range must hold for one and the same variation, "
        "and the price range for that variation's price.",
        "properties": {
            **variation_filters,
            "options": {
                "type": "object",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
                "description": "The product's other options, by name, each any of these values, as results and "
                'details show them (e.g. {"Valve": ["Presta"]}); case and accents do not matter.',
            },
            "specs": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "properties": {"min": {"type": "number"}, "max": {"type": "number"}, "equals": SPEC_VALUE},
                    "additionalProperties": False,
                },
                "description": "Named facts, by the names details show: a number within min/max, or a value "
                'equal to `equals` (e.g. {"capacity_ml": {"min": 500}}, {"dishwasher_safe": {"equals": true}}). '
                "A product without the spec does not match." + (f" Units: {units}." if units else ""),
            },
            "minPrice": {
                "type": "number",
                "minimum": 0,
                "exclusiveMaximum": float(MAX_PRICE),
                "description": f"Lowest effective price, in {currency}.",
            },
            "maxPrice": {
                "type": "number",
                "minimum": 0,
                "exclusiveMaximum": float(MAX_PRICE),
                "description": f"Highest effective price, in {currency}.",
            },
            "inStock": {"type": "boolean", "description": "Only products with an available matching variation."},
        },
        "additionalProperties": False,
    }
    inputs = {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "description": "What the customer is looking for, in plain words (kind of item, use, style); "
                f"at most {MAX_QUERY_CHARS} characters.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 20,
                "default": 5,
                "description": "How many products to return (1-20).",
            },
            "filters": filters,
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    hit = {
        "type": "object",
        "properties": {
            "productId": {"type": "integer"},
            "name": {"type": "string"},
            "slug": {"type": "string"},
            "category": {"type": "string"},
            "price": {**MONEY, "description": f"List price in {currency}."},
            "discountedPrice": {**MONEY_OR_NULL, "description": "Sale price, if any."},
            "effectivePrice": {**MONEY, "description": "What the customer pays."},
            "currency": {"type": "string"},
            "rating": {"type": ["number", "null"]},
            "mainImage": {"type": ["string", "null"], "description": "URL of the product's main picture."},
            "match": {
                "type": "string",
                "enum": ["strong", "partial", "weak"],
                "description": "How surely this product is what was asked for (see the tool description).",
            },
            "inStock": {
                "type": "boolean",
                "description": "The asked colour/size (any variation when none was asked) can be bought now.",
            },
            "availableQuantity": {"type": "integer", "description": "Units of it that can be bought now."},
            "distance": {
                "type": ["number", "null"],
                "description": "Cosine distance of the closest text of the product; lower is closer.",
            },
            "availableColors": {"type": "array", "items": {"type": "string"}, "description": "Colours in stock."},
            "availableSizes": {"type": "array", "items": {"type": "string"}, "description": "Sizes in stock."},
            "availableOptions": {
                "type": "object",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
                "description": "Its other options (name -> the values in stock).",
            },
            "priceFrom": {
                "type": "boolean",
                "description": "Its variations sell at different prices; the prices given are the cheapest asked "
                'one\'s (say "from").',
            },
            "url": {"type": ["string", "null"], "description": "The product's page in the shop, to link to."},
        },
        "required": [
            "productId",
            "name",
            "slug",
            "category",
            "price",
            "discountedPrice",
            "effectivePrice",
            "currency",
            "rating",
            "mainImage",
            "match",
            "inStock",
            "availableQuantity",
            "distance",
            "availableColors",
            "availableSizes",
            "availableOptions",
            "priceFrom",
            "url",
        ],
    }
    outputs = {
        "type": "object",
        "properties": {
            "products": {"type": "array", "items": hit},
            "bestMatch": {
                "type": ["string", "null"],
                "enum": ["strong", "partial", "weak", None],
                "description": "The best grade among the products; null when none came back.",
            },
            "noStrongMatch": {
                "type": "boolean",
                "description": "True when no product is a strong match: the shop may not carry exactly what was "
                "asked (see the tool description for how often this is wrong).",
            },
            "corrections": {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "description": "Shopper's words searched as other words: misspellings corrected to the catalog's "
                "word, and synonyms (shopper's word or phrase -> the catalog's).",
            },
            "misspelt": {
                "type": "array",
                "items": {"type": "string"},
                "description": 'Those of the words in `corrections` that were misspellings: worth a "did you mean '
                '…?". The others are synonyms and translations, spelt right.',
            },
        },
        "required": ["products", "bestMatch", "noStrongMatch", "corrections", "misspelt"],
    }
    return inputs, outputs


def details_schemas(currency: str) -> tuple[dict[str, Any], dict[str, Any]]:
    inputs = {
        "type": "object",
        "properties": {
            "productId": {
                "type": "integer",
                "minimum": 1,
                "maximum": 2**63 - 1,
                "description": "productId from a search result.",
            }
        },
        "required": ["productId"],
        "additionalProperties": False,
    }
    variation = {
        "type": "object",
        "properties": {
            "color": {"type": "string", "description": "Empty when the product has no colours."},
            "size": {"type": "string", "description": "Empty when the product has no sizes."},
            "options": {"type": "object", "additionalProperties": {"type": "string"}},
            "available": {"type": "integer", "description": "Units that can be bought now."},
            "weightGrams": {"type": ["integer", "null"]},
            "price": {**MONEY, "description": f"This variation's list price in {currency}."},
            "discountedPrice": MONEY_OR_NULL,
            "effectivePrice": {**MONEY, "description": "What the customer pays for this variation."},
            "sku": {"type": ["string", "null"]},
            "specs": {"type": "object", "additionalProperties": SPEC_VALUE, "description": "Its own specs."},
            "url": {"type": ["string", "null"], "description": "A link that puts this variation in the basket."},
        },
        "required": [
            "color", "size", "options", "available", "weightGrams", "price", "discountedPrice", "effectivePrice",
            "sku", "specs", "url",
        ],
    }  # fmt: skip
    outputs = {
        "type": "object",
        "properties": {
            "productId": {"type": "integer"},
            "name": {"type": "string"},
            "slug": {"type": "string"},
            "category": {"type": "string"},
            "description": {"type": "string"},
            "brand": {"type": "string"},
            "material": {"type": "string"},
            "price": {**MONEY, "description": f"List price in {currency}."},
            "discountedPrice": MONEY_OR_NULL,
            "effectivePrice": MONEY,
            "currency": {"type": "string"},
            "rating": {"type": ["number", "null"]},
            "mainImage": {"type": ["string", "null"]},
            "images": {"type": "array", "items": {"type": "string"}},
            "inStock": {"type": "boolean"},
            "variations": {"type": "array", "items": variation},
            "options": {"type": "array", "items": {"type": "string"}, "description": "Its other option names."},
            "specs": {"type": "object", "additionalProperties": SPEC_VALUE, "description": "Named facts."},
            "specText": {"type": "array", "items": {"type": "string"}, "description": "The specs, as read."},
            "url": {"type": ["string", "null"], "description": "The product's page in the shop."},
        },
        "required": [
            "productId",
            "name",
            "slug",
            "category",
            "description",
            "brand",
            "material",
            "price",
            "discountedPrice",
            "effectivePrice",
            "currency",
            "rating",
            "mainImage",
            "images",
            "inStock",
            "variations",
            "options",
            "specs",
            "specText",
            "url",
        ],
    }
    return inputs, outputs
