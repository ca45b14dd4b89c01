-- Throughput curves for every job (DESIGN §5). Amdahl: 1/f(n) = a + b/n, least squares of
-- 1/throughput on 1/n over the job's per-size MEDIAN throughput (one absurd sample cannot move
-- a median of three). Fallbacks: the model class's shape scaled to the job's own observed point,
-- the class curve, a global default. Shapes are written as the serial fraction
-- s = a / (a + b), so f(n) = f(1) · n / (1 + s (n − 1)).
--
-- Machines. Where samples say how many machines they spanned (`machines`), the machine size is
-- the largest node count any sample ran on one machine. Amdahl is then fitted on one machine's
-- sizes only, and past one machine a job runs at the lowest per-node throughput it showed
-- across machines (each step pays the cross-machine synchronisation it measured), or, with no
-- such sample of its own, at its class's median cross-machine efficiency (that per-node
-- throughput over the single-node one). Curves are for nodes packed onto as few machines as
-- possible; a sample spread over more machines than that informs the cross-machine rate only.
--
-- Inputs: the narrow views est_jobs(job_id, model, min_nodes, max_nodes) and
-- est_samples(job_id, nodes, machines, throughput) (sql/views/40_estimate_inputs.sql), or tables of
-- those names in a connection that is not a warehouse. Output: the temp table est_curves; the
-- statements below run top to bottom, each building on the ones before. A job whose sizes are
-- null gets no curve rows and informs its model class only (the replay passes its finished jobs
-- so): nothing but the curves' own rows reads min_nodes / max_nodes.

-- NULL (machines ignored) unless some sample ran 2 or more nodes on one machine: where a node is
-- a whole machine, the machine count says nothing the node count does not.
CREATE OR REPLACE TEMP TABLE est_machine AS
SELECT nullif(greatest(max(nodes) FILTER (WHERE machines = 1), 1), 1) AS size
FROM est_samples;

-- Per job and size the median sample; samples spread over more machines than packing needs are
-- kept apart (spread = their machine count).
CREATE OR REPLACE TEMP TABLE est_groups AS
WITH p AS (
    SELECT t.job_id, t.nodes, t.throughput, t.machines,
           CAST(ceil(t.nodes / m.size) AS INTEGER) AS packed
    FROM est_samples t CROSS JOIN est_machine m
),
s AS (
    SELECT job_id, nodes, throughput, coalesce(machines, packed) AS machines, packed FROM p
)
SELECT job_id, nodes, CASE WHEN machines > packed THEN machines END AS spread,
       max(machines) AS machines, median(throughput) AS tp, count(*) AS k
FROM s GROUP BY job_id, nodes, spread;

CREATE OR REPLACE TEMP TABLE est_points AS
SELECT g.job_id, g.nodes, g.tp, g.k, (m.size IS NULL OR g.nodes <= m.size) AS one_machine
FROM est_groups g CROSS JOIN est_machine m
WHERE g.spread IS NULL;

CREATE OR REPLACE TEMP TABLE est_fits AS
WITH f AS (
    SELECT job_id,
           regr_intercept(1.0 / tp, 1.0 / nodes) AS a,
           regr_slope(1.0 / tp, 1.0 / nodes) AS b,
           regr_r2(1.0 / tp, 1.0 / nodes) AS r2,
           regr_count(1.0 / tp, 1.0 / nodes) AS n_points
    FROM est_points WHERE one_machine GROUP BY job_id
    HAVING count(*) >= 2
)
-- b > 0 means more nodes are faster; a < 0 (super-linear) is clamped to linear scaling
SELECT job_id, greatest(a, 0.0) AS a, b, r2, n_points,
       greatest(a, 0.0) / (greatest(a, 0.0) + b) AS serial,
       1.0 / (greatest(a, 0.0) + b) AS f1
FROM f WHERE b > 0;

-- Each job's lowest per-node throughput across machines, packed or spread.
CREATE OR REPLACE TEMP TABLE est_cross AS
SELECT g.job_id, min(g.tp / g.nodes) AS per_node
FROM est_groups g CROSS JOIN est_machine m
WHERE m.size IS NOT NULL AND g.machines >= 2
GROUP BY g.job_id;

-- Each job's best observed point: on one machine if it has one, the size with the most samples
-- (then the largest).
CREATE OR REPLACE TEMP TABLE est_anchor AS
SELECT job_id, arg_max(nodes, (one_machine, k, nodes)) AS n0,
       arg_max(tp, (one_machine, k, nodes)) AS y0,
       NOT bool_or(one_machine) AS across, count(*) AS n_points
FROM est_points GROUP BY job_id;

CREATE OR REPLACE TEMP TABLE est_class AS
WITH spec AS (SELECT job_id, model FROM est_jobs WHERE model IS NOT NULL),
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
    -- a point across machines says little of one machine's speed under a single-machine shape
    WHERE f.f1 IS NOT NULL OR NOT a.across
    GROUP BY s.model
)
SELECT sc.model, coalesce(sh.serial, g.serial) AS serial, sc.f1
FROM scale sc LEFT JOIN shape sh USING (model) CROSS JOIN overall g;

-- Per model, the median cross-machine efficiency of its fitted jobs: per-node throughput across
-- machines over the fitted single-node throughput.
CREATE OR REPLACE TEMP TABLE est_class_cross AS
SELECT s.model, median(x.per_node / f.f1) AS eff
FROM est_cross x JOIN est_fits f USING (job_id) JOIN est_jobs s USING (job_id)
WHERE s.model IS NOT NULL
GROUP BY s.model;

CREATE OR REPLACE TEMP TABLE est_global AS
SELECT (SELECT coalesce(median(serial), 0.1) FROM est_fits) AS serial,
       coalesce((SELECT median(coalesce(f.f1, a.y0 * (1 + 0.1 * (a.n0 - 1)) / a.n0))
                 FROM est_anchor a LEFT JOIN est_fits f USING (job_id)
                 WHERE f.f1 IS NOT NULL OR NOT a.across), 1.0) AS f1;

-- What the class measured when a job went from m to n nodes: per model and pair of sizes, the
-- median of measured(n) / measured(m) over the class's jobs that ran at both.
CREATE OR REPLACE TEMP TABLE est_class_ratio AS
SELECT s.model, lo.nodes AS m, hi.nodes AS n, median(hi.tp / lo.tp) AS ratio,
       count(*) AS jobs
FROM est_points lo
JOIN est_points hi ON hi.job_id = lo.job_id AND hi.nodes > lo.nodes
JOIN est_jobs s ON s.job_id = lo.job_id
WHERE s.model IS NOT NULL
GROUP BY ALL;

-- The curves: one row per job and size from min_nodes to max_nodes.
CREATE OR REPLACE TEMP TABLE est_curves AS
WITH params AS (
    SELECT j.job_id, j.model, j.min_nodes, j.max_nodes,
           CASE WHEN f.job_id IS NOT NULL THEN 'job'
                WHEN c.model IS NOT NULL THEN 'model'
                ELSE 'global' END AS source,
           coalesce(f.serial, c.serial, g.serial) AS serial,
           f.f1 AS fit_f1, a.n0, a.y0, a.across, coalesce(c.f1, g.f1) AS class_f1,
           x.per_node AS cross_per_node, cc.eff AS class_eff, m.size AS machine,
           f.r2, coalesce(a.n_points, 0) AS n_points
    FROM est_jobs j
    LEFT JOIN est_fits f USING (job_id)
    LEFT JOIN est_anchor a USING (job_id)
    LEFT JOIN est_class c ON c.model = j.model
    LEFT JOIN est_cross x USING (job_id)
    LEFT JOIN est_class_cross cc ON cc.model = j.model
    CROSS JOIN est_global g
    CROSS JOIN est_machine m
),
single AS (
    -- the job's single-node throughput
    SELECT *,
           CASE
               WHEN fit_f1 IS NOT NULL THEN fit_f1
               -- its own point across machines under the class's cross-machine efficiency
               WHEN n0 IS NOT NULL AND across AND class_eff > 0 THEN y0 / (n0 * class_eff)
               -- its own point under the borrowed shape
               WHEN n0 IS NOT NULL THEN y0 * (1 + serial * (n0 - 1)) / n0
               ELSE class_f1
           END AS f1
    FROM params
),
curve AS (
    SELECT p.job_id, p.model, CAST(n.nodes AS INTEGER) AS nodes, p.source, p.r2, p.n_points,
           p.machine,
           -- past one machine, at the job's own cross-machine rate
           n.nodes > p.machine AND p.cross_per_node IS NOT NULL AS own_cross,
           CASE
               WHEN own_cross THEN n.nodes * p.cross_per_node
               WHEN n.nodes > p.machine AND p.class_eff IS NOT NULL
                   THEN n.nodes * p.class_eff * p.f1
               ELSE p.f1 * n.nodes / (1 + p.serial * (n.nodes - 1))
           END AS tp
    FROM single p, LATERAL generate_series(p.min_nodes, p.max_nodes) n(nodes)
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
    SELECT b.job_id, b.nodes, b.source, b.r2, b.n_points, cs.tp AS class_tp, b.own_cross,
           b.tp * CASE
               WHEN b.r_lo IS NULL AND b.r_hi IS NULL THEN 1.0
               -- the job's own cross-machine rate is measured, not fitted: a one-machine
               -- size's ratio to the fitted form does not carry over to it
               WHEN b.r_hi IS NULL AND b.own_cross AND b.n_lo <= b.machine THEN 1.0
               WHEN b.r_lo IS NULL THEN b.r_hi
               WHEN b.r_hi IS NULL OR b.n_hi = b.n_lo THEN b.r_lo
               ELSE b.r_lo + (b.r_hi - b.r_lo) * (b.nodes - b.n_lo) / (b.n_hi - b.n_lo)
           END AS own_tp
    FROM bracket b LEFT JOIN class_scaled cs USING (job_id, nodes)
),
-- past one machine, a job with its own cross-machine rate takes the lower of that rate and what
-- its class measured: neither is planned faster than it measured
chosen AS (
    SELECT job_id, nodes, source, r2, n_points,
           CASE WHEN own_cross THEN least(coalesce(class_tp, own_tp), own_tp)
                ELSE coalesce(class_tp, own_tp) END AS tp
    FROM corrected
),
-- measurement noise must not read as super-linear scaling: at most linear from the smallest size
sublinear AS (
    SELECT job_id, nodes, source, r2, n_points,
           least(tp, first_value(tp) OVER w * nodes / first_value(nodes) OVER w) AS tp
    FROM chosen
    WINDOW w AS (PARTITION BY job_id ORDER BY nodes)
)
SELECT job_id, nodes,
       -- never decreasing in n, never zero
       greatest(max(tp) OVER (PARTITION BY job_id ORDER BY nodes
                              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), 1e-9) AS throughput,
       source, r2, n_points
FROM sublinear;
