"""The product CSV exports of Shopify and WooCommerce -> ProductInput.

Both describe a product over several rows (Shopify: rows sharing a Handle, the later ones
holding more variants or images; WooCommerce: a `variable` row and its `variation` rows,
joined by `Parent`). What becomes of their fields:

- HTML descriptions become plain text; options or attributes named Size or Color (any case,
  also Größe, Farbe, Taille, Couleur, ...) become each variation's size and colour, read as
  shops write them ("Schwarz", "Medium"); a product without a size option is `ONE SIZE`, one
  without a colour option takes the colour its title names.
- A variation whose colour or size the catalog lacks is rejected alone, with the value and
  the allowed set; the product keeps its other variations.
- The catalog keeps one price per product: that of the first variation. When the others
  differ, a note says so. A compare-at (Shopify) or regular (WooCommerce) price above the
  selling price makes the selling price the discount price. Prices keep their decimals.
- Drafts, archived and private products, gift cards, and grouped and external products are
  skipped with a note; so is anything else the catalog cannot hold without guessing.
"""

from shopagent.entrypoints.shop_exports.cells import html_to_text, option_kind, slugify
from shopagent.entrypoints.shop_exports.shopify import from_shopify
from shopagent.entrypoints.shop_exports.woocommerce import from_woocommerce

__all__ = ["from_shopify", "from_woocommerce", "html_to_text", "option_kind", "slugify"]
