-- Monitoring as code (docs/api/as-code.md "Marks"): which of a user's resources were applied
-- from files, under which stable name (key) and from which file. `vantage apply --prune` deletes
-- only marked resources of the files it applies; the console shows marked resources read-only.
-- resource_id is the id of a monitor_group, alert_channel, monitor or alert_policy of user_id
-- (checked by the API when marking; a mark of a resource deleted since is ignored and removed).
CREATE TABLE as_code_marks (
  user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind         text NOT NULL CHECK (kind IN ('monitor_group', 'alert_channel', 'monitor', 'alert_policy')),
  resource_id  text NOT NULL,
  key          text NOT NULL,
  source_file  text NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, kind, resource_id)
);
