-- Views are no longer stored in the warehouse: they live in sql/views/ and every connection
-- creates them as TEMP views. Drop the copies that migrations 002 and 003 stored.
DROP VIEW IF EXISTS scaling_efficiency;
DROP VIEW IF EXISTS job_intervals;
DROP VIEW IF EXISTS jobs;
