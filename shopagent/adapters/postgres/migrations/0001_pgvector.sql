-- pgvector provides the vector type and the HNSW index used by the semantic index.
CREATE EXTENSION IF NOT EXISTS vector;
