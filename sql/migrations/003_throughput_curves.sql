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
