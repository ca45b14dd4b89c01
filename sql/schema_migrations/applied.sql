-- The migrations already applied.
SELECT version FROM schema_migrations;
