-- Teams (workspaces; docs/api/teams.md). A resource belongs to its creator (user_id) and, when
-- team_id is set, to that team: members act on it by role (viewer reads, member writes, admin
-- also manages the team's members, owner also the team itself). Every existing resource keeps its
-- owner: team_id stays null (personal) until someone moves it into a team.
CREATE TABLE teams (
  id          text PRIMARY KEY,                  -- team_ id
  name        text NOT NULL,
  created_by  text NULL REFERENCES users (id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE team_members (
  team_id     text NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role        text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user_idx ON team_members (user_id);

CREATE TABLE team_invites (
  id           text PRIMARY KEY,                 -- tinv_ id
  team_id      text NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  email        text NOT NULL,
  role         text NOT NULL CHECK (role IN ('admin', 'member', 'viewer')),
  token_hash   text NOT NULL UNIQUE,             -- sha256 of the tit_ token (shown once)
  invited_by   text NULL REFERENCES users (id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  accepted_at  timestamptz NULL,
  accepted_by  text NULL REFERENCES users (id) ON DELETE SET NULL,
  revoked_at   timestamptz NULL
);
CREATE INDEX team_invites_team_idx ON team_invites (team_id, created_at);

-- The resources a team may own. RESTRICT: a team that still owns resources is not deleted
-- (the API answers 409 and names what is left).
ALTER TABLE monitors ADD COLUMN team_id text NULL REFERENCES teams (id) ON DELETE RESTRICT;
ALTER TABLE monitor_groups ADD COLUMN team_id text NULL REFERENCES teams (id) ON DELETE RESTRICT;
ALTER TABLE alert_channels ADD COLUMN team_id text NULL REFERENCES teams (id) ON DELETE RESTRICT;
ALTER TABLE alert_policies ADD COLUMN team_id text NULL REFERENCES teams (id) ON DELETE RESTRICT;
ALTER TABLE alert_silences ADD COLUMN team_id text NULL REFERENCES teams (id) ON DELETE RESTRICT;
ALTER TABLE alert_groups ADD COLUMN team_id text NULL REFERENCES teams (id) ON DELETE RESTRICT;
ALTER TABLE maintenance_windows ADD COLUMN team_id text NULL REFERENCES teams (id) ON DELETE RESTRICT;
ALTER TABLE webhook_endpoints ADD COLUMN team_id text NULL REFERENCES teams (id) ON DELETE RESTRICT;
ALTER TABLE nodes ADD COLUMN team_id text NULL REFERENCES teams (id) ON DELETE RESTRICT;
ALTER TABLE enrollment_tokens ADD COLUMN team_id text NULL REFERENCES teams (id) ON DELETE RESTRICT;
-- A workspace token: an API key that acts for one team only (never on personal resources).
ALTER TABLE access_keys ADD COLUMN team_id text NULL REFERENCES teams (id) ON DELETE CASCADE;
CREATE INDEX monitors_team_idx ON monitors (team_id) WHERE team_id IS NOT NULL;
CREATE INDEX monitor_groups_team_idx ON monitor_groups (team_id) WHERE team_id IS NOT NULL;
CREATE INDEX alert_channels_team_idx ON alert_channels (team_id) WHERE team_id IS NOT NULL;
CREATE INDEX alert_policies_team_idx ON alert_policies (team_id) WHERE team_id IS NOT NULL;
CREATE INDEX webhook_endpoints_team_idx ON webhook_endpoints (team_id) WHERE team_id IS NOT NULL;
CREATE INDEX nodes_team_idx ON nodes (team_id) WHERE team_id IS NOT NULL;
