-- Monitor and monitor group names are unique per owner (docs/api/monitors.md): among a user's
-- personal ones, and among a team's, whoever created them. Two teammates may each keep a personal
-- "API" monitor, and the team one more; no two of the team's monitors share a name.
ALTER TABLE monitors DROP CONSTRAINT monitors_user_id_name_key;
CREATE UNIQUE INDEX monitors_personal_name_key ON monitors (user_id, name) WHERE team_id IS NULL;
CREATE UNIQUE INDEX monitors_team_name_key ON monitors (team_id, name) WHERE team_id IS NOT NULL;

ALTER TABLE monitor_groups DROP CONSTRAINT monitor_groups_user_id_name_key;
CREATE UNIQUE INDEX monitor_groups_personal_name_key ON monitor_groups (user_id, name) WHERE team_id IS NULL;
CREATE UNIQUE INDEX monitor_groups_team_name_key ON monitor_groups (team_id, name) WHERE team_id IS NOT NULL;
