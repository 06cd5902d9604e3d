-- Every node placed on a monitor adds its report to the round's row (checks/ingest.db.ts
-- storeNodeChecks), so a round is written once per node within seconds of its start. With full
-- pages each report after the first wrote the new row version to another page and a new entry to
-- both indexes; with room left on the page the update is HOT (same page, no index entry) and the
-- old version is pruned in place. Partitions made from now on are created with it
-- (checks/partitions.db.ts PARTITIONED); the existing ones leave room on pages they fill from now.
DO $$
DECLARE
  p regclass;
BEGIN
  FOR p IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'check_rounds'::regclass LOOP
    EXECUTE format('ALTER TABLE %s SET (fillfactor = 60)', p);
  END LOOP;
END $$;
