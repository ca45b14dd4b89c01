-- Replace every curve of the warehouse with the fit of fit_curves.sql (the caller holds the
-- transaction).
DELETE FROM throughput_curves;

INSERT INTO throughput_curves
SELECT job_id, nodes, throughput, source, r2, n_points, current_timestamp FROM est_curves;
