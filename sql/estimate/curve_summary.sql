-- Jobs per curve source after an estimate.
SELECT source, count(DISTINCT job_id) FROM throughput_curves GROUP BY source
UNION ALL SELECT 'curve rows', count(*) FROM throughput_curves;
