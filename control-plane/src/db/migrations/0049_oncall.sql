-- On-call schedules (docs/api/teams.md "On-call schedules"). A schedule is a team's; its rotations
-- (participants in turn order, first shift's local date and handoff time, shift length) are kept
-- as one JSON array, validated by the API and replaced whole. Overrides put someone else on call
-- for a while. Escalation levels may page schedules beside channels.
CREATE TABLE oncall_schedules (
  id          text PRIMARY KEY,                  -- ocs_ id
  team_id     text NOT NULL REFERENCES teams (id) ON DELETE RESTRICT,
  name        text NOT NULL,
  time_zone   text NOT NULL DEFAULT 'UTC',
  rotations   jsonb NOT NULL DEFAULT '[]',
  created_by  text NULL REFERENCES users (id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX oncall_schedules_team_name_key ON oncall_schedules (team_id, lower(name));

CREATE TABLE oncall_overrides (
  id                text PRIMARY KEY,            -- oco_ id
  schedule_id       text NOT NULL REFERENCES oncall_schedules (id) ON DELETE CASCADE,
  user_id           text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  replaces_user_id  text NULL,
  starts_at         timestamptz NOT NULL,
  ends_at           timestamptz NOT NULL CHECK (ends_at > starts_at),
  created_by        text NULL REFERENCES users (id) ON DELETE SET NULL,
  created_at        timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX oncall_overrides_schedule_idx ON oncall_overrides (schedule_id, ends_at);

-- The schedules an escalation level pages (its on-call person at that moment). A schedule in
-- use cannot be deleted (RESTRICT): the API answers 409 naming the policies.
CREATE TABLE alert_escalation_level_schedules (
  level_id     text NOT NULL REFERENCES alert_escalation_levels (id) ON DELETE CASCADE,
  schedule_id  text NOT NULL REFERENCES oncall_schedules (id) ON DELETE RESTRICT,
  position     integer NOT NULL,
  PRIMARY KEY (level_id, schedule_id)
);
CREATE INDEX alert_escalation_level_schedules_schedule_idx ON alert_escalation_level_schedules (schedule_id);
