-- One manifest row per file processed (loaded or failed).
INSERT INTO ingested_files (file_id, content_hash, path, feed, format, rows_read, rows_loaded,
                            rows_rejected, status, error)
VALUES ($file_id, $hash, $path, $feed, $format, $rows_read, $rows_loaded, $rows_rejected,
        $status, $error);
