-- Advance notices of maintenance windows (docs/api/alerting.md "Maintenance windows"): one row per
-- (window, occurrence start) once its e-mail to the owner is queued, written in the transaction
-- that queues it, so every occurrence (recurrences included) is announced once, whichever
-- instance's alert engine pass sees it first, and again after a restart never.
CREATE TABLE maintenance_notices (
  window_id         text NOT NULL REFERENCES maintenance_windows (id) ON DELETE CASCADE,
  occurrence_start  timestamptz NOT NULL,
  notified_at       timestamptz NOT NULL,
  outcome           text NOT NULL CHECK (outcome IN ('queued', 'logged')),  -- logged: no SMTP server configured
  PRIMARY KEY (window_id, occurrence_start)
);
