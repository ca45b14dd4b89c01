-- Jobs per curve source after a fit, and the number of curve rows.
SELECT source, count(DISTINCT job_id) FROM est_curves GROUP BY source
UNION ALL SELECT 'curve rows', count(*) FROM est_curves;
