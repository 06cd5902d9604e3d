-- Alert noise rules (docs/api/alerting.md "Noise rules"): what the alert engine holds back for a
-- set of the owner's monitors. kind flap: a monitor whose state changed flap_changes times within
-- flap_window_s is flapping until it has not changed for flap_window_s, and pages once for the
-- whole flap; kind duplicate: of the owner's monitors with the same target (duplicate_match host
-- or target) failing together, only the first pages; kind min_duration: no page before the monitor
-- has been failing for min_down_s. Scope: monitor_ids and tags (both empty: every monitor of the
-- owner; else a monitor listed or carrying one of the tags). Owned like alert policies.
CREATE TABLE alert_noise_rules (
  id               text PRIMARY KEY,                -- anr_ id
  user_id          text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  team_id          text NULL REFERENCES teams (id) ON DELETE RESTRICT,
  name             text NOT NULL,
  kind             text NOT NULL CHECK (kind IN ('flap', 'duplicate', 'min_duration')),
  enabled          boolean NOT NULL DEFAULT true,
  monitor_ids      text[] NOT NULL DEFAULT '{}',
  tags             text[] NOT NULL DEFAULT '{}',
  flap_changes     integer NULL CHECK (flap_changes BETWEEN 2 AND 100),
  flap_window_s    integer NULL CHECK (flap_window_s BETWEEN 60 AND 21600),
  duplicate_match  text NULL CHECK (duplicate_match IN ('host', 'target')),
  min_down_s       integer NULL CHECK (min_down_s BETWEEN 1 AND 86400),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'flap') = (flap_changes IS NOT NULL AND flap_window_s IS NOT NULL)),
  CHECK ((kind = 'duplicate') = (duplicate_match IS NOT NULL)),
  CHECK ((kind = 'min_duration') = (min_down_s IS NOT NULL))
);
CREATE INDEX alert_noise_rules_user_idx ON alert_noise_rules (user_id, created_at) WHERE team_id IS NULL;
CREATE INDEX alert_noise_rules_team_idx ON alert_noise_rules (team_id, created_at) WHERE team_id IS NOT NULL;

-- An event whose page a noise rule held back records why (its notifications too, with no delivery).
ALTER TABLE alert_events DROP CONSTRAINT alert_events_suppressed_check;
ALTER TABLE alert_events ADD CONSTRAINT alert_events_suppressed_check
  CHECK (suppressed IN ('silence', 'mute', 'maintenance', 'late', 'flapping', 'duplicate'));
