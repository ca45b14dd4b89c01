-- Start each file with empty scratch tables.
CREATE OR REPLACE TEMP TABLE parse_rejects (_row BIGINT, _raw VARCHAR, reason VARCHAR);
DROP TABLE IF EXISTS csv_rejects;
DROP TABLE IF EXISTS csv_scans;
