# The etplan worker image: the project and its dependencies, running the scheduled pipeline.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY flows ./flows
COPY solver ./solver
COPY warehouse ./warehouse
COPY replay ./replay
COPY sources ./sources
COPY report ./report
COPY sql ./sql
RUN pip install --no-cache-dir . \
 && useradd --create-home etplan \
 && mkdir -p /data && chown etplan /data
USER etplan
ENV ETPLAN_WAREHOUSE=/data/etplan.duckdb \
    ETPLAN_OUTPUTS=/data/out \
    PREFECT_SERVER_ANALYTICS_ENABLED=false
VOLUME ["/data"]
# serve the pipeline deployment on its cron schedule against the Prefect server
CMD ["etplan", "serve", "/data/logs", "--cron", "*/10 * * * *"]
