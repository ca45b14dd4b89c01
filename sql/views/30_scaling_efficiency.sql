-- throughput(n) / (n × throughput(1)): 1 is perfect linear scaling. Where 1 node is below the
-- job's minimum, the per-node throughput at its smallest size stands in for throughput(1).
CREATE OR REPLACE TEMP VIEW scaling_efficiency AS
SELECT c.job_id, c.nodes, c.throughput,
       c.throughput / (c.nodes * one.per_node) AS efficiency, c.source
FROM throughput_curves c
JOIN (SELECT job_id, arg_min(throughput / nodes, nodes) AS per_node
      FROM throughput_curves GROUP BY job_id) one USING (job_id);
