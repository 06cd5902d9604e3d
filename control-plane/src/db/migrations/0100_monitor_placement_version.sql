-- A version of each monitor's placements (checks/ingest.ts): check ingest remembers, per node and
-- monitor, the placement answer it read (how many nodes the monitor is placed on, the node's
-- placement spans) with the version it was read at, and reads them again only when the version
-- moved. `revision` keeps its meaning (a change of the monitor itself, which its nodes must hear
-- of); this one moves with every change of the monitor's placements, and only with them.
--
-- The version is a column of the monitors row, written by the triggers below in the transaction
-- that writes the placements: it commits with them, and a read sees both at the same snapshot, so
-- a version never stands for another set of placements than the one it was read with. Every path
-- that places, re-places or ends (monitors/placement.db.ts writePlacements) holds the monitor's
-- row locked (FOR UPDATE) before it writes placements, and so do the prunes of ended spans
-- (monitors/placement.db.ts pruneEndedPlacements, monitors/round-history.db.ts), so the update here
-- waits for nothing: a writer that took the placement rows before the monitor's could deadlock
-- with one placing the same node again. Locks are taken in id order.
ALTER TABLE monitors ADD COLUMN placement_version bigint NOT NULL DEFAULT 0;

CREATE FUNCTION bump_placement_versions(ids text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  sorted text[];
BEGIN
  sorted := ARRAY(SELECT DISTINCT u FROM unnest(ids) AS u WHERE u IS NOT NULL ORDER BY u);
  IF cardinality(sorted) = 0 THEN
    RETURN;
  END IF;
  PERFORM 1 FROM monitors WHERE id = ANY(sorted) ORDER BY id FOR NO KEY UPDATE;
  UPDATE monitors SET placement_version = placement_version + 1 WHERE id = ANY(sorted);
END $$;

-- Rows inserted (placed, or placed again: INSERT ... ON CONFLICT DO UPDATE fires both the insert
-- and the update trigger) or deleted (spans forgotten by the prunes, or deleted with their monitor:
-- then its row is gone and nothing is updated); `touched` is the statement's new or old rows.
CREATE FUNCTION placement_rows_touched() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_placement_versions(ARRAY(SELECT monitor_id FROM touched));
  RETURN NULL;
END $$;

-- A span started again or ended; an update of `revision` alone (the assignment bookkeeping)
-- changes no span and moves nothing.
CREATE FUNCTION placement_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_placement_versions(ARRAY(
    SELECT n.monitor_id FROM changed n JOIN before o ON o.monitor_id = n.monitor_id AND o.node_id = n.node_id AND o.placed_at = n.placed_at
    WHERE o.ended_at IS DISTINCT FROM n.ended_at
    UNION ALL
    SELECT n.monitor_id FROM changed n WHERE NOT EXISTS (
      SELECT 1 FROM before o WHERE o.monitor_id = n.monitor_id AND o.node_id = n.node_id AND o.placed_at = n.placed_at)));
  RETURN NULL;
END $$;

-- The same three triggers on both tables.
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['monitor_placements', 'monitor_placements_past'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS touched
      FOR EACH STATEMENT EXECUTE FUNCTION placement_rows_touched()', t || '_version_insert', t);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS before NEW TABLE AS changed
      FOR EACH STATEMENT EXECUTE FUNCTION placement_rows_changed()', t || '_version_update', t);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS touched
      FOR EACH STATEMENT EXECUTE FUNCTION placement_rows_touched()', t || '_version_delete', t);
  END LOOP;
END $$;
