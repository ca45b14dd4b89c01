-- Every row of the latest plan (after attach_plans and latest_plan): what `plan explain` reads.
SELECT job_id, slot, nodes, current_nodes, action, why, why_text, slot_price, etc_seconds,
       window_time, run_id, policy, solver, status
FROM latest_plan
ORDER BY job_id, slot;
