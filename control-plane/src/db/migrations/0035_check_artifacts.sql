-- Check artifacts (docs/architecture/artifacts.md): browser checks' HAR archives and screenshots,
-- kept as files under <data_dir>/artifacts, named by their SHA-256.

-- One row per file on disk (content-addressed: one file however many checks name it). `touched_at`
-- is renewed by every upload of the content, so the retention job never deletes a file an upload
-- is registering at the same moment.
CREATE TABLE artifact_files (
  sha256      text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  size_bytes  integer NOT NULL CHECK (size_bytes > 0),
  stored_at   timestamptz NOT NULL DEFAULT now(),
  touched_at  timestamptz NOT NULL DEFAULT now()
);

-- Which check (monitor, node, round) an upload was authorised for. Reading an artifact needs a
-- row naming the monitor; the retention job deletes rows past the plan's retention and rows whose
-- check never arrived, then the files no row names.
CREATE TABLE check_artifacts (
  monitor_id    text NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
  node_id       text NOT NULL,
  scheduled_at  timestamptz NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('har', 'screenshot')),
  sha256        text NOT NULL REFERENCES artifact_files (sha256),
  stored_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (monitor_id, sha256, node_id, scheduled_at, kind)
);
CREATE INDEX check_artifacts_round_idx ON check_artifacts (monitor_id, node_id, scheduled_at);
CREATE INDEX check_artifacts_sha_idx ON check_artifacts (sha256);
CREATE INDEX check_artifacts_scheduled_idx ON check_artifacts (scheduled_at);

-- The artifact retention job, claimed FOR UPDATE SKIP LOCKED by one instance at a time.
CREATE TABLE artifact_jobs (
  name    text PRIMARY KEY,
  due_at  timestamptz NOT NULL DEFAULT now(),
  state   jsonb NOT NULL DEFAULT '{}'
);
INSERT INTO artifact_jobs (name) VALUES ('retention');
