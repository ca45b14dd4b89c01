# The etplan image: the project and its dependencies in /app (ETPLAN_HOME). Its data — the logs
# to ingest (data/logs), the warehouse (data/etplan.duckdb), the outputs (data/out) — is the
# volume /app/data, the same relative paths as a checkout and prefect.yaml. docker-compose.yml
# runs it as a Prefect worker polling the `etplan` pool; `etplan serve` is the default command.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md prefect.yaml ./
COPY flows ./flows
COPY solver ./solver
COPY warehouse ./warehouse
COPY replay ./replay
COPY sources ./sources
COPY report ./report
COPY sql ./sql
RUN pip install --no-cache-dir . \
 && useradd --create-home etplan \
 && mkdir -p /app/data/logs /app/.prefect && chown -R etplan /app/data /app/.prefect
USER etplan
ENV ETPLAN_HOME=/app \
    ETPLAN_WAREHOUSE=/app/data/etplan.duckdb \
    ETPLAN_OUTPUTS=/app/data/out \
    PREFECT_HOME=/app/.prefect \
    PREFECT_SERVER_ANALYTICS_ENABLED=false
VOLUME ["/app/data"]
CMD ["etplan", "serve", "data/logs"]
