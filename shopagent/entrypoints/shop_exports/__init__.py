"""The product CSV exports of Shopify and WooCommerce -> ProductInput.

Both describe a product over several rows (Shopify: rows sharing a Handle, the later ones
holding more variants or images; WooCommerce: a `variable` row and its `variation` rows,
joined by `Parent`). What becomes of their fields:

- HTML descriptions become plain text; options or attributes named Size or Color (any case,
  also Größe, Farbe, Taille, Couleur, ...) become each variation's size and colour, read as
  shops write them ("Schwarz", "Medium"); a product without a colour option takes the colour
  its title names, if it names one. Other options (Valve, Battery, Weight) stay the product's
  own options; a single-valued Material becomes the material.
- A variation whose colour or size the catalog lacks is rejected alone, with the value and
  the allowed set; the product keeps its other variations.
- Each variant keeps its price and SKU (WooCommerce: its ID too); variants that all sell at
  one price give the product that price. A compare-at (Shopify) or regular (WooCommerce)
  price above the selling price makes the selling price the discount price. Shopify
  metafield columns and WooCommerce attributes that are not options become specs.
- Drafts, archived and private products, gift cards, and grouped and external products are
  skipped with a note; so is anything else the catalog cannot hold without guessing.
"""

from shopagent.entrypoints.shop_exports.cells import html_to_text, option_kind, slugify
from shopagent.entrypoints.shop_exports.shopify import from_shopify
from shopagent.entrypoints.shop_exports.woocommerce import from_woocommerce

__all__ = ["from_shopify", "from_woocommerce", "html_to_text", "option_kind", "slugify"]
