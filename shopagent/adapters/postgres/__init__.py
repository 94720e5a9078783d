"""PostgreSQL (asyncpg + pgvector) adapters, the embedded server and schema migrations."""
