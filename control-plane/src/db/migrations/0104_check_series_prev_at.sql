-- The series mark before the store statement's own move of it (checks/ingest.db.ts
-- storeNodeChecks). One UPDATE moves each series' mark and returns the mark it found: the
-- statement sets prev_at to last_at as it moves last_at and returns prev_at. Until PostgreSQL 18
-- (RETURNING OLD) an UPDATE returns only new values, and reading the marks first (FOR NO KEY UPDATE)
-- then updating them cost a second pass over the same rows: a sort, a lock and an index lookup per
-- series. Under a concurrent update of the same mark, the UPDATE waits and evaluates its SET
-- against the version that committed, so prev_at is always the mark this statement replaced. NULL:
-- never moved by a store statement since this column was added (last_at is then the mark).
ALTER TABLE check_series ADD COLUMN prev_at timestamptz;
