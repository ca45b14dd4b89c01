-- The time of the newest job event (for a live platform: now).
SELECT max(event_time) FROM job_events;
