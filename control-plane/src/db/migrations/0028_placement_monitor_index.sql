-- A monitor's live placement (its node_ids on every monitor read, results accepted per placement)
-- by monitor first. Without it, on a table whose statistics are not gathered yet (freshly filled)
-- the planner walked the node-first index (monitor_placements_node_idx) for every monitor of a
-- list page: 240 ms for a page of 100 instead of 1 ms.
CREATE INDEX monitor_placements_monitor_idx ON monitor_placements (monitor_id, node_id) WHERE ended_at IS NULL;
