-- What a replay needs from a warehouse, as plain rows: the jobs in submit order.
SELECT job_id, submit_time AS submit, min_nodes, max_nodes, requested_nodes, total_work,
       weight, model, tenant
FROM jobs ORDER BY submit_time, job_id;
