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

-- name: class_ratios
-- What the class measured when a job went from m to n nodes: per model and pair of sizes, the
-- median of measured(n) / measured(m) over the class's jobs that ran at both.
CREATE OR REPLACE TEMP TABLE est_class_ratio AS
SELECT s.model, lo.nodes AS m, hi.nodes AS n, median(hi.tp / lo.tp) AS ratio,
       count(*) AS jobs
FROM est_points lo
JOIN est_points hi ON hi.job_id = lo.job_id AND hi.nodes > lo.nodes
JOIN jobs s ON s.job_id = lo.job_id
WHERE s.model IS NOT NULL
GROUP BY ALL;

-- name: write
DELETE FROM throughput_curves;

INSERT INTO throughput_curves
WITH params AS (
    SELECT j.job_id, j.model, j.min_nodes, j.max_nodes,
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
    SELECT p.job_id, p.model, CAST(n.nodes AS INTEGER) AS nodes, p.source, p.r2, p.n_points,
           CASE
               WHEN p.fit_f1 IS NOT NULL THEN p.fit_f1
               -- the job's own point under the borrowed shape
               WHEN p.n0 IS NOT NULL THEN p.y0 * (1 + p.serial * (p.n0 - 1)) / p.n0
               ELSE p.class_f1
           END * n.nodes / (1 + p.serial * (n.nodes - 1)) AS tp
    FROM params p, LATERAL generate_series(p.min_nodes, p.max_nodes) n(nodes)
),
-- Data beats the form: where the job has samples, the curve goes through their median; between
-- two measured sizes the ratio measured / fitted is interpolated linearly in n, and beyond the
-- measured sizes the nearest measured ratio holds. So a job that slowed down when it spanned
-- more machines is planned at what it measured, not at what a curve fitted elsewhere says.
measured AS (
    SELECT c.*, e.tp / c.tp AS ratio, e.tp AS seen
    FROM curve c LEFT JOIN est_points e ON e.job_id = c.job_id AND e.nodes = c.nodes
),
bracket AS (
    SELECT *,
           last_value(CASE WHEN ratio IS NOT NULL THEN nodes END IGNORE NULLS) OVER below AS n_lo,
           last_value(ratio IGNORE NULLS) OVER below AS r_lo,
           first_value(CASE WHEN ratio IS NOT NULL THEN nodes END IGNORE NULLS) OVER above
               AS n_hi,
           first_value(ratio IGNORE NULLS) OVER above AS r_hi,
           last_value(seen IGNORE NULLS) OVER below AS seen_lo
    FROM measured
    WINDOW below AS (PARTITION BY job_id ORDER BY nodes
                     ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
           above AS (PARTITION BY job_id ORDER BY nodes
                     ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)
),
-- Past its largest measured size m, a job scales as its class measured from m (when some job of
-- the class ran at m and at larger sizes): the class's ratios measured(n) / measured(m),
-- interpolated linearly in n from 1 at m, and past the class's largest size n' continued by
-- the job's fitted form, base(n) / base(n'). So a class that slows down when it spans machines
-- is not planned to speed up there.
class_lo AS (
    SELECT b.job_id, b.nodes, lo.n AS n, lo.ratio AS ratio
    FROM bracket b ASOF JOIN est_class_ratio lo
        ON lo.model = b.model AND lo.m = b.n_lo AND lo.n <= b.nodes
    WHERE b.r_hi IS NULL
),
class_hi AS (
    SELECT b.job_id, b.nodes, hi.n AS n, hi.ratio AS ratio
    FROM bracket b ASOF JOIN est_class_ratio hi
        ON hi.model = b.model AND hi.m = b.n_lo AND hi.n >= b.nodes
    WHERE b.r_hi IS NULL
),
class_scaled AS (
    SELECT b.job_id, b.nodes,
           b.seen_lo * CASE
               WHEN h.n IS NOT NULL AND h.n = b.nodes THEN h.ratio
               WHEN h.n IS NOT NULL THEN
                   coalesce(l.ratio, 1.0) + (h.ratio - coalesce(l.ratio, 1.0))
                   * (b.nodes - coalesce(l.n, b.n_lo)) / (h.n - coalesce(l.n, b.n_lo))
               ELSE l.ratio * b.tp / c.tp
           END AS tp
    FROM bracket b
    LEFT JOIN class_lo l USING (job_id, nodes)
    LEFT JOIN class_hi h USING (job_id, nodes)
    LEFT JOIN curve c ON c.job_id = b.job_id AND c.nodes = l.n
    WHERE b.r_hi IS NULL AND (l.n IS NOT NULL OR h.n IS NOT NULL)
),
corrected AS (
    SELECT b.job_id, b.nodes, b.source, b.r2, b.n_points,
           coalesce(cs.tp, b.tp * CASE
               WHEN b.r_lo IS NULL AND b.r_hi IS NULL THEN 1.0
               WHEN b.r_lo IS NULL THEN b.r_hi
               WHEN b.r_hi IS NULL OR b.n_hi = b.n_lo THEN b.r_lo
               ELSE b.r_lo + (b.r_hi - b.r_lo) * (b.nodes - b.n_lo) / (b.n_hi - b.n_lo)
           END) AS tp
    FROM bracket b LEFT JOIN class_scaled cs USING (job_id, nodes)
),
-- measurement noise must not read as super-linear scaling: at most linear from the smallest size
sublinear AS (
    SELECT job_id, nodes, source, r2, n_points,
           least(tp, first_value(tp) OVER w * nodes / first_value(nodes) OVER w) AS tp
    FROM corrected
    WINDOW w AS (PARTITION BY job_id ORDER BY nodes)
)
SELECT job_id, nodes,
       -- never decreasing in n, never zero
       greatest(max(tp) OVER (PARTITION BY job_id ORDER BY nodes
                              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), 1e-9),
       source, r2, n_points, current_timestamp
FROM sublinear;
