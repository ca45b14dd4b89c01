-- what ops act on: slot 0 of the latest plan, against the size each job has now
SELECT p.job_id, p.action, p.current_nodes AS nodes_now, p.nodes AS nodes_next,
       p.etc_seconds, p.static_etc_seconds - p.etc_seconds AS saved_seconds,
       p.window_time, p.run_id, p.solver, p.status
FROM latest_plan p
WHERE p.slot = 0
ORDER BY CASE p.action WHEN 'start' THEN 0 WHEN 'scale_up' THEN 1 WHEN 'scale_down' THEN 2
                      WHEN 'stop' THEN 3 WHEN 'keep' THEN 4 ELSE 5 END, p.job_id;
