-- Each model's HNSW index is now built over half-precision copies of the vectors
-- (`embedding::halfvec(<dimension>)`, halfvec_cosine_ops): half the size, built in a fraction
-- of the time, while the stored full-precision vectors re-rank the candidates it finds.
-- Searches use the new expression, which an index built the old way cannot serve: drop those
-- here; the indexer builds the new one as it starts (or within a minute if it runs; searches
-- meanwhile compute exact distances, as they do before any index exists).
DO $$
DECLARE
    old_index record;
BEGIN
    FOR old_index IN
        SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid = 'product_chunk'::regclass
          AND c.relname LIKE 'product\_chunk\_hnsw\_%'
          AND pg_get_indexdef(i.indexrelid) NOT LIKE '%halfvec%'
    LOOP
        EXECUTE format('DROP INDEX %I', old_index.relname);
    END LOOP;
END
$$;
