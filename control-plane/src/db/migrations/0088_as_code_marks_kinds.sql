-- Monitoring as code covers silences, maintenance windows, webhook endpoints, status pages and
-- dashboards too (docs/api/as-code.md): their marks are allowed. resource_id is then the id of
-- an alert_silence, maintenance_window, webhook_endpoint, status_page or dashboard of user_id.
ALTER TABLE as_code_marks DROP CONSTRAINT as_code_marks_kind_check;
ALTER TABLE as_code_marks ADD CONSTRAINT as_code_marks_kind_check CHECK (kind IN (
  'monitor_group', 'alert_channel', 'webhook_endpoint', 'monitor', 'alert_policy',
  'alert_silence', 'maintenance_window', 'status_page', 'dashboard'));
