-- The "no data" state (docs/api/monitors.md "No data"): a round whose deadline passed with no
-- report from any node is judged `no_data` (the silent_rounds job writes empty rounds for rounds
-- nobody reported: checks/decide-silent.ts); two such rounds in a row move the monitor to `no_data`.
ALTER TABLE monitors DROP CONSTRAINT monitors_state_check;
ALTER TABLE monitors ADD CONSTRAINT monitors_state_check
  CHECK (state IN ('pending', 'up', 'degraded', 'down', 'paused', 'maintenance', 'no_data'));

ALTER TABLE check_rounds DROP CONSTRAINT check_rounds_verdict_check;
ALTER TABLE check_rounds ADD CONSTRAINT check_rounds_verdict_check CHECK (verdict IN ('up', 'degraded', 'down', 'no_data'));

-- Time without data, counted apart: neither up nor down (uptime is over the time with data).
ALTER TABLE round_rollups ADD COLUMN no_data_s integer NOT NULL DEFAULT 0;
ALTER TABLE round_rollups ADD COLUMN rounds_no_data integer NOT NULL DEFAULT 0;

-- A policy pages when its monitor goes to no_data unless told not to.
ALTER TABLE alert_policies ADD COLUMN notify_on_no_data boolean NOT NULL DEFAULT true;
ALTER TABLE alert_events DROP CONSTRAINT alert_events_type_check;
ALTER TABLE alert_events ADD CONSTRAINT alert_events_type_check CHECK (type IN ('down', 'degraded', 'no_data'));

-- The sweep that writes empty rounds for rounds nobody reported (checks/decide-silent.ts).
INSERT INTO check_jobs (name) VALUES ('silent_rounds') ON CONFLICT (name) DO NOTHING;
