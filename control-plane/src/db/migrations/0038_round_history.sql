-- What ingest needs to accept a check result only for a round the monitor really had, run by a
-- node placed on it at the time (docs/architecture/checks.md "Which rounds a node may report"):
-- the monitor's schedule over time and the earlier spans each node was placed on it. Both are kept
-- by triggers, so every path that writes monitors or placements (the API, import, placement,
-- tests' fixtures) keeps them, and pruned with the placement history (monitors/round-history.db.ts).

-- Spans in which a monitor had rounds at one interval: opened when it is created active (from its
-- created_at), resumed or its interval changes; closed (until_at) when it is paused or its
-- interval changes. A paused monitor has no open span: it has no rounds.
CREATE TABLE monitor_schedules (
  monitor_id  text NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
  from_at     timestamptz NOT NULL,
  until_at    timestamptz NULL,
  interval_s  integer NOT NULL,
  PRIMARY KEY (monitor_id, from_at)
);
CREATE INDEX monitor_schedules_ended_idx ON monitor_schedules (until_at) WHERE until_at IS NOT NULL;

CREATE FUNCTION monitor_schedules_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO monitor_schedules (monitor_id, from_at, interval_s)
    SELECT id, created_at, interval_s FROM added WHERE status = 'active'
    ON CONFLICT (monitor_id, from_at) DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER monitors_schedule_insert AFTER INSERT ON monitors
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION monitor_schedules_created();

-- Two changes in one transaction share now(): the span the first opened is taken over.
CREATE FUNCTION monitor_schedules_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE monitor_schedules SET until_at = now() WHERE monitor_id = NEW.id AND until_at IS NULL;
  IF NEW.status = 'active' THEN
    INSERT INTO monitor_schedules (monitor_id, from_at, interval_s) VALUES (NEW.id, now(), NEW.interval_s)
      ON CONFLICT (monitor_id, from_at) DO UPDATE SET interval_s = EXCLUDED.interval_s, until_at = NULL;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER monitors_schedule_update AFTER UPDATE OF interval_s, status ON monitors
  FOR EACH ROW WHEN (OLD.interval_s IS DISTINCT FROM NEW.interval_s OR OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION monitor_schedules_changed();

-- The earlier spans a node was placed on a monitor. monitor_placements keeps one row per
-- (monitor, node): its latest span (placed_at, ended_at), whose placed_at a new placement
-- overwrites; the span it had is kept here first. Only a placement starting again writes here, so
-- placing and ending (in bulk: a lost node's thousand monitors) cost nothing more.
CREATE TABLE monitor_placements_past (
  monitor_id  text NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
  node_id     text NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  placed_at   timestamptz NOT NULL,
  ended_at    timestamptz NOT NULL,
  PRIMARY KEY (monitor_id, node_id, placed_at)
);
CREATE INDEX monitor_placements_past_ended_idx ON monitor_placements_past (ended_at);

CREATE FUNCTION monitor_placements_replaced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO monitor_placements_past (monitor_id, node_id, placed_at, ended_at)
    VALUES (OLD.monitor_id, OLD.node_id, OLD.placed_at, OLD.ended_at)
    ON CONFLICT (monitor_id, node_id, placed_at) DO UPDATE SET ended_at = EXCLUDED.ended_at;
  RETURN NULL;
END $$;
CREATE TRIGGER monitor_placements_past_keep AFTER UPDATE OF ended_at ON monitor_placements
  FOR EACH ROW WHEN (OLD.ended_at IS NOT NULL AND NEW.ended_at IS NULL) EXECUTE FUNCTION monitor_placements_replaced();

-- What is known so far: each monitor's current interval since it was created (a paused one: until
-- now, as when it was paused is not recorded). Earlier placements were not kept.
INSERT INTO monitor_schedules (monitor_id, from_at, until_at, interval_s)
  SELECT id, created_at, CASE WHEN status = 'active' THEN NULL ELSE greatest(created_at, now()) END, interval_s FROM monitors;
