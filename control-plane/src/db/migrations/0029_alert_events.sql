-- Alert events (docs/api/alerting.md "Alert events"): one per (policy, monitor) outage that reached
-- the policy's threshold. The alert engine (alerting/engine.ts, any number of instances) opens them,
-- sends each notification step when due and resolves them; every notification is a delivery whose
-- message id is `<event>:<level>:<channel>:<kind>`, so a step replayed after a restart is a no-op.

-- Whether a policy fires for degraded (as well as down) rounds.
ALTER TABLE alert_policies ADD COLUMN fire_on_degraded boolean NOT NULL DEFAULT false;

-- status: firing → acknowledged (POST …/ack) → resolved (monitor up again, or POST …/resolve);
-- firing → resolved. started_at: when the outage began (the monitor's change into the failing
-- state); fired_at: when the threshold was reached. next_level/next_due_at: the next notification
-- step (0 = first notification to the policy's channels, k = escalation level k); NULL when none
-- is left, after an acknowledgement and once resolved. suppressed: why the event was recorded
-- without paging when it fired (silence, mute, maintenance, late).
CREATE TABLE alert_events (
  id               text PRIMARY KEY,              -- ae_ id
  user_id          text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  policy_id        text NOT NULL REFERENCES alert_policies (id) ON DELETE CASCADE,
  monitor_id       text NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
  type             text NOT NULL CHECK (type IN ('down', 'degraded')),
  status           text NOT NULL DEFAULT 'firing' CHECK (status IN ('firing', 'acknowledged', 'resolved')),
  started_at       timestamptz NOT NULL,
  fired_at         timestamptz NOT NULL,
  acknowledged_at  timestamptz NULL,
  acknowledged_by  text NULL,
  resolved_at      timestamptz NULL,
  resolved_by      text NULL,                     -- a user id; NULL when the monitor recovered
  notified_at      timestamptz NULL,              -- the first page sent (alert.firing webhook with it)
  next_level       integer NULL,
  next_due_at      timestamptz NULL,
  suppressed       text NULL CHECK (suppressed IN ('silence', 'mute', 'maintenance', 'late')),
  metadata         jsonb NULL,
  created_at       timestamptz NOT NULL DEFAULT now()
);
-- One open event per (policy, monitor): two instances opening the same event insert one row.
CREATE UNIQUE INDEX alert_events_open_key ON alert_events (policy_id, monitor_id) WHERE status <> 'resolved';
CREATE INDEX alert_events_due_idx ON alert_events (next_due_at) WHERE next_due_at IS NOT NULL;
CREATE INDEX alert_events_user_idx ON alert_events (user_id, started_at DESC, id);
CREATE INDEX alert_events_monitor_idx ON alert_events (monitor_id, started_at DESC);

-- Every notification an event made or held back: one row per (event, level, channel, kind), kind
-- firing | acknowledged | resolved. delivery_id: the queued delivery; NULL with `suppressed` when
-- a silence, mute window or maintenance held it back.
CREATE TABLE alert_event_notifications (
  event_id     text NOT NULL REFERENCES alert_events (id) ON DELETE CASCADE,
  level        integer NOT NULL,
  channel_id   text NOT NULL,
  kind         text NOT NULL CHECK (kind IN ('firing', 'acknowledged', 'resolved')),
  delivery_id  text NULL,
  suppressed   text NULL,
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (event_id, level, channel_id, kind)
);
