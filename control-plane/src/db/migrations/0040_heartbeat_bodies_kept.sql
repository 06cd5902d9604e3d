-- Heartbeat check-in bodies kept per monitor (docs/api/checks.md "heartbeat"): the check times of a
-- heartbeat monitor's newest check-ins that still keep their request body, oldest first, at most
-- HEARTBEAT_BODIES_KEPT (100, shared-protocol checks/heartbeat.ts). A check-in past that many
-- clears the body of the oldest (`output.body` null); the checks themselves stay (history, uptime).
-- Bounded per monitor, hence per account by its plan's monitor limit.
ALTER TABLE heartbeat_state ADD COLUMN body_checks timestamptz[] NOT NULL DEFAULT '{}';

-- Bodies stored before: the newest 100 per monitor are kept and listed, older ones cleared.
WITH bodies AS (
  SELECT s.monitor_id, c.series_id, c.scheduled_at,
    row_number() OVER (PARTITION BY c.series_id ORDER BY c.scheduled_at DESC) AS newest
  FROM checks c
  JOIN check_series s ON s.id = c.series_id AND s.node_id IS NULL
  JOIN monitors m ON m.id = s.monitor_id AND m.type = 'heartbeat'
  WHERE c.output->>'body' IS NOT NULL
), cleared AS (
  UPDATE checks c SET output = jsonb_set(c.output, '{body}', 'null'::jsonb)
  FROM bodies b WHERE b.newest > 100 AND c.series_id = b.series_id AND c.scheduled_at = b.scheduled_at
  RETURNING 1
)
UPDATE heartbeat_state h SET body_checks = k.kept
FROM (SELECT monitor_id, array_agg(scheduled_at ORDER BY scheduled_at) AS kept FROM bodies WHERE newest <= 100 GROUP BY monitor_id) k
WHERE h.monitor_id = k.monitor_id;
