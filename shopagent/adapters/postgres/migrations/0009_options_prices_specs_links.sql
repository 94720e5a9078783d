-- Any shop's catalog: named options beside colour and size, a price per variation, specs and
-- links to buy. Existing products keep everything: their variations are told apart by colour
-- and size as before (an empty options set), sell at the product's price, and have no specs or
-- links until the catalog gives them some.
ALTER TABLE product
    ADD COLUMN option_names text[] NOT NULL DEFAULT '{}',
    ADD COLUMN specs jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN url text,
    ADD COLUMN external_id text;

-- `options` as the shop writes them ({name: value}); `option_keys` folded (case and accents
-- ignored) for the search filters; `variant_key` what tells a product's variations apart
-- (colour, size and the folded option values, joined by U+001F), written by the catalog.
-- `paid_price` is what the variation sells for (its own discount or price, else the product's),
-- written with it, so price filters judge the variation the other filters chose. `position` keeps
-- the shop's order of the variations (S, M, L; 250 g, 500 g, 1 kg); existing ones keep theirs.
ALTER TABLE product_variation
    ADD COLUMN options jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN option_keys jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN variant_key text,
    ADD COLUMN price numeric(12, 2) CHECK (price > 0),
    ADD COLUMN discount_price numeric(12, 2) CHECK (discount_price > 0 AND discount_price < price),
    ADD COLUMN paid_price numeric(12, 2),
    ADD COLUMN sku text,
    ADD COLUMN external_id text,
    ADD COLUMN url text,
    ADD COLUMN specs jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN position smallint NOT NULL DEFAULT 0;

UPDATE product_variation v
SET variant_key = v.color || chr(31) || v.size,
    paid_price = coalesce(p.discount_price, p.price)
FROM product p
WHERE p.id = v.product_id;

ALTER TABLE product_variation
    ALTER COLUMN variant_key SET NOT NULL,
    ALTER COLUMN paid_price SET NOT NULL,
    DROP CONSTRAINT product_variation_pkey,
    ADD PRIMARY KEY (product_id, variant_key);
-- Colour and size are optional now: '' where a product has none.
ALTER TABLE product_variation ALTER COLUMN color SET DEFAULT '', ALTER COLUMN size SET DEFAULT '';

-- The cheapest and dearest variation, so a price filter skips a product without looking at
-- its variations when all of them sell at one price (most products).
ALTER TABLE product
    ADD COLUMN price_low numeric(12, 2),
    ADD COLUMN price_high numeric(12, 2);
UPDATE product SET price_low = coalesce(discount_price, price), price_high = coalesce(discount_price, price);
ALTER TABLE product ALTER COLUMN price_low SET NOT NULL, ALTER COLUMN price_high SET NOT NULL;
