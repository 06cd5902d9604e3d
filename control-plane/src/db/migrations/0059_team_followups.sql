-- Teams follow-ups (docs/api/teams.md, docs/api/alerting.md).
-- A team's time zone (IANA name): the mute windows and recurring maintenance windows of the
-- team's resources are local to it (a personal resource's stay local to its creator's account).
ALTER TABLE teams ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC';

-- Flap rules hold the resolution of a paged event while its monitor flaps (docs/api/alerting.md
-- "Noise rules"): the engine does not resolve the event before this instant, when it looks again.
ALTER TABLE alert_events ADD COLUMN resolve_held_until timestamptz NULL;

-- How an account is paged when it is on call (docs/api/teams.md "On-call contacts"): its own
-- personal alert channels of type email, sms or webhook, in order; none: its account e-mail.
-- A channel deleted, or no longer the account's personal one, drops out of the list.
CREATE TABLE oncall_notification_rules (
  user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  position    integer NOT NULL CHECK (position >= 0),
  channel_id  text NOT NULL REFERENCES alert_channels (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, position),
  UNIQUE (user_id, channel_id)
);
