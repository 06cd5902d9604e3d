-- Indexes for the monitor list (docs/benchmarks.md "Monitor list, uptime and
-- stats latency").
--
-- The list reads an owner's monitors newest first: its personal ones (team_id IS NULL) and each of
-- its teams' apart, each in (created_at, id) order from its own index, so a page is read in index
-- order instead of every matching row being fetched and sorted.
CREATE INDEX monitors_personal_created_idx ON monitors (user_id, created_at DESC, id DESC) WHERE team_id IS NULL;
CREATE INDEX monitors_team_created_idx ON monitors (team_id, created_at DESC, id DESC) WHERE team_id IS NOT NULL;
-- Its leading column is the new team index's: every lookup by team_id is served by that one.
DROP INDEX monitors_team_idx;
