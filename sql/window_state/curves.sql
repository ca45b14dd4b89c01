-- The throughput curves of the jobs live at time $at.
SELECT c.job_id, c.nodes, c.throughput
FROM throughput_curves c
JOIN jobs j USING (job_id)
WHERE j.submit_time <= $at AND (j.finish_time IS NULL OR j.finish_time > $at);
