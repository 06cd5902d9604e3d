-- Dashboards (docs/api/dashboards.md): a grid of widgets, owned like every resource (0046_teams.sql):
-- its creator and, when team_id is set, its team. The widget set is replaced as a whole
-- (PUT /v1/dashboards/{id}/widgets), so it is stored as one jsonb array on the row; `version`
-- increases by one on every change and a write that names another version is refused
-- (optimistic concurrency). share_token: the public address /v1/public/dashboards/{share_token},
-- shown to the owner (so kept readable, like a link), answered only while is_public; rotating it
-- retires the old address at once.
CREATE TABLE dashboards (
  id            text PRIMARY KEY,                 -- dash_ id
  user_id       text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  team_id       text NULL REFERENCES teams (id) ON DELETE RESTRICT,
  name          text NOT NULL,
  description   text NOT NULL DEFAULT '',
  template_key  text NULL CHECK (template_key IN ('monitor_overview', 'node_fleet', 'alerting')),
  layout        jsonb NOT NULL,
  widgets       jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(widgets) = 'array'),
  is_public     boolean NOT NULL DEFAULT false,
  share_token   text NOT NULL UNIQUE,
  version       integer NOT NULL DEFAULT 1,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dashboards_team_idx ON dashboards (team_id) WHERE team_id IS NOT NULL;
CREATE INDEX dashboards_user_idx ON dashboards (user_id);
