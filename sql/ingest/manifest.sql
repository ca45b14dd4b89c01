-- The ingested_files manifest.

-- name: find_loaded
SELECT file_id, path FROM ingested_files
WHERE content_hash = $hash AND status = 'loaded'
ORDER BY file_id LIMIT 1;

-- name: next_file_id
SELECT nextval('ingested_files_seq');
