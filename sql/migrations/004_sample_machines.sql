-- How many machines a throughput sample's nodes spanned (optional; NULL = not reported). With
-- it the estimator tells a job's single-machine scaling from what it loses across machines.
ALTER TABLE throughput_samples ADD COLUMN IF NOT EXISTS machines INTEGER;
