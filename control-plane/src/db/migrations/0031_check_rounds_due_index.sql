-- The verdict job finds its work through check_rounds_dirty_idx alone (each monitor's earliest
-- dirty round, checks/decide.db.ts claimMonitors): the index of dirty rounds by deadline is not
-- read and cost an index entry per round.
DROP INDEX IF EXISTS check_rounds_due_idx;
