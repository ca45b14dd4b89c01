-- Lines the file reader could not take.
SELECT count(*) FROM parse_rejects;
