-- Temporary macros created on every connection (they hold no data).

-- An integer, or NULL when the value is missing, not a number or not whole ('2.5' is not 2).
CREATE OR REPLACE TEMP MACRO etplan_int(v) AS
    CASE WHEN TRY_CAST(v AS DOUBLE) IS NOT NULL
              AND TRY_CAST(v AS DOUBLE) = trunc(TRY_CAST(v AS DOUBLE))
              AND abs(TRY_CAST(v AS DOUBLE)) < 2147483647
         THEN CAST(TRY_CAST(v AS DOUBLE) AS INTEGER) END;

-- A finite double, or NULL.
CREATE OR REPLACE TEMP MACRO etplan_num(v) AS
    CASE WHEN isfinite(TRY_CAST(v AS DOUBLE)) THEN TRY_CAST(v AS DOUBLE) END;

-- Text, with blank strings treated as missing.
CREATE OR REPLACE TEMP MACRO etplan_text(v) AS nullif(trim(CAST(v AS VARCHAR)), '');

-- The value as it was written, for messages.
CREATE OR REPLACE TEMP MACRO etplan_show(v) AS '''' || CAST(v AS VARCHAR) || '''';
