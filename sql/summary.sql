-- What the warehouse holds, as (what, count) rows in a fixed order.
SELECT what, n FROM (
    SELECT 1 AS ord, 'files loaded' AS what, count(*) AS n FROM ingested_files WHERE status = 'loaded'
    UNION ALL SELECT 2, 'files failed', count(*) FROM ingested_files WHERE status = 'failed'
    UNION ALL SELECT 3, 'job events', count(*) FROM job_events
    UNION ALL SELECT 4, 'throughput samples', count(*) FROM throughput_samples
    UNION ALL SELECT 5, 'capacity rows', count(*) FROM capacity
    UNION ALL SELECT 6, 'tenant quota rows', count(*) FROM tenant_quotas
    UNION ALL SELECT 7, 'rejected rows', count(*) FROM rejected_rows
    UNION ALL SELECT 8, 'jobs', count(*) FROM jobs
    UNION ALL SELECT 9, 'jobs ' || status, count(*) FROM jobs GROUP BY status
) ORDER BY ord, what;
