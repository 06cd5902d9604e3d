-- Outbound delivery engine (docs/architecture/delivery.md): every message Vantage sends out
-- (webhook event, e-mail, alert notification) is a row here, sent at least once by any instance.

-- One message to one destination. `message_id` is the stable id the receiver sees on every attempt
-- (webhook-id, Message-ID); (channel, destination, message_id) is unique, so queueing the same
-- message twice is a no-op. `destination` is what the channel's sender resolves at send time
-- (a webhook endpoint id, an e-mail address) and the key of the per-destination concurrency cap.
-- Claims: an instance sets claimed_by/claimed_until (a lease) with FOR UPDATE SKIP LOCKED; a
-- finished attempt clears both. A claim found with claimed_by still set was interrupted (the
-- instance died mid-send) and is logged as such when the row is claimed again.
CREATE TABLE deliveries (
  id               text PRIMARY KEY,                 -- dlv_ id
  message_id       text NOT NULL,
  channel          text NOT NULL,                    -- sender kind: webhook, email, …
  destination      text NOT NULL,
  user_id          text NULL REFERENCES users (id) ON DELETE CASCADE,
  event_type       text NOT NULL,
  payload          jsonb NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,       -- attempts made (the log's numbering)
  retry_step       integer NOT NULL DEFAULT 0,       -- position in the retry schedule (reset by redeliver)
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  claimed_by       text NULL,
  claimed_at       timestamptz NULL,
  claimed_until    timestamptz NULL,
  last_error       text NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  finished_at      timestamptz NULL,
  UNIQUE (channel, destination, message_id)
);
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_inflight_idx ON deliveries (channel, destination) WHERE status = 'pending' AND claimed_until IS NOT NULL;
CREATE INDEX deliveries_claimer_idx ON deliveries (claimed_by) WHERE claimed_by IS NOT NULL;
CREATE INDEX deliveries_destination_idx ON deliveries (channel, destination, created_at DESC);
CREATE INDEX deliveries_finished_idx ON deliveries (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX deliveries_user_idx ON deliveries (user_id) WHERE user_id IS NOT NULL;

-- The attempt log: one row per attempt (time, status code, latency, first 1 KB of the response or the error).
CREATE TABLE delivery_attempts (
  delivery_id    text NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  attempt        integer NOT NULL,
  started_at     timestamptz NOT NULL,
  status_code    integer NULL,
  latency_ms     integer NULL,
  response_body  text NULL,
  error          text NULL,
  outcome        text NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'interrupted')),
  PRIMARY KEY (delivery_id, attempt)
);
