-- Packed check history (docs/architecture/checks.md "Storage"): once a day of raw checks can no
-- longer change (results are accepted only for rounds within the rounds retention), the pack job
-- (checks/pack.ts) rewrites it as one row per series and hour and drops its raw partition. A row
-- per check costs at least its tuple header, line pointer and primary-key entry (about 60 bytes
-- before any column); a block holds an hour of one series (60 checks at 60 s) behind one.
--
-- checks/failures: how many checks the block holds and how many failed; first_at/last_at: the
-- first and last scheduled_at in it (a range that cuts the hour counts it from the data).
-- data: a version byte, then the hour's checks column by column, DEFLATE-compressed together
-- (checks/pack-codec.ts). Daily partitions on `hour`, like the raw checks they replace: dropped
-- whole past the raw retention (no DELETE, no dead space to vacuum).
CREATE TABLE check_blocks (
  hour        timestamptz NOT NULL,
  first_at    timestamptz NOT NULL,
  last_at     timestamptz NOT NULL,
  series_id   integer NOT NULL,
  checks      integer NOT NULL,
  failures    integer NOT NULL,
  data        bytea NOT NULL,
  PRIMARY KEY (series_id, hour)
) PARTITION BY RANGE (hour);
CREATE TABLE check_blocks_default PARTITION OF check_blocks DEFAULT;
-- Compressed already: never compressed again, kept in line up to the size a partition allows
-- (toast_tuple_target, set on each partition: checks/partitions.db.ts).
ALTER TABLE check_blocks ALTER COLUMN data SET STORAGE EXTERNAL;

-- Where packing stands (one row). packed_until: days before it are packed (their raw partition is
-- dropped and their blocks are what readers read); blocks of later hours are being written and
-- are not read yet. Set in the transaction that drops the day's raw partition, so a reader sees
-- either the raw checks of a day or its blocks, never both. day/after_series: the day being packed
-- and the last series done (a run cut short by its time budget, or a crash, resumes there).
CREATE TABLE check_packing (
  singleton     boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  packed_until  timestamptz NULL,
  day           timestamptz NULL,
  after_series  integer NOT NULL DEFAULT 0
);
INSERT INTO check_packing DEFAULT VALUES;

INSERT INTO check_jobs (name) VALUES ('pack') ON CONFLICT (name) DO NOTHING;
