-- rejected_rows.rule: the stable code of the rule a row broke (missing_field, bad_type,
-- out_of_bounds, duplicate, bad_event_order, ...; macro etplan_rule in sql/macros.sql) beside
-- its human reason. Rows rejected before this migration get the code their reason names.
ALTER TABLE rejected_rows ADD COLUMN IF NOT EXISTS rule VARCHAR;
UPDATE rejected_rows SET rule = etplan_rule(reason) WHERE rule IS NULL;
