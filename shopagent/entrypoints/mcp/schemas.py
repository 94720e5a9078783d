"""JSON Schemas of the MCP tools, written for the models that read them: inline (no $ref,
which several LLM function-calling APIs reject), with a description on every field.

An MCP client hands the input schemas to its model, and servers built on llama.cpp compile
them into a grammar that cannot hold a repetition of 2000 or more: a limit that large (the
query's length) is said in the description instead of as `maxLength`, and enforced when the
tool runs (a longer query is a tool error the model can read)."""

from __future__ import annotations

from typing import Any

from shopagent.domain.catalog import MAX_PRICE
from shopagent.domain.search import MAX_QUERY_CHARS

MONEY = {"type": "string", "pattern": r"^\d+\.\d{2}$"}
# The same JSON as anyOf [MONEY, null] (a pattern applies to strings only), checked in one step
# instead of two and without an error raised and dropped for every null.
MONEY_OR_NULL = {"type": ["string", "null"], "pattern": MONEY["pattern"]}


def search_schemas(colors: list[str], sizes: list[str], currency: str) -> tuple[dict[str, Any], dict[str, Any]]:
    filters = {
        "type": "object",
        "description": "Hard constraints. Colours, sizes and inStock must hold for one and the same variation.",
        "properties": {
            "colors": {
                "type": "array",
                "items": {"type": "string", "enum": colors},
                "description": "Any of these colours.",
            },
            "sizes": {
                "type": "array",
                "items": {"type": "string", "enum": sizes},
                "description": "Any of these sizes (EU numbers for shoes, letters for clothing).",
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
        },
        "required": ["products", "bestMatch", "noStrongMatch", "corrections"],
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
            "color": {"type": "string"},
            "size": {"type": "string"},
            "available": {"type": "integer", "description": "Units that can be bought now."},
            "weightGrams": {"type": ["integer", "null"]},
        },
        "required": ["color", "size", "available", "weightGrams"],
    }
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
        ],
    }
    return inputs, outputs
