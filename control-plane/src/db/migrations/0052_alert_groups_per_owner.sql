-- Alert groups are unique per owner (docs/api/alerting.md "Alert groups"): a personal group per
-- creator, a team's group per team, so two members of a team cannot both group by the same value
-- and a member's personal group does not block the team's.
ALTER TABLE alert_groups DROP CONSTRAINT alert_groups_user_id_group_by_group_value_key;
CREATE UNIQUE INDEX alert_groups_personal_key ON alert_groups (user_id, group_by, group_value) WHERE team_id IS NULL;
CREATE UNIQUE INDEX alert_groups_team_key ON alert_groups (team_id, group_by, group_value) WHERE team_id IS NOT NULL;
