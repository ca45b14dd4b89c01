-- The file loaded before with the content hash $hash, if any.
SELECT file_id, path FROM ingested_files
WHERE content_hash = $hash AND status = 'loaded'
ORDER BY file_id LIMIT 1;
