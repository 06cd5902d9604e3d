-- Events of state changes that happen in several code paths (docs/architecture/delivery.md
-- "Event sources"): the change and its event commit together, whatever path made the change
-- (hello, socket close, another instance's stale-lease sweep, crash recovery, the task sweeper…).
-- Triggers write one row per event here; the event relay (webhooks/event-relay.ts, any instance,
-- FOR UPDATE SKIP LOCKED) turns each row into webhook deliveries and marks it relayed in one
-- transaction. Relayed rows are deleted with finished deliveries (delivery_retention_days).
CREATE TABLE event_outbox (
  id           bigserial PRIMARY KEY,
  type         text NOT NULL,                -- catalog event name: node.online, node.offline, probe.completed
  user_id      text NOT NULL,                -- whose endpoints receive it
  subject_id   text NOT NULL,                -- the node id, the probe group (first task) id
  occurred_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  relayed_at   timestamptz NULL
);
CREATE INDEX event_outbox_pending_idx ON event_outbox (id) WHERE relayed_at IS NULL;
CREATE INDEX event_outbox_relayed_idx ON event_outbox (relayed_at) WHERE relayed_at IS NOT NULL;
-- A probe completes once, whatever stores its last result (a late node result replacing a timeout).
CREATE UNIQUE INDEX event_outbox_probe_once ON event_outbox (subject_id) WHERE type = 'probe.completed';

-- node.online / node.offline: a node of an account comes online or leaves `online`
-- (offline, disabled or banned). Only changes of `status` fire; heartbeats do not.
CREATE FUNCTION event_outbox_node_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.owner_user_id IS NULL THEN
    RETURN NULL;
  END IF;
  IF NEW.status = 'online' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'online') THEN
    INSERT INTO event_outbox (type, user_id, subject_id) VALUES ('node.online', NEW.owner_user_id, NEW.id);
  ELSIF TG_OP = 'UPDATE' AND OLD.status = 'online' AND NEW.status <> 'online' THEN
    INSERT INTO event_outbox (type, user_id, subject_id) VALUES ('node.offline', NEW.owner_user_id, NEW.id);
  ELSE
    RETURN NULL;
  END IF;
  PERFORM pg_notify('vantage_event_outbox', '');
  RETURN NULL;
END $$;
CREATE TRIGGER nodes_status_event AFTER INSERT OR UPDATE OF status ON nodes
  FOR EACH ROW EXECUTE FUNCTION event_outbox_node_status();

-- probe.completed: the last task of a probe an account requested got its result. Results of one
-- group are serialised on an advisory lock, so of two transactions storing the last two results
-- the second sees the first's (READ COMMITTED: each statement takes a new snapshot), so one of
-- them records the event; the unique index drops any repeat.
CREATE FUNCTION event_outbox_probe_completed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  requester text;
  open_tasks integer;
BEGIN
  SELECT requester_user_id INTO requester FROM probe_tasks WHERE id = NEW.task_id;
  IF requester IS NULL THEN
    RETURN NULL;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('probe_group:' || NEW.group_id));
  SELECT count(*) INTO open_tasks FROM probe_tasks t
    WHERE t.group_id = NEW.group_id AND NOT EXISTS (SELECT 1 FROM probe_results r WHERE r.task_id = t.id);
  IF open_tasks = 0 THEN
    INSERT INTO event_outbox (type, user_id, subject_id) VALUES ('probe.completed', requester, NEW.group_id)
    ON CONFLICT DO NOTHING;
    PERFORM pg_notify('vantage_event_outbox', '');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER probe_results_completed_event AFTER INSERT ON probe_results
  FOR EACH ROW EXECUTE FUNCTION event_outbox_probe_completed();
