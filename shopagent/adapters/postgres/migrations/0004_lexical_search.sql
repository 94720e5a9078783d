-- The lexical search leg. The indexer stores, with each product's chunk set, its full-text
-- document in the configured text search configuration (name and category weighted A,
-- brand and material B, the description and the colours it comes in D; accents folded
-- before, so no `unaccent` is needed) and its plain words ('simple' configuration, names
-- etc. weighted A), the vocabulary that query words are corrected against.
ALTER TABLE product_index
    ADD COLUMN text_config regconfig,
    ADD COLUMN document tsvector,
    ADD COLUMN words tsvector;
-- Without the pending list (fastupdate), freshly indexed products are in the index proper at
-- once: with it, searches after a bulk load scan the list until a vacuum merges it.
CREATE INDEX product_index_document ON product_index USING gin (document) WITH (fastupdate = off);

-- OR of any number of tsqueries: a product matching some of a query's words still ranks.
CREATE AGGREGATE shopagent_tsquery_any (tsquery) (SFUNC = tsquery_or, STYPE = tsquery);

-- Products indexed before this migration get their documents from the indexer; their chunk
-- sets are unchanged, so nothing is embedded again.
INSERT INTO outbox_event (kind, product_id) SELECT 'product.upserted', product_id FROM product_index;
