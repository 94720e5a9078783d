"""Search use cases: hybrid semantic product search and product details."""

from __future__ import annotations

from decimal import Decimal

from shopagent.application.ports import CatalogRepository, EmbeddingModel, SearchIndex
from shopagent.domain.catalog import CatalogRules, Product
from shopagent.domain.errors import NotFound
from shopagent.domain.search import (
    DEFAULT_LIMIT,
    ProductDetails,
    ProductHit,
    SearchRequest,
    VariationDetails,
    validate_search,
)


class CatalogSearch:
    def __init__(
        self, embedder: EmbeddingModel, index: SearchIndex, catalog: CatalogRepository, rules: CatalogRules
    ) -> None:
        self._embedder = embedder
        self._index = index
        self._catalog = catalog
        self.rules = rules

    def request(
        self,
        query: str,
        limit: int = DEFAULT_LIMIT,
        *,
        colors: list[str] | None = None,
        sizes: list[str] | None = None,
        min_price: Decimal | None = None,
        max_price: Decimal | None = None,
        in_stock: bool = False,
    ) -> SearchRequest:
        """Validate raw arguments (raises ValidationError with an actionable message)."""
        return validate_search(query, limit, colors or [], sizes or [], min_price, max_price, in_stock, self.rules)

    async def search(self, request: SearchRequest) -> list[ProductHit]:
        """Products closest in meaning to the query, within the filters, closest first."""
        vector = await self._embedder.embed_query(request.query)
        return await self._index.search(
            vector, self._embedder.model_id, self._embedder.dimension, request.filters, request.limit
        )

    async def details(self, product_id: int) -> ProductDetails:
        product = await self._catalog.get(product_id)
        if product is None:
            raise NotFound(f"product {product_id} does not exist; use a productId from product-semantic-search results")
        return product_details(product)


def product_details(product: Product) -> ProductDetails:
    variations = [
        VariationDetails(color=v.color, size=v.size, available=v.available, weight_grams=v.weight_grams)
        for v in product.variations
    ]
    return ProductDetails(
        product_id=product.id,
        name=product.name,
        slug=product.slug,
        category=product.category,
        description=product.description,
        brand=product.brand,
        material=product.material,
        price=product.price,
        discounted_price=product.discount_price,
        effective_price=product.effective_price,
        currency=product.currency,
        rating=product.rating,
        main_image=product.main_image,
        images=list(product.images),
        in_stock=any(v.available > 0 for v in variations),
        variations=variations,
    )
