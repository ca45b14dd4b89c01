-- The fourth input feed (DESIGN §3.1, §4.2): a tenant's quota from effective_from on. In every
-- slot its jobs hold at most max_nodes and, as far as they can use them, at least
-- guaranteed_nodes (0 <= guaranteed_nodes <= max_nodes, checked by sql/ingest/stage_tenant_quotas.sql).
CREATE TABLE IF NOT EXISTS tenant_quotas (
    file_id          BIGINT NOT NULL,
    row_no           BIGINT NOT NULL,
    tenant           VARCHAR NOT NULL,
    effective_from   TIMESTAMPTZ NOT NULL,
    max_nodes        INTEGER NOT NULL,
    guaranteed_nodes INTEGER NOT NULL
);
