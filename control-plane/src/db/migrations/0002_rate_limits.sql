-- Fixed-window request counters shared by every instance (docs/api/conventions.md).
-- One row per bucket (ip:… or cred:…); a new window resets the count in the same UPSERT.
CREATE TABLE rate_limit_counters (
  bucket        text PRIMARY KEY,
  window_start  timestamptz NOT NULL,
  count         integer NOT NULL
);
