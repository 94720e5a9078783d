-- Store pages: the shop's own texts (shipping, returns, payment, size guides, FAQ), a second
-- aggregate beside products. Every write bumps `version`, as for products, and queues a
-- `store_page.*` outbox event in the same transaction; the outbox's `product_id` column then
-- holds the page's id (the event kind says which aggregate an id belongs to).
CREATE TABLE store_page (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    slug text NOT NULL UNIQUE,
    title text NOT NULL,
    url text,
    language text NOT NULL,
    body text NOT NULL,
    version bigint NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE outbox_event DROP CONSTRAINT outbox_event_kind_check;
ALTER TABLE outbox_event ADD CONSTRAINT outbox_event_kind_check
    CHECK (kind IN ('product.upserted', 'product.deleted', 'store_page.upserted', 'store_page.deleted'));

-- A page's passages with their embeddings and full-text documents (in the page language's
-- configuration). Shops have tens of pages, not thousands: searches compute exact distances,
-- so no vector index is kept for them.
CREATE TABLE store_passage (
    page_id bigint NOT NULL REFERENCES store_page (id) ON DELETE CASCADE,
    model text NOT NULL,
    ordinal smallint NOT NULL,
    heading text NOT NULL,
    body text NOT NULL,
    content_hash bytea NOT NULL,
    embedding vector NOT NULL,
    text_config regconfig NOT NULL,
    document tsvector NOT NULL,
    PRIMARY KEY (page_id, model, ordinal)
);

-- What the index holds for each page: the indexer's idempotency record.
CREATE TABLE store_page_index (
    page_id bigint PRIMARY KEY REFERENCES store_page (id) ON DELETE CASCADE,
    model text NOT NULL,
    page_version bigint NOT NULL,
    passage_set_hash bytea NOT NULL,
    indexed_at timestamptz NOT NULL DEFAULT now()
);
