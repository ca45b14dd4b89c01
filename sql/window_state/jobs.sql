-- The jobs a planner sees at time $at: submitted and not finished, their current size, the work
-- they have left (total minus what their intervals did at the estimated speed, less $rescale
-- seconds per interval), how long they have waited, and the seconds since their size last
-- changed (the start of their current interval; NULL when not running).
WITH live AS (
    SELECT * FROM jobs
    WHERE submit_time <= $at AND (finish_time IS NULL OR finish_time > $at)
),
iv AS (
    SELECT i.job_id, i.nodes, i.start_time,
           greatest(epoch(least(coalesce(i.end_time, $at), $at) - i.start_time) - $rescale, 0)
               AS busy_s,
           i.start_time <= $at AND (i.end_time IS NULL OR i.end_time > $at) AS current
    FROM job_intervals i JOIN live USING (job_id)
    WHERE i.start_time < $at
),
done AS (
    SELECT iv.job_id,
           sum(iv.busy_s * coalesce(c.throughput, 0)) AS work_done,
           max(CASE WHEN iv.current THEN iv.nodes END) AS current_nodes,
           max(CASE WHEN iv.current THEN iv.start_time END) AS current_since
    FROM iv LEFT JOIN throughput_curves c ON c.job_id = iv.job_id AND c.nodes = iv.nodes
    GROUP BY iv.job_id
)
SELECT l.job_id, l.tenant, l.min_nodes, l.max_nodes, l.requested_nodes, l.total_work, l.weight,
       coalesce(d.current_nodes, 0) AS current_nodes,
       epoch($at - d.current_since) AS seconds_since_resize,
       -- a job the estimate says is done still has something left: it has not reported so
       greatest(l.total_work - coalesce(d.work_done, 0), 0.01 * l.total_work) AS remaining_work,
       CASE WHEN l.first_start IS NULL OR l.first_start > $at
            THEN epoch($at - l.submit_time) ELSE 0 END AS waiting_seconds
FROM live l LEFT JOIN done d USING (job_id)
ORDER BY l.submit_time, l.job_id;
