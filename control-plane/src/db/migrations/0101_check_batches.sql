-- Node checks stored a row per batch (docs/architecture/checks.md "Storage"): the checks a node
-- sends in one batch go into one row, about 57 bytes a check on disk against about 187 for a row
-- per check (docs/benchmarks.md "Check ingest"). Checks the control plane runs (heartbeats, DNS
-- and certificate expiry) stay in `checks`, as do node checks stored before this migration, until
-- their days are packed; readers read both through check_entries() below.
--
-- series: each check's series, in the batch's order (a check is named by its 1-based position);
-- dir: the directory (checks/batch-codec.ts), format byte 2, then per check its scheduled_at as
-- 3 big-endian bytes of ms after first_at, then per check its response_ms as a big-endian IEEE 754
-- float32 (NaN: none), then success as a bitmap (bit p-1 & 7 of byte (p-1) >> 3): fixed widths,
-- so SQL reads one check without reading the others. data: the checks' other fields and outputs
-- in one Zstandard frame (decoded by the control plane only). hidden: positions that are not
-- stored checks (sent twice, or judged with a revision the monitor no longer has), or not yet
-- known not to be (ingest.db.ts storeNodeChecks). stored_at: when the batch was written (the event
-- stream's cursor). A batch holds checks of one UTC day only (it is packed and dropped with that
-- day's partition), spanning less than 2^24 ms.
CREATE SEQUENCE check_batches_id_seq AS bigint;
CREATE TABLE check_batches (
  first_at   timestamptz NOT NULL,
  last_at    timestamptz NOT NULL,
  stored_at  timestamptz NOT NULL DEFAULT now(),
  id         bigint NOT NULL DEFAULT nextval('check_batches_id_seq'),
  series     int4[] NOT NULL,
  hidden     int4[] NULL,
  dir        bytea NOT NULL,
  data       bytea NOT NULL,
  PRIMARY KEY (id, first_at)
) PARTITION BY RANGE (first_at);
CREATE TABLE check_batches_default PARTITION OF check_batches DEFAULT;
-- Compressed already: moved out of line, never compressed again (the directory stays in line).
ALTER TABLE check_batches ALTER COLUMN data SET STORAGE EXTERNAL;
-- A short pending list (default 4 MB): every lookup reads all of it, and as written it is a fixed
-- cost per partition.
CREATE INDEX check_batches_series ON check_batches USING gin (series) WITH (gin_pending_list_limit = 128);
CREATE INDEX check_batches_last_at ON check_batches (last_at);

-- Each series' mark: the scheduled_at of its latest check stored. A check after its series' mark
-- is surely new (a node's outbox releases its results in order); one at or before it is looked up
-- (storeNodeChecks). Updated in place by every batch: room on the page for HOT updates.
ALTER TABLE check_series ADD COLUMN last_at timestamptz NOT NULL DEFAULT '-infinity';
ALTER TABLE check_series SET (fillfactor = 50);
UPDATE check_series s SET last_at = m.at
FROM (SELECT series_id, max(scheduled_at) AS at FROM checks GROUP BY series_id) m WHERE m.series_id = s.id;

-- Check p (1-based) of a batch of n checks whose earliest scheduled_at is first_at, from its
-- directory (format above). Inlined by the planner where it is called in FROM.
CREATE FUNCTION check_batch_entry(first_at timestamptz, dir bytea, n int4, p int4)
RETURNS TABLE (scheduled_at timestamptz, success boolean, response_ms real)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT first_at + ((get_byte(dir, 3 * p - 2) << 16) | (get_byte(dir, 3 * p - 1) << 8) | get_byte(dir, 3 * p)) * interval '1 millisecond',
    ((get_byte(dir, 1 + 7 * n + (p - 1) / 8) >> ((p - 1) % 8)) & 1) = 1,
    CASE WHEN f.e = 255 THEN NULL
      ELSE ((1 - 2 * f.s) * CASE WHEN f.e = 0 THEN f.m * 2::float8 ^ -149 ELSE (8388608 + f.m) * 2::float8 ^ (f.e - 150) END)::real END
  FROM (SELECT get_byte(dir, o) >> 7 AS s, ((get_byte(dir, o) & 127) << 1) | (get_byte(dir, o + 1) >> 7) AS e,
          ((get_byte(dir, o + 1) & 127) << 16) | (get_byte(dir, o + 2) << 8) | get_byte(dir, o + 3) AS m
        FROM (SELECT 1 + 3 * n + 4 * (p - 1) AS o) o) f
$$;

-- Every stored check of `series_ids` (distinct ids) scheduled in [from_at, to_at), from rows and
-- from batches: its series, scheduled_at, stored_at, success and response_ms, and where it lies
-- (batch_first_at, batch_id, pos: a batch's check; all null: a row of `checks`, whose other
-- columns the caller joins by (series_id, scheduled_at)). Inlined by the planner: the bounds
-- reach both tables' partitions and indexes.
CREATE FUNCTION check_entries(series_ids int4[], from_at timestamptz, to_at timestamptz)
RETURNS TABLE (series_id int4, scheduled_at timestamptz, stored_at timestamptz, success boolean, response_ms real,
  batch_first_at timestamptz, batch_id bigint, pos int4)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT c.series_id, c.scheduled_at, c.stored_at, c.success, c.response_ms, NULL::timestamptz, NULL::bigint, NULL::int4
  FROM checks c WHERE c.series_id = ANY(series_ids) AND c.scheduled_at >= from_at AND c.scheduled_at < to_at
  UNION ALL
  SELECT x.s, e.scheduled_at, b.stored_at, e.success, e.response_ms, b.first_at, b.id, x.p
  FROM check_batches b
  CROSS JOIN LATERAL (SELECT s, p FROM unnest(series_ids) AS s, unnest(array_positions(b.series, s)) AS p) x
  CROSS JOIN LATERAL check_batch_entry(b.first_at, b.dir, cardinality(b.series), x.p) e
  WHERE b.series && series_ids AND b.first_at < to_at AND b.first_at > from_at - interval '16777216 milliseconds' AND b.last_at >= from_at
    AND e.scheduled_at >= from_at AND e.scheduled_at < to_at AND NOT coalesce(x.p = ANY(b.hidden), false)
$$;

-- Every stored check of any series scheduled in [from_at, to_at) (the rollup job's hour), as
-- check_entries() gives them.
CREATE FUNCTION check_entries_between(from_at timestamptz, to_at timestamptz)
RETURNS TABLE (series_id int4, scheduled_at timestamptz, stored_at timestamptz, success boolean, response_ms real,
  batch_first_at timestamptz, batch_id bigint, pos int4)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT c.series_id, c.scheduled_at, c.stored_at, c.success, c.response_ms, NULL::timestamptz, NULL::bigint, NULL::int4
  FROM checks c WHERE c.scheduled_at >= from_at AND c.scheduled_at < to_at
  UNION ALL
  SELECT x.s, e.scheduled_at, b.stored_at, e.success, e.response_ms, b.first_at, b.id, x.p::int4
  FROM check_batches b
  CROSS JOIN LATERAL unnest(b.series) WITH ORDINALITY AS x(s, p)
  CROSS JOIN LATERAL check_batch_entry(b.first_at, b.dir, cardinality(b.series), x.p::int4) e
  WHERE b.first_at < to_at AND b.first_at > from_at - interval '16777216 milliseconds' AND b.last_at >= from_at
    AND e.scheduled_at >= from_at AND e.scheduled_at < to_at AND NOT coalesce(x.p::int4 = ANY(b.hidden), false)
$$;

-- Rounds carry their reports from now on (ingest counts each check stored into its round; the
-- verdict job no longer counts a round's checks): rounds still to be judged get theirs counted
-- from the rows stored before.
UPDATE check_rounds r SET reported = least(c.n, 32767)::smallint, failed = least(c.f, 32767)::smallint
FROM (SELECT d.monitor_id, d.scheduled_at, count(*) AS n, count(*) FILTER (WHERE NOT k.success) AS f
      FROM check_rounds d JOIN check_series s ON s.monitor_id = d.monitor_id
      JOIN checks k ON k.series_id = s.id AND k.scheduled_at = d.scheduled_at
      WHERE d.dirty GROUP BY d.monitor_id, d.scheduled_at) c
WHERE r.dirty AND r.monitor_id = c.monitor_id AND r.scheduled_at = c.scheduled_at;
