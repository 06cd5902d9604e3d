-- Daily uptime rollups (docs/architecture/checks.md "Rollups"): per monitor and UTC day, the sums
-- of that day's round_rollups rows. The verdict job adds every difference it adds to an hour's row
-- to its day's row in the same statement (checks/decide.db.ts addRollupDeltas), so both stay
-- exact. Uptime over a long range reads whole days here and only the hours at either end from
-- round_rollups: 90 days read about 90 + 46 rows instead of 2,160. Partitioned and kept like
-- round_rollups (monthly partitions, the rollup retention).
CREATE TABLE round_rollups_daily (
  day            timestamptz NOT NULL,
  monitor_id     text NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
  up_s           integer NOT NULL DEFAULT 0,
  degraded_s     integer NOT NULL DEFAULT 0,
  down_s         integer NOT NULL DEFAULT 0,
  maintenance_s  integer NOT NULL DEFAULT 0,
  rounds_up      integer NOT NULL DEFAULT 0,
  rounds_degraded integer NOT NULL DEFAULT 0,
  rounds_down    integer NOT NULL DEFAULT 0,
  no_data_s      integer NOT NULL DEFAULT 0,
  rounds_no_data integer NOT NULL DEFAULT 0,
  PRIMARY KEY (monitor_id, day)
) PARTITION BY RANGE (day);
CREATE TABLE round_rollups_daily_default PARTITION OF round_rollups_daily DEFAULT;

-- A monthly partition beside each existing one of round_rollups (same name pattern and bounds as
-- checks/partitions.db.ts partitionFor), then the days summed from the hours already there.
DO $$
DECLARE p record;
BEGIN
  FOR p IN
    SELECT substring(c.relname FROM '_p([0-9]{6})$') AS ym FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'round_rollups'::regclass AND c.relname ~ '_p[0-9]{6}$'
  LOOP
    EXECUTE format('CREATE TABLE round_rollups_daily_p%s PARTITION OF round_rollups_daily FOR VALUES FROM (%L) TO (%L)', p.ym,
      to_date(p.ym || '01', 'YYYYMMDD')::timestamp AT TIME ZONE 'UTC', (to_date(p.ym || '01', 'YYYYMMDD') + interval '1 month')::timestamp AT TIME ZONE 'UTC');
  END LOOP;
END $$;

INSERT INTO round_rollups_daily (day, monitor_id, up_s, degraded_s, down_s, maintenance_s, rounds_up, rounds_degraded, rounds_down, no_data_s, rounds_no_data)
SELECT date_trunc('day', hour, 'UTC'), monitor_id, sum(up_s), sum(degraded_s), sum(down_s), sum(maintenance_s), sum(rounds_up), sum(rounds_degraded),
  sum(rounds_down), sum(no_data_s), sum(rounds_no_data)
FROM round_rollups GROUP BY 1, 2;
