# The platform image. Every platform service of docker-compose.yml runs from it — the Dagster
# user-code server, webserver and daemon, each run container the Docker run launcher starts,
# and the MCP service — so code, instance config and dependencies never drift apart.
FROM python:3.11.13-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    UV_NO_CACHE=1 \
    KP_HOME=/data \
    KP_CONFIG=/config/registry.yaml \
    DAGSTER_HOME=/opt/dagster/home

# git: the git_docs source clones and reads repositories. uv: installs the hashed lock.
# /data is KP_HOME; a fresh named volume mounted there inherits its owner.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git \
 && rm -rf /var/lib/apt/lists/* \
 && pip install --no-cache-dir uv==0.13.9 \
 && useradd --uid 10001 --create-home --shell /usr/sbin/nologin kp \
 && mkdir -p /data /config /sources "$DAGSTER_HOME" \
 && chown kp:kp /data "$DAGSTER_HOME"

WORKDIR /app
# Dependencies first: this layer is rebuilt only when the lock changes. The runtime and the
# production extra (Postgres storage, the Docker run launcher); no test or lint tools.
COPY requirements-production.lock ./
RUN uv pip sync --system requirements-production.lock

COPY pyproject.toml README.md dagster.yaml workspace.yaml ./
COPY knowledge_platform ./knowledge_platform
COPY resources ./resources
COPY assets ./assets
COPY mcp_service ./mcp_service
COPY kp ./kp
# Editable, as scripts/bootstrap does: the code stays at /app (the repository root the
# settings expect) and `kp` is on PATH.
RUN uv pip install --system --no-deps -e .

COPY deploy/dagster.prod.yaml ${DAGSTER_HOME}/dagster.yaml
COPY deploy/workspace.prod.yaml ${DAGSTER_HOME}/workspace.yaml

USER kp
EXPOSE 3000 4000 8001
CMD ["kp", "--help"]
