"""Tool schemas in a form that every OpenAI-compatible server can compile.

llama.cpp's `llama-server`, and llama-cpp-python (which vendors llama.cpp), turn a tool's JSON
Schema into a grammar that constrains what the model writes. Two things in a schema fail the
whole request there (400 "failed to parse grammar"), whatever the model would have written:

- a repetition of 2000 or more: `"maxLength": 2000` becomes `char{0,2000}`, and the grammar
  parser refuses a repetition whose count times the rules it repeats reaches 2000
  (`MAX_REPETITION_THRESHOLD` in src/llama-grammar.cpp), some builds any count above it (the
  newest accept 2000 itself and read a larger upper bound as no bound);
- a `pattern` not anchored with `^…$`, which the schema converter refuses
  (common/json-schema-to-grammar.cpp).

`grammar_safe` leaves such a limit out of what the model sees and says it in the field's
description instead; the tool behind the schema enforces it anyway (the MCP server answers a
query over the limit with a tool error the model can read). Ollama and vLLM build no grammar
from tools when the model chooses (`tool_choice: "auto"`), so they lose nothing by it.
"""

from __future__ import annotations

import re
from typing import Any

# Well under llama.cpp's 2000, which a repetition nested in a repeated group multiplies.
REPETITION_LIMIT = 1000

_COUNTS = {
    "maxLength": "at most {} characters",
    "minLength": "at least {} characters",
    "maxItems": "at most {} items",
    "minItems": "at least {} items",
}
_QUANTIFIER = re.compile(r"\{\s*(\d+)\s*(?:,\s*(\d*)\s*)?\}")
# Keywords whose value is a subschema (or a list of them), or a map from names to subschemas.
_ONE = {"items", "additionalItems", "additionalProperties", "contains", "not", "propertyNames",
        "if", "then", "else", "unevaluatedItems", "unevaluatedProperties"}  # fmt: skip
_LIST = {"anyOf", "oneOf", "allOf", "prefixItems"}
_MAP = {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}


def grammar_safe(schema: Any) -> Any:
    """`schema` without the limits a llama.cpp grammar cannot hold, each said in a description."""
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = {}
    notes: list[str] = []
    for key, value in schema.items():
        if key in _COUNTS and _is_count(value) and value > REPETITION_LIMIT:
            notes.append(_COUNTS[key].format(value))
        elif key == "pattern" and isinstance(value, str) and not _compilable(value):
            notes.append(f"matching the regular expression {value}")
        elif key in _ONE or key in _LIST:
            result[key] = [grammar_safe(v) for v in value] if isinstance(value, list) else grammar_safe(value)
        elif key in _MAP and isinstance(value, dict):
            result[key] = {name: grammar_safe(v) for name, v in value.items()}
        else:
            result[key] = value
    if notes:
        said = "; ".join(notes)
        description = result.get("description")
        result["description"] = f"{description} ({said})" if isinstance(description, str) and description else said
    return result


def _is_count(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _compilable(pattern: str) -> bool:
    """Whether llama.cpp can turn the pattern into a grammar: anchored, no big repetition."""
    if not (pattern.startswith("^") and pattern.endswith("$")):
        return False
    return all(int(n) <= REPETITION_LIMIT for match in _QUANTIFIER.finditer(pattern) for n in match.groups() if n)
