-- The throughput samples in time order (replay input).
SELECT job_id, sample_time, nodes, throughput, machines FROM throughput_samples
ORDER BY sample_time, job_id;
