-- Fixed-window request counters shared by every instance (issue 3, spec 7 429 headers).
-- One row per bucket (ip:… or cred:…); a new window resets the count in the same UPSERT.
CREATE TABLE rate_limit_counters (
  bucket        text PRIMARY KEY,
  window_start  timestamptz NOT NULL,
  count         integer NOT NULL
);
