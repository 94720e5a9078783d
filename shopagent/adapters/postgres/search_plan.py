"""Which plan the vector leg runs: exact distances or the HNSW index, by estimated cost.

A fixed number of matching products cannot make this choice: what the exact plan costs grows
with the chunks it reads (matching products x chunks per product), what the index walk costs
grows with how far an iterative scan must go to find enough chunks that pass the filters
(about the candidates wanted divided by the share of the catalog that passes), and both
depend on the catalog's size. So both are estimated, in milliseconds, from the catalog
statistics the search already keeps (`filter_statistics`), and the cheaper one runs:

- exact: a fixed start, then per matching product (its filter test) and per chunk (a distance);
- HNSW: a fixed start, then per index tuple visited: max(ef_search, wanted / share). A scan
  that would have to visit more than `max_scan_tuples` gives up short and the exact plan runs
  after it (search.py), so it costs both.

The per-unit costs were fitted on `bench/search.py` runs (10,000 products on a quiet machine,
50,000 and 200,000 on a loaded one) and `bench/scale.py` at a million products, where a visited
index tuple costs more than at 200,000 (the walk reads pages of a 3 GB index; 10,000 matching
products: exact 180 ms, the walk 373 ms; bench/README.md). Only their ratios matter; they put the
boundary near 1,600 matching products at 10,000 products, 3,600 at 50,000, 7,200 at 200,000 (2
chunks per product) and 13,000 at a million (3 chunks). A wrong choice costs only speed: both
plans filter exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Plan(StrEnum):
    EXACT = "exact"
    HNSW = "hnsw"


@dataclass(frozen=True)
class PlanCosts:
    """Estimated milliseconds per unit of work of each plan."""

    exact_start: float = 1.0
    exact_per_product: float = 0.001
    exact_per_chunk: float = 0.003
    hnsw_start: float = 3.0
    hnsw_per_tuple: float = 0.03


@dataclass(frozen=True)
class PlanInputs:
    """What the estimate needs: the catalog's size, the filters' estimated reach and the walk's bounds."""

    products: float  # in the catalog
    chunks: float  # stored (all models: an estimate)
    matching: float  # products the filters let through (estimated)
    wanted: int  # chunk candidates the index walk must find
    ef_search: int
    max_scan_tuples: int


def exact_cost(inputs: PlanInputs, costs: PlanCosts = PlanCosts()) -> float:
    per_product = max(inputs.chunks / inputs.products, 1.0) if inputs.products > 0 else 1.0
    matching = min(inputs.matching, inputs.products)
    return costs.exact_start + matching * (costs.exact_per_product + per_product * costs.exact_per_chunk)


def hnsw_cost(inputs: PlanInputs, costs: PlanCosts = PlanCosts()) -> float:
    share = min(inputs.matching / inputs.products, 1.0) if inputs.products > 0 else 0.0
    visited = max(float(inputs.ef_search), inputs.wanted / share) if share > 0 else float("inf")
    if visited > inputs.max_scan_tuples:  # gives up short, then the exact plan answers
        walk = costs.hnsw_start + inputs.max_scan_tuples * costs.hnsw_per_tuple
        return walk + exact_cost(inputs, costs)
    return costs.hnsw_start + visited * costs.hnsw_per_tuple


def cheaper_plan(inputs: PlanInputs, costs: PlanCosts = PlanCosts()) -> Plan:
    """The plan of lower estimated cost (exact on a tie: its recall is perfect)."""
    return Plan.EXACT if exact_cost(inputs, costs) <= hnsw_cost(inputs, costs) else Plan.HNSW


def chosen_plan(inputs: PlanInputs, exact_below_products: int | None = None) -> Plan:
    """By estimated cost; with `exact_below_products` set (search.exact_below_products), by that
    fixed count instead: exact when fewer products match (0: always the index)."""
    if exact_below_products is not None:
        return Plan.EXACT if inputs.matching < exact_below_products else Plan.HNSW
    return cheaper_plan(inputs)
