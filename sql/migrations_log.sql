-- Bookkeeping of applied schema migrations.

-- name: create
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       VARCHAR NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
);

-- name: applied
SELECT version FROM schema_migrations;

-- name: record
INSERT INTO schema_migrations (version, name) VALUES ($version, $name);
