-- The catalog. Prices are exact decimals; every write bumps `version`, which the indexer
-- uses to never let an older read overwrite newer chunks.
CREATE TABLE product (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    slug text NOT NULL UNIQUE,
    name text NOT NULL,
    description text NOT NULL DEFAULT '',
    brand text NOT NULL DEFAULT '',
    material text NOT NULL DEFAULT '',
    category text NOT NULL,
    price numeric(12, 2) NOT NULL CHECK (price > 0),
    discount_price numeric(12, 2) CHECK (discount_price > 0 AND discount_price < price),
    currency char(3) NOT NULL,
    rating numeric(3, 2) CHECK (rating BETWEEN 0 AND 5),
    main_image text,
    images text[] NOT NULL DEFAULT '{}',
    version bigint NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE product_variation (
    product_id bigint NOT NULL REFERENCES product (id) ON DELETE CASCADE,
    color text NOT NULL,
    size text NOT NULL,
    quantity integer NOT NULL CHECK (quantity >= 0),
    reserved integer NOT NULL DEFAULT 0 CHECK (reserved >= 0 AND reserved <= quantity),
    weight_grams integer CHECK (weight_grams > 0),
    PRIMARY KEY (product_id, color, size)
);
CREATE INDEX product_variation_color_size ON product_variation (color, size);

-- The transactional outbox: written in the same transaction as the catalog change.
CREATE TABLE outbox_event (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind text NOT NULL CHECK (kind IN ('product.upserted', 'product.deleted')),
    product_id bigint NOT NULL,  -- no foreign key: a deleted product's event outlives it
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'dead')),
    attempts integer NOT NULL DEFAULT 0,
    available_at timestamptz NOT NULL DEFAULT now(),  -- not before (retry backoff)
    locked_until timestamptz,  -- the lease of whoever claimed it
    locked_by text,
    last_error text,
    created_at timestamptz NOT NULL DEFAULT now(),
    done_at timestamptz
);
CREATE INDEX outbox_event_due ON outbox_event (id) WHERE status = 'pending';
CREATE INDEX outbox_event_product ON outbox_event (product_id) WHERE status = 'pending';
CREATE INDEX outbox_event_dead ON outbox_event (id) WHERE status = 'dead';

-- The semantic index. A product's chunks all come from one embedding model; the vector
-- column has no fixed dimension so the model can change, and each model gets a partial
-- HNSW index on `embedding::vector(<its dimension>)` created when it is first used.
CREATE TABLE product_chunk (
    product_id bigint NOT NULL REFERENCES product (id) ON DELETE CASCADE,
    model text NOT NULL,
    ordinal smallint NOT NULL,
    kind text NOT NULL,
    content text NOT NULL,
    content_hash bytea NOT NULL,
    embedding vector NOT NULL,
    PRIMARY KEY (product_id, model, ordinal)
);

-- What the index holds for each product: the idempotency record of the indexer.
CREATE TABLE product_index (
    product_id bigint PRIMARY KEY REFERENCES product (id) ON DELETE CASCADE,
    model text NOT NULL,
    product_version bigint NOT NULL,
    chunk_set_hash bytea NOT NULL,
    indexed_at timestamptz NOT NULL DEFAULT now()
);
