-- Estimated throughput curves (DESIGN §5), replaced by each `etplan estimate`.
CREATE TABLE IF NOT EXISTS throughput_curves (
    job_id     VARCHAR NOT NULL,
    nodes      INTEGER NOT NULL,
    throughput DOUBLE NOT NULL,      -- samples/s
    source     VARCHAR NOT NULL,     -- job | model | global
    r2         DOUBLE,               -- fit quality of the job's own Amdahl fit (source = job)
    n_points   INTEGER NOT NULL,     -- node counts with samples for this job
    fitted_at  TIMESTAMPTZ NOT NULL
);

-- throughput(n) / (n × throughput(1)): 1 is perfect linear scaling. Where 1 node is below the
-- job's minimum, the per-node throughput at its smallest size stands in for throughput(1).
CREATE OR REPLACE VIEW scaling_efficiency AS
SELECT c.job_id, c.nodes, c.throughput,
       c.throughput / (c.nodes * one.per_node) AS efficiency, c.source
FROM throughput_curves c
JOIN (SELECT job_id, arg_min(throughput / nodes, nodes) AS per_node
      FROM throughput_curves GROUP BY job_id) one USING (job_id);
