-- Monitor check history (docs/architecture/checks.md): raw checks and rounds in daily
-- partitions, hourly rollups in monthly partitions, the state-change log and the jobs' bookkeeping.
-- Partitions are created ahead and dropped past their retention by a claimed job
-- (checks/partitions.ts); the DEFAULT partitions catch rows no dated partition covers yet, and the
-- job moves them out when it creates that partition.

-- One series per (monitor, node) that has reported: raw checks and rollups carry its 4-byte id
-- instead of two text ids (about 110 bytes less per stored check, index included). Deleting the
-- monitor deletes its series and rollups; its raw checks and rounds go with their partitions.
CREATE TABLE check_series (
  id          integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  monitor_id  text NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
  node_id     text NOT NULL REFERENCES nodes (id),
  UNIQUE (monitor_id, node_id)
);

-- One row per check a node ran: (series, scheduled_at) identifies it, so a result sent twice is
-- stored once. Times other than scheduled_at are offsets (started_at = scheduled_at +
-- start_offset_ms, finished_at = started_at + duration_ms: ms, as precise as the node's ISO
-- times). response_ms: the type's response time (checks/traits.ts). stored_at: when it arrived
-- (the event stream's cursor). Columns ordered widest first (no alignment padding).
CREATE TABLE checks (
  scheduled_at     timestamptz NOT NULL,
  stored_at        timestamptz NOT NULL DEFAULT now(),
  series_id        integer NOT NULL,
  start_offset_ms  integer NOT NULL,
  duration_ms      integer NOT NULL,
  response_ms      real NULL,
  success          boolean NOT NULL,
  error_class      text NULL,
  error            text NULL,
  assertions       jsonb NULL,
  output           jsonb NULL,
  PRIMARY KEY (series_id, scheduled_at)
) PARTITION BY RANGE (scheduled_at);
CREATE TABLE checks_default PARTITION OF checks DEFAULT;

-- Where the server supports it, outputs are compressed with lz4 (faster than pglz); partitions
-- created later copy the column's compression.
DO $$ BEGIN
  ALTER TABLE checks ALTER COLUMN output SET COMPRESSION lz4, ALTER COLUMN assertions SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value OR undefined_object THEN NULL;
END $$;

-- One row per round of a monitor that at least one node reported (round k starts at
-- phase + k * interval_s). expected: nodes placed when it was first reported; reported/failed:
-- results stored; dirty: changed since last judged (claimed by the verdict job once complete or
-- past deadline_at); verdict: up | degraded | down; late: a result arrived after the deadline;
-- counted: false while the monitor was paused or in maintenance (left out of uptime).
CREATE TABLE check_rounds (
  scheduled_at  timestamptz NOT NULL,
  deadline_at   timestamptz NOT NULL,
  decided_at    timestamptz NULL,
  monitor_id    text NOT NULL,
  interval_s    integer NOT NULL,
  expected      smallint NOT NULL,
  reported      smallint NOT NULL,
  failed        smallint NOT NULL,
  quorum        smallint NULL,
  verdict       text NULL CHECK (verdict IN ('up', 'degraded', 'down')),
  dirty         boolean NOT NULL DEFAULT true,
  late          boolean NOT NULL DEFAULT false,
  counted       boolean NOT NULL DEFAULT true,
  PRIMARY KEY (monitor_id, scheduled_at)
) PARTITION BY RANGE (scheduled_at);
CREATE TABLE check_rounds_default PARTITION OF check_rounds DEFAULT;
-- The verdict job reads only dirty rounds (those in flight and those changed since judged): by
-- monitor, and by deadline.
CREATE INDEX check_rounds_dirty_idx ON check_rounds (monitor_id, scheduled_at) WHERE dirty;
CREATE INDEX check_rounds_due_idx ON check_rounds (deadline_at) WHERE dirty;

-- Per monitor and hour (the hour its rounds start in): seconds judged up, degraded and down
-- (each round counts its interval), and seconds of rounds while paused or in maintenance. Kept
-- current by the verdict job (it adds the difference whenever a round's verdict changes), so
-- uptime over any range reads a few rows.
CREATE TABLE round_rollups (
  hour           timestamptz NOT NULL,
  monitor_id     text NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
  up_s           integer NOT NULL DEFAULT 0,
  degraded_s     integer NOT NULL DEFAULT 0,
  down_s         integer NOT NULL DEFAULT 0,
  maintenance_s  integer NOT NULL DEFAULT 0,
  rounds_up      integer NOT NULL DEFAULT 0,
  rounds_degraded integer NOT NULL DEFAULT 0,
  rounds_down    integer NOT NULL DEFAULT 0,
  PRIMARY KEY (monitor_id, hour)
) PARTITION BY RANGE (hour);
CREATE TABLE round_rollups_default PARTITION OF round_rollups DEFAULT;

-- Per series (monitor, node) and hour: checks, failures, and response times (count, min, max,
-- sum, and a log-bucket histogram packed `index << 22 | count`, checks/histogram.ts). Written by
-- the rollup job from raw checks; long ranges and coarse buckets read these.
CREATE TABLE check_rollups (
  hour        timestamptz NOT NULL,
  rt_sum_ms   double precision NOT NULL DEFAULT 0,
  series_id   integer NOT NULL REFERENCES check_series (id) ON DELETE CASCADE,
  checks      integer NOT NULL,
  failures    integer NOT NULL,
  rt_count    integer NOT NULL,
  rt_min_ms   real NULL,
  rt_max_ms   real NULL,
  rt_hist     integer[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (series_id, hour)
) PARTITION BY RANGE (hour);
CREATE TABLE check_rollups_default PARTITION OF check_rollups DEFAULT;

-- Hours that received checks after the rollup job had rolled them up: rolled again.
CREATE TABLE check_rollup_dirty (hour timestamptz PRIMARY KEY);

-- The bucket of a response time in ms (checks/histogram.ts bucketIndex: the same formula).
CREATE FUNCTION check_rt_bucket(ms double precision) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN ms IS NULL THEN NULL WHEN ms <= 0.01 THEN 0
    ELSE least(511, ceil(ln(ms / 0.01) / ln(1.02 / 0.98)))::integer END
$$;

-- Every change of a monitor's state. source: verdict (a round), user (pause/resume) or
-- maintenance. changed_at: when it took effect (a verdict's round start); round_at: that round.
-- A change that results arriving late showed to be wrong is kept but superseded.
CREATE TABLE monitor_state_changes (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  monitor_id     text NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
  from_state     text NOT NULL,
  to_state       text NOT NULL,
  changed_at     timestamptz NOT NULL,
  recorded_at    timestamptz NOT NULL DEFAULT now(),
  source         text NOT NULL CHECK (source IN ('verdict', 'user', 'maintenance')),
  late           boolean NOT NULL DEFAULT false,
  reason         text NULL,
  failing_nodes  jsonb NOT NULL DEFAULT '[]',
  round_at       timestamptz NULL,
  superseded_at  timestamptz NULL
);
CREATE INDEX monitor_state_changes_monitor_idx ON monitor_state_changes (monitor_id, changed_at, id) WHERE superseded_at IS NULL;
CREATE INDEX monitor_state_changes_recorded_idx ON monitor_state_changes (recorded_at);

-- State changes made by anything but the verdict job (which sets vantage.checks_state for its
-- transaction and writes its own rows with reasons): pause, resume, maintenance windows.
CREATE FUNCTION monitor_state_logged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('vantage.checks_state', true) = 'on' THEN
    RETURN NULL;
  END IF;
  INSERT INTO monitor_state_changes (monitor_id, from_state, to_state, changed_at, source, reason)
  VALUES (NEW.id, OLD.state, NEW.state,
    CASE WHEN NEW.state_changed_at IS DISTINCT FROM OLD.state_changed_at THEN NEW.state_changed_at ELSE now() END,
    CASE WHEN 'maintenance' IN (NEW.state, OLD.state) THEN 'maintenance' ELSE 'user' END,
    CASE WHEN NEW.state = 'paused' THEN 'paused' WHEN OLD.state = 'paused' THEN 'resumed'
      WHEN NEW.state = 'maintenance' THEN 'maintenance started' WHEN OLD.state = 'maintenance' THEN 'maintenance ended' END);
  RETURN NULL;
END $$;
CREATE TRIGGER monitors_state_log AFTER UPDATE OF state ON monitors
  FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION monitor_state_logged();

-- Uptime of the last 24 hours (at hour granularity: the 24 whole hours before the current one
-- and the current one) as a fraction 0..1, null without judged rounds; the monitor record's
-- uptime_24h. Up and degraded count as up; maintenance is left out.
CREATE FUNCTION monitor_uptime_24h(m text) RETURNS double precision LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN sum(up_s + degraded_s + down_s) > 0
    THEN sum(up_s + degraded_s)::double precision / sum(up_s + degraded_s + down_s) END
  FROM round_rollups WHERE monitor_id = m AND hour >= date_trunc('hour', now()) - interval '24 hours'
$$;

-- Periodic work claimed by one instance at a time (FOR UPDATE SKIP LOCKED): `state` keeps what a
-- job needs between runs (the rollup job's watermark).
CREATE TABLE check_jobs (
  name    text PRIMARY KEY,
  due_at  timestamptz NOT NULL DEFAULT now(),
  state   jsonb NOT NULL DEFAULT '{}'
);
INSERT INTO check_jobs (name) VALUES ('partitions'), ('rollup'), ('retention');
