-- Alerting resources (docs/api/alerting.md): channels, policies with escalation levels, silences,
-- alert groups and maintenance windows. Alert events (with their escalation state) reference
-- alert_policies and alert_escalation_levels by id.

-- A notification channel. `config` holds the type's settings including secrets (they are needed
-- to send); the API returns them masked. `verified` turns true after a test notification succeeded
-- and false again when the config changes.
CREATE TABLE alert_channels (
  id           text PRIMARY KEY,                  -- ach_ id
  user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name         text NOT NULL,
  type         text NOT NULL CHECK (type IN ('email', 'webhook', 'slack', 'discord', 'telegram', 'wecom',
                 'dingtalk', 'feishu', 'wechat', 'sms', 'pagerduty')),
  config       jsonb NOT NULL,
  verified     boolean NOT NULL DEFAULT false,
  verified_at  timestamptz NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX alert_channels_user_idx ON alert_channels (user_id, created_at, id);

-- One policy binds one monitor to channels. (monitor_id, lower(name)) is unique: a second policy
-- of the same name on a monitor would duplicate the first.
CREATE TABLE alert_policies (
  id              text PRIMARY KEY,               -- ap_ id
  user_id         text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  monitor_id      text NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
  name            text NOT NULL,
  enabled         boolean NOT NULL DEFAULT true,
  delay_s         integer NOT NULL DEFAULT 0 CHECK (delay_s >= 0),
  recovery_n      integer NOT NULL DEFAULT 1 CHECK (recovery_n BETWEEN 1 AND 10),
  mute_start      text NULL CHECK (mute_start ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  mute_end        text NULL CHECK (mute_end ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  title_template  text NULL,
  body_template   text NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  CHECK ((mute_start IS NULL) = (mute_end IS NULL))
);
CREATE UNIQUE INDEX alert_policies_monitor_name_key ON alert_policies (monitor_id, lower(name));
CREATE INDEX alert_policies_user_idx ON alert_policies (user_id, created_at, id);

-- Escalation levels of a policy, replaced in full when a policy update gives them.
CREATE TABLE alert_escalation_levels (
  id             text PRIMARY KEY,                -- ael_ id
  policy_id      text NOT NULL REFERENCES alert_policies (id) ON DELETE CASCADE,
  level_index    integer NOT NULL CHECK (level_index BETWEEN 1 AND 5),
  after_seconds  integer NOT NULL CHECK (after_seconds >= 1),
  UNIQUE (policy_id, level_index)
);

-- The channels of a policy: level_id NULL for the first notification, else an escalation level's.
-- A channel in use cannot be deleted (RESTRICT): the API answers 409 naming the policies.
CREATE TABLE alert_policy_channels (
  policy_id   text NOT NULL REFERENCES alert_policies (id) ON DELETE CASCADE,
  level_id    text NULL REFERENCES alert_escalation_levels (id) ON DELETE CASCADE,
  channel_id  text NOT NULL REFERENCES alert_channels (id) ON DELETE RESTRICT,
  position    integer NOT NULL
);
CREATE UNIQUE INDEX alert_policy_channels_key ON alert_policy_channels (policy_id, coalesce(level_id, ''), channel_id);
CREATE INDEX alert_policy_channels_channel_idx ON alert_policy_channels (channel_id);

-- A silence of one monitor, or of all the owner's monitors (monitor_id NULL). Status is derived from time.
CREATE TABLE alert_silences (
  id          text PRIMARY KEY,                   -- asl_ id
  user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  monitor_id  text NULL REFERENCES monitors (id) ON DELETE CASCADE,
  reason      text NOT NULL DEFAULT '',
  starts_at   timestamptz NOT NULL,
  ends_at     timestamptz NOT NULL CHECK (ends_at > starts_at),
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX alert_silences_user_idx ON alert_silences (user_id, ends_at);

-- Alerts of matching monitors gathered for wait_seconds into one notification.
CREATE TABLE alert_groups (
  id            text PRIMARY KEY,                 -- agr_ id
  user_id       text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name          text NOT NULL,
  group_by      text NOT NULL CHECK (group_by IN ('monitor_prefix', 'tag', 'type')),
  group_value   text NOT NULL,
  wait_seconds  integer NOT NULL CHECK (wait_seconds BETWEEN 0 AND 3600),
  created_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, group_by, group_value)
);

-- Maintenance windows; a recurring one repeats at the first window's local time of day in the
-- owner's time zone (users.timezone), each occurrence starting no later than recurrence_until.
CREATE TABLE maintenance_windows (
  id                      text PRIMARY KEY,       -- mmw_ id
  user_id                 text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  title                   text NULL,
  scope_type              text NOT NULL CHECK (scope_type IN ('monitor', 'group', 'tag', 'all')),
  scope_ids               text[] NOT NULL DEFAULT '{}',
  starts_at               timestamptz NOT NULL,
  ends_at                 timestamptz NOT NULL CHECK (ends_at > starts_at),
  recurrence              text NOT NULL DEFAULT 'none' CHECK (recurrence IN ('none', 'daily', 'weekly', 'monthly')),
  recurrence_until        timestamptz NULL,
  advance_notice_minutes  integer NOT NULL DEFAULT 0 CHECK (advance_notice_minutes BETWEEN 0 AND 10080),
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX maintenance_windows_user_idx ON maintenance_windows (user_id, starts_at);
