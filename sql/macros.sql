-- Temporary macros created on every connection (they hold no data).

-- A whole number from a DOUBLE, or NULL when missing, not whole ('2.5' is not 2) or too large.
CREATE OR REPLACE TEMP MACRO etplan_whole(d) AS
    CASE WHEN d = trunc(d) AND abs(d) < 2147483647 THEN CAST(d AS INTEGER) END;

-- Text, with blank strings treated as missing.
CREATE OR REPLACE TEMP MACRO etplan_text(v) AS nullif(trim(CAST(v AS VARCHAR)), '');

-- The value as it was written, for messages.
CREATE OR REPLACE TEMP MACRO etplan_show(v) AS '''' || CAST(v AS VARCHAR) || '''';

-- Why a value the row needs could not be read: missing (absent or blank), or `raw` is not
-- `kind` (e.g. 'a whole number').
CREATE OR REPLACE TEMP MACRO etplan_unreadable(name, raw, kind) AS
    CASE WHEN raw IS NULL OR etplan_text(raw) IS NULL THEN 'missing field: ' || name
         ELSE 'bad type: ' || name || ' ' || etplan_show(raw) || ' is not ' || kind END;

-- Physical bounds (docs/data-contracts.md "Bounds"): every number and time a row carries must be
-- one the platform can have produced.
-- A timestamp from text written as ISO 8601 (date, optional time, optional Z or an offset of at
-- most ±14:00); NULL for anything else ('infinity', 'epoch', 'yesterday', '+25:00'). A value
-- already typed as a date or timestamp (a Parquet column) is taken as it is when finite, the
-- value its text would give, without the round trip through text (40x as fast).
CREATE OR REPLACE TEMP MACRO etplan_time(v) AS
    CASE WHEN typeof(v) IN ('TIMESTAMP WITH TIME ZONE', 'TIMESTAMP', 'DATE', 'TIMESTAMP_S',
                            'TIMESTAMP_MS')
         THEN CASE WHEN isfinite(TRY_CAST(v AS TIMESTAMPTZ)) THEN TRY_CAST(v AS TIMESTAMPTZ) END
         WHEN regexp_full_match(trim(CAST(v AS VARCHAR)),
              '\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?\s*([Zz]|[+-](0\d|1[0-4])(:?[0-5]\d)?)?')
         THEN TRY_CAST(trim(CAST(v AS VARCHAR)) AS TIMESTAMPTZ) END;

-- Why time `t` of column `name` is out of bounds (after 1970-01-01T00:00:00Z, before 2200), or NULL.
CREATE OR REPLACE TEMP MACRO etplan_time_bounds(name, t) AS
    CASE WHEN t <= TIMESTAMPTZ '1970-01-01 00:00:00+00' OR t >= TIMESTAMPTZ '2200-01-01 00:00:00+00'
         THEN 'out of bounds: ' || name || ' ' || strftime(t, '%Y-%m-%dT%H:%M:%SZ')
              || ' is not between 1970-01-01 and 2200-01-01' END;

-- Why count `d` of column `name` is too large (more than `hi` either way), or NULL.
CREATE OR REPLACE TEMP MACRO etplan_too_large(name, d, hi) AS
    CASE WHEN isfinite(d) AND abs(d) > hi
         THEN 'out of bounds: ' || name || ' ' || CAST(d AS VARCHAR) || ' is more than '
              || CAST(CAST(hi AS BIGINT) AS VARCHAR) END;

-- Why positive number `d` of column `name` is outside [lo, hi], or NULL.
CREATE OR REPLACE TEMP MACRO etplan_outside(name, d, lo, hi) AS
    CASE WHEN d > 0 AND isfinite(d) AND (d < lo OR d > hi)
         THEN 'out of bounds: ' || name || ' ' || CAST(d AS VARCHAR) || ' is not within ['
              || CAST(lo AS VARCHAR) || ', ' || CAST(hi AS VARCHAR) || ']' END;

-- Why time `t` of column `name`, read from the text `raw`, is unusable: missing, not ISO 8601, or
-- out of bounds; NULL when it is good.
CREATE OR REPLACE TEMP MACRO etplan_time_reason(name, raw, t) AS
    CASE WHEN t IS NULL THEN etplan_unreadable(name, raw, 'an ISO 8601 timestamp')
         ELSE etplan_time_bounds(name, t) END;

-- Why node count `n` of column `name` (`raw` as written, `d` read as a DOUBLE, `n` its whole
-- value) is not a whole number in [0, 1000000]; NULL when it is.
CREATE OR REPLACE TEMP MACRO etplan_count_reason(name, raw, d, n) AS
    coalesce(etplan_too_large(name, d, 1000000),
             CASE WHEN n IS NULL THEN etplan_unreadable(name, raw, 'a whole number')
                  WHEN n < 0 THEN name || ' must be at least 0 (got ' || n || ')' END);

-- The stable code of a reject reason (rejected_rows.rule): what kind of rule the row broke.
CREATE OR REPLACE TEMP MACRO etplan_rule(reason) AS
    CASE
        WHEN reason IS NULL THEN NULL
        WHEN reason LIKE 'missing field%' THEN 'missing_field'
        WHEN reason LIKE 'bad type%' THEN 'bad_type'
        WHEN reason LIKE 'out of bounds%' THEN 'out_of_bounds'
        WHEN reason LIKE 'duplicate%' THEN 'duplicate'
        WHEN reason LIKE 'out of order%' OR reason LIKE 'job % already submitted%'
            THEN 'bad_event_order'
        WHEN reason LIKE 'unknown event%' THEN 'unknown_event'
        WHEN reason LIKE 'unknown job%' THEN 'unknown_job'
        WHEN reason LIKE '%nodes must be at least%' THEN 'negative_nodes'
        WHEN reason LIKE 'min_nodes % > max_nodes %' THEN 'min_gt_max'
        WHEN reason LIKE 'guaranteed_nodes % > max_nodes %' THEN 'guaranteed_gt_max'
        WHEN reason LIKE 'requested_nodes % outside%' OR reason LIKE 'nodes % outside the job%'
            THEN 'nodes_outside_range'
        WHEN reason LIKE 'machines must be%' THEN 'bad_machines'
        WHEN reason LIKE '% must be > 0%' THEN 'not_positive'
        WHEN reason LIKE 'malformed%' OR reason LIKE 'too many fields%' THEN 'malformed_line'
        WHEN reason LIKE 'invalid encoding%' OR reason LIKE 'invalid unicode%' THEN 'bad_encoding'
        ELSE 'other'
    END;
