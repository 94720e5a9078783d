-- The word each indexed product's name calls its kind of thing by (`query_words.name_kind`: the
-- last word before what it comes with or is for, an amount aside: "Knife" of "Classic Chef's
-- Knife 20 cm"), written by the indexer with the product's words, so that the catalog's kind
-- words are one DISTINCT away instead of a pass over every name.
ALTER TABLE product_index ADD COLUMN kind text;

-- Products indexed before this migration get theirs from the indexer, as its own rule reads
-- their names; their chunk sets are unchanged, so nothing is embedded again.
INSERT INTO outbox_event (kind, product_id) SELECT 'product.upserted', product_id FROM product_index;
