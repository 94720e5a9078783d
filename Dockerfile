# shopagent in a container. Build: docker build -t shopagent .
#   (podman: podman build --format docker -t shopagent . ; the OCI format drops HEALTHCHECK)
# Run (embedded PostgreSQL in a volume):
#   docker run -p 8080:8080 -p 8000:8000 -p 9090:9090 -v shopagent-data:/data shopagent
# The admin key, MCP key and chat token secret the environment does not set (-e
# SHOPAGENT_ADMIN_API_KEY=... etc.) are generated once into the volume:
#   docker run --rm -v shopagent-data:/data --entrypoint cat shopagent /data/generated-secrets.json
# With an external database: add -e SHOPAGENT_DATABASE_URL=postgresql://...
FROM python:3.11-slim

RUN useradd --create-home --uid 10001 shopagent \
    && mkdir /data && chown shopagent:shopagent /data

WORKDIR /app
COPY pyproject.toml README.md config.toml ./
COPY shopagent ./shopagent
RUN pip install --no-cache-dir .

USER shopagent
ENV SHOPAGENT_DATA_DIR=/data \
    SHOPAGENT_RUNTIME__GENERATE_SECRETS=true \
    SHOPAGENT_LOGGING__FORMAT=json \
    SHOPAGENT_HTTP__HOST=0.0.0.0 \
    SHOPAGENT_MCP__HOST=0.0.0.0 \
    SHOPAGENT_OPS__HOST=0.0.0.0
VOLUME ["/data"]
EXPOSE 8080 8000 9090

HEALTHCHECK --interval=10s --timeout=3s --start-period=60s \
    CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:9090/readyz').status == 200 else 1)"

# SIGTERM (docker stop) drains in-flight requests within runtime.shutdown_grace_seconds.
STOPSIGNAL SIGTERM
ENTRYPOINT ["shopagent"]
CMD ["run"]
