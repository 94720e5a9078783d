-- Token buckets shared by every replica: one row per limited key ("chat:<user>", "mcp:<key>",
-- "admin"). Unlogged: after a crash the buckets simply start full again.
CREATE UNLOGGED TABLE rate_bucket (
    key text PRIMARY KEY,
    tokens double precision NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX rate_bucket_updated_at ON rate_bucket (updated_at);
