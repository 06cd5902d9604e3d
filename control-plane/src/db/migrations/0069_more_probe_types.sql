-- Ad-hoc probe types mtr, smtp, ntp, headers and speedtest (docs/api/probes.md): widen the probe type check of
-- probe_tasks. Nodes advertise them in `capabilities`; selection already filters on it.
ALTER TABLE probe_tasks DROP CONSTRAINT probe_tasks_probe_type_check;
ALTER TABLE probe_tasks ADD CONSTRAINT probe_tasks_probe_type_check
  CHECK (probe_type IN ('http', 'ping', 'dns', 'tcp', 'traceroute', 'mtr', 'smtp', 'ntp', 'headers', 'speedtest'));

-- Diagnose runs (docs/api/probes.md "Diagnose"): one probe group per scope. sections holds, per
-- scope, {scope, probe_type, task_id} or {scope, probe_type, skipped} when the target does not
-- suit it (a DNS look-up of an IP literal); the report is computed from the groups at each read.
CREATE TABLE diagnoses (
  id                text PRIMARY KEY,
  target            text NOT NULL,
  sections          jsonb NOT NULL,
  requester_user_id text NULL,
  created_at        timestamptz NOT NULL DEFAULT now()
);
