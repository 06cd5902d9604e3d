-- Monitor placement and per-node assignments (docs/api/monitors.md "Placement",
-- docs/architecture/hub.md "Assignments").

-- Which nodes run which monitor. A row with ended_at NULL is a live placement; an ended row is
-- kept for a while (placement history) so results the node buffered while it ran the monitor
-- still count. `revision` is the monitor revision the node's assignment version was last bumped
-- for: a monitor whose revision moved on must reach its nodes again.
CREATE TABLE monitor_placements (
  monitor_id  text NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
  node_id     text NOT NULL REFERENCES nodes (id),
  revision    bigint NOT NULL,
  placed_at   timestamptz NOT NULL DEFAULT now(),
  ended_at    timestamptz NULL,
  PRIMARY KEY (monitor_id, node_id)
);
-- A node's set (assignments.full, loads) and "which monitors does this node run".
CREATE INDEX monitor_placements_node_idx ON monitor_placements (node_id, monitor_id) WHERE ended_at IS NULL;
CREATE INDEX monitor_placements_ended_idx ON monitor_placements (ended_at) WHERE ended_at IS NOT NULL;

-- Every node's assignment version, taken from one sequence so that it only ever grows: bumped in
-- the transaction that changes the node's set or one monitor in it. `acked_version` is the last
-- version the node confirmed holding (assignments.ack).
CREATE SEQUENCE node_assignment_version_seq;
CREATE TABLE node_assignments (
  node_id        text PRIMARY KEY REFERENCES nodes (id),
  version        bigint NOT NULL,
  changed_at     timestamptz NOT NULL DEFAULT now(),
  acked_version  bigint NULL,
  acked_at       timestamptz NULL
) WITH (fillfactor = 70); -- room for HOT updates: the same rows are bumped again and again

-- Monitors whose placement must be worked out again, from `due_at` on: created, changed, paused,
-- resumed, a node of theirs changed, or short of nodes (retried later). Claimed with
-- FOR UPDATE SKIP LOCKED by the placement job of any instance.
CREATE TABLE placement_queue (
  monitor_id  text PRIMARY KEY REFERENCES monitors (id) ON DELETE CASCADE,
  due_at      timestamptz NOT NULL DEFAULT now(),
  reason      text NOT NULL
);
CREATE INDEX placement_queue_due_idx ON placement_queue (due_at);

-- Bump the assignment version of every node of `ids` and tell every instance (NOTIFY on
-- vantage_assignments, delivered at commit, at most 200 ids per payload: the 8000-byte limit).
-- Rows are written in id order, so two transactions bumping the same nodes cannot deadlock.
CREATE FUNCTION bump_node_assignments(ids text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  sorted text[];
  i integer;
BEGIN
  sorted := ARRAY(SELECT DISTINCT u FROM unnest(ids) AS u WHERE u IS NOT NULL ORDER BY u);
  IF cardinality(sorted) = 0 THEN
    RETURN;
  END IF;
  INSERT INTO node_assignments (node_id, version)
    SELECT u, nextval('node_assignment_version_seq') FROM unnest(sorted) WITH ORDINALITY AS s(u, o) ORDER BY o
    ON CONFLICT (node_id) DO UPDATE SET version = EXCLUDED.version, changed_at = now();
  FOR i IN 0 .. (cardinality(sorted) - 1) / 200 LOOP
    PERFORM pg_notify('vantage_assignments', array_to_string(sorted[i * 200 + 1 : (i + 1) * 200], ','));
  END LOOP;
END $$;

-- Any change of a node-run monitor that placement or its nodes care about queues it (whatever
-- path made the change: the API, import, later features): inserted, revision bumped (every
-- change bumps it), status, node_count or private_target changed.
CREATE FUNCTION placement_queue_monitor() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.node_count = 0 AND (TG_OP = 'INSERT' OR OLD.node_count = 0) THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD.revision = NEW.revision AND OLD.status = NEW.status
     AND OLD.node_count = NEW.node_count AND OLD.private_target = NEW.private_target THEN
    RETURN NULL;
  END IF;
  -- Due a second later: a request that changed the monitor places it itself at once (and takes
  -- it off the queue); the placement job (polling) catches every other path.
  INSERT INTO placement_queue (monitor_id, due_at, reason)
    VALUES (NEW.id, now() + interval '1 second', CASE WHEN TG_OP = 'INSERT' THEN 'created' ELSE 'changed' END)
    ON CONFLICT (monitor_id) DO UPDATE SET due_at = EXCLUDED.due_at, reason = EXCLUDED.reason;
  RETURN NULL;
END $$;
CREATE TRIGGER monitors_placement AFTER INSERT OR UPDATE ON monitors
  FOR EACH ROW EXECUTE FUNCTION placement_queue_monitor();

-- Placements deleted with their monitor (DELETE, or the account's deletion cascading): the nodes
-- that ran it get a new version, so the monitor leaves them as a delta.
CREATE FUNCTION monitor_placements_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_node_assignments(ARRAY(SELECT node_id FROM gone WHERE ended_at IS NULL));
  RETURN NULL;
END $$;
CREATE TRIGGER monitor_placements_delete AFTER DELETE ON monitor_placements
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION monitor_placements_deleted();

-- A node whose capabilities, private-target switch or owner changed may no longer suit the
-- monitors placed on it: they are looked at again.
CREATE FUNCTION placement_queue_node() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO placement_queue (monitor_id, reason)
    SELECT monitor_id, 'node changed' FROM monitor_placements WHERE node_id = NEW.id AND ended_at IS NULL
    ON CONFLICT (monitor_id) DO UPDATE SET due_at = now(), reason = EXCLUDED.reason;
  RETURN NULL;
END $$;
CREATE TRIGGER nodes_placement AFTER UPDATE OF capabilities, allow_private, owner_user_id ON nodes
  FOR EACH ROW WHEN (OLD.capabilities IS DISTINCT FROM NEW.capabilities OR OLD.allow_private IS DISTINCT FROM NEW.allow_private
    OR OLD.owner_user_id IS DISTINCT FROM NEW.owner_user_id)
  EXECUTE FUNCTION placement_queue_node();

-- A node's clock offset against the control plane, as it last reported it in a heartbeat (node
-- clock minus control-plane clock, ms), and when. Written only when it moved noticeably.
ALTER TABLE nodes ADD COLUMN clock_offset_ms integer NULL, ADD COLUMN clock_offset_at timestamptz NULL;
