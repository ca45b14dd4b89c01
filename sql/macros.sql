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
