-- Checks the control plane runs itself (docs/api/checks.md "Checks the control plane runs"):
-- heartbeat and domain_expiry. Their results go to the same check history as node results; they
-- have no node, so their one series per monitor has node_id NULL.
ALTER TABLE check_series ALTER COLUMN node_id DROP NOT NULL;
CREATE UNIQUE INDEX check_series_control_idx ON check_series (monitor_id) WHERE node_id IS NULL;

-- One row per heartbeat monitor: what the missed-check-in detector waits for. anchor_at: the last
-- check-in, the expected check-in last reported missed, or when the wait (re)started (creation,
-- resume, edit: revision is the monitors.revision it was computed for). due_at: the next expected
-- check-in (period after the anchor, or the cron schedule's next firing after it); deadline_at:
-- due_at + grace_s, past which the check-in counts as missed. run_started_at: the last /start not
-- yet ended by a success or failure check-in (a run's duration is measured from it).
CREATE TABLE heartbeat_state (
  monitor_id       text PRIMARY KEY REFERENCES monitors (id) ON DELETE CASCADE,
  revision         bigint NOT NULL,
  anchor_at        timestamptz NOT NULL,
  due_at           timestamptz NULL,
  deadline_at      timestamptz NULL,
  last_checkin_at  timestamptz NULL,
  run_started_at   timestamptz NULL
);
CREATE INDEX heartbeat_state_deadline_idx ON heartbeat_state (deadline_at);

-- One row per domain_expiry monitor: when its next registry look-up is due. A run is claimed with
-- SKIP LOCKED and leased (next_run_at moved past the look-up's time bound) so one instance runs it.
CREATE TABLE domain_expiry_state (
  monitor_id   text PRIMARY KEY REFERENCES monitors (id) ON DELETE CASCADE,
  next_run_at  timestamptz NOT NULL
);
CREATE INDEX domain_expiry_state_due_idx ON domain_expiry_state (next_run_at);
