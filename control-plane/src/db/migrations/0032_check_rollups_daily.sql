-- Daily rollups of checks (docs/architecture/checks.md "Storage"): per series and UTC day, the
-- same totals and mergeable histogram as the hourly rollups, written by the rollup job once all
-- of a day's hours are rolled up (and again when late checks change one of them). Statistics in
-- day buckets over long ranges read 24 times fewer rows. Kept as long as the hourly rollups.
CREATE TABLE check_rollups_daily (
  day         timestamptz NOT NULL,
  rt_sum_ms   double precision NOT NULL DEFAULT 0,
  series_id   integer NOT NULL REFERENCES check_series (id) ON DELETE CASCADE,
  checks      integer NOT NULL,
  failures    integer NOT NULL,
  rt_count    integer NOT NULL,
  rt_min_ms   real NULL,
  rt_max_ms   real NULL,
  rt_hist     integer[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (series_id, day)
) PARTITION BY RANGE (day);
CREATE TABLE check_rollups_daily_default PARTITION OF check_rollups_daily DEFAULT;
