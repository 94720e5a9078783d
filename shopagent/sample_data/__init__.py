"""The bundled sample shops `shopagent demo --sample NAME` imports into an empty catalog: a
clothing & shoes shop (the default) and a coffee roastery, each a catalog, store pages and, for
the roastery, the settings its catalog needs (colours, no sizes, spec units, link template)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent


@dataclass(frozen=True)
class Sample:
    name: str
    catalog: Path
    store_pages: Path
    example_query: str  # what the demo's banner suggests asking
    # config.toml keys the sample's catalog needs, beneath the user's config.toml and environment
    settings: Path | None = None


SAMPLES = {
    "clothing": Sample("clothing", HERE / "catalog.json", HERE / "store_pages", "warm winter boots under 200 euros"),
    "coffee": Sample(
        "coffee",
        HERE / "coffee" / "catalog.json",
        HERE / "coffee" / "store_pages",
        "a gooseneck kettle under 100 euros",
        HERE / "coffee" / "settings.toml",
    ),
}
DEFAULT_SAMPLE = "clothing"
