-- Rejected input rows per feed and rule (the stable code beside each reason), with one reason
-- as an example, most frequent first.
SELECT feed, coalesce(rule, 'unknown') AS rule, count(*) AS n, min(reason) AS example
FROM rejected_rows
GROUP BY ALL
ORDER BY n DESC, feed, rule;
