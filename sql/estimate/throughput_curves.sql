-- Throughput curves for every job (DESIGN §5). Amdahl: 1/f(n) = a + b/n, least squares of
-- 1/throughput on 1/n over the job's per-size MEDIAN throughput (one absurd sample cannot move
-- a median of three). Fallbacks: the model class's shape scaled to the job's own observed point,
-- the class curve, a global default. Shapes are written as the serial fraction
-- s = a / (a + b), so f(n) = f(1) · n / (1 + s (n − 1)).

-- name: points
CREATE OR REPLACE TEMP TABLE est_points AS
SELECT job_id, nodes, median(throughput) AS tp, count(*) AS k
FROM throughput_samples
GROUP BY job_id, nodes;

-- name: fits
CREATE OR REPLACE TEMP TABLE est_fits AS
WITH f AS (
    SELECT job_id,
           regr_intercept(1.0 / tp, 1.0 / nodes) AS a,
           regr_slope(1.0 / tp, 1.0 / nodes) AS b,
           regr_r2(1.0 / tp, 1.0 / nodes) AS r2,
           regr_count(1.0 / tp, 1.0 / nodes) AS n_points
    FROM est_points GROUP BY job_id
    HAVING count(*) >= 2
)
-- b > 0 means more nodes are faster; a < 0 (super-linear) is clamped to linear scaling
SELECT job_id, greatest(a, 0.0) AS a, b, r2, n_points,
       greatest(a, 0.0) / (greatest(a, 0.0) + b) AS serial,
       1.0 / (greatest(a, 0.0) + b) AS f1
FROM f WHERE b > 0;

-- name: anchors
-- Each job's best observed point: the size with the most samples (then the largest).
CREATE OR REPLACE TEMP TABLE est_anchor AS
SELECT job_id, arg_max(nodes, (k, nodes)) AS n0, arg_max(tp, (k, nodes)) AS y0,
       count(*) AS n_points
FROM est_points GROUP BY job_id;

-- name: classes
CREATE OR REPLACE TEMP TABLE est_class AS
WITH spec AS (SELECT job_id, model FROM jobs WHERE model IS NOT NULL),
shape AS (
    SELECT s.model, median(f.serial) AS serial FROM est_fits f JOIN spec s USING (job_id)
    GROUP BY s.model
),
overall AS (SELECT coalesce(median(serial), 0.1) AS serial FROM est_fits),
scale AS (
    -- single-node throughput of each observed job under its class shape
    SELECT s.model,
           median(coalesce(f.f1, a.y0 * (1 + coalesce(sh.serial, g.serial) * (a.n0 - 1)) / a.n0))
               AS f1
    FROM est_anchor a JOIN spec s USING (job_id)
    LEFT JOIN est_fits f USING (job_id)
    LEFT JOIN shape sh ON sh.model = s.model
    CROSS JOIN overall g
    GROUP BY s.model
)
SELECT sc.model, coalesce(sh.serial, g.serial) AS serial, sc.f1
FROM scale sc LEFT JOIN shape sh USING (model) CROSS JOIN overall g;

-- name: global
CREATE OR REPLACE TEMP TABLE est_global AS
SELECT (SELECT coalesce(median(serial), 0.1) FROM est_fits) AS serial,
       coalesce((SELECT median(coalesce(f.f1, a.y0 * (1 + 0.1 * (a.n0 - 1)) / a.n0))
                 FROM est_anchor a LEFT JOIN est_fits f USING (job_id)), 1.0) AS f1;

-- name: write
DELETE FROM throughput_curves;

INSERT INTO throughput_curves
WITH params AS (
    SELECT j.job_id, j.min_nodes, j.max_nodes,
           CASE WHEN f.job_id IS NOT NULL THEN 'job'
                WHEN c.model IS NOT NULL THEN 'model'
                ELSE 'global' END AS source,
           coalesce(f.serial, c.serial, g.serial) AS serial,
           f.f1 AS fit_f1, a.n0, a.y0, coalesce(c.f1, g.f1) AS class_f1,
           f.r2, coalesce(a.n_points, 0) AS n_points
    FROM jobs j
    LEFT JOIN est_fits f USING (job_id)
    LEFT JOIN est_anchor a USING (job_id)
    LEFT JOIN est_class c ON c.model = j.model
    CROSS JOIN est_global g
),
curve AS (
    SELECT p.job_id, CAST(n.nodes AS INTEGER) AS nodes, p.source, p.r2, p.n_points,
           CASE
               WHEN p.fit_f1 IS NOT NULL THEN p.fit_f1
               -- the job's own point under the borrowed shape
               WHEN p.n0 IS NOT NULL THEN p.y0 * (1 + p.serial * (p.n0 - 1)) / p.n0
               ELSE p.class_f1
           END * n.nodes / (1 + p.serial * (n.nodes - 1)) AS tp
    FROM params p, LATERAL generate_series(p.min_nodes, p.max_nodes) n(nodes)
)
SELECT job_id, nodes,
       -- never decreasing in n, never zero
       greatest(max(tp) OVER (PARTITION BY job_id ORDER BY nodes
                              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), 1e-9),
       source, r2, n_points, current_timestamp
FROM curve;
