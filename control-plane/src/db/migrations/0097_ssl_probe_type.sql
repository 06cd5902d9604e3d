-- The ssl probe type (docs/api/probes.md "SSL audit"; GET /v1/info/ssl with node_id runs it):
-- widen the probe type check of probe_tasks. Nodes advertise it in `capabilities`; selection
-- already filters on it.
ALTER TABLE probe_tasks DROP CONSTRAINT probe_tasks_probe_type_check;
ALTER TABLE probe_tasks ADD CONSTRAINT probe_tasks_probe_type_check
  CHECK (probe_type IN ('http', 'ping', 'dns', 'tcp', 'traceroute', 'mtr', 'smtp', 'ntp', 'headers', 'speedtest', 'ssl'));
