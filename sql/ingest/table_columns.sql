-- The columns of the scratch table $table.
SELECT name FROM pragma_table_info($table);
