-- The fitted curves as (job_id, nodes, samples/s), for a caller outside the warehouse.
SELECT job_id, nodes, throughput FROM est_curves;
