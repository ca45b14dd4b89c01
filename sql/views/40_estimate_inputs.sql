-- The estimator's narrow inputs (DESIGN §5): what `sql/estimate/fit_curves.sql` reads, and
-- nothing else. A connection that is not a warehouse (the replay, the accuracy harness, the
-- bench) provides tables or Arrow tables of the same names and columns instead.
CREATE OR REPLACE TEMP VIEW est_jobs AS               -- one row per job: the sizes to fit
SELECT job_id, model, min_nodes, max_nodes FROM jobs;

CREATE OR REPLACE TEMP VIEW est_samples AS            -- measured samples/s at a size
SELECT job_id, nodes, machines, throughput FROM throughput_samples;
