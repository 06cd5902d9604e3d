-- Alert group collapsing (docs/api/alerting.md "Alert groups"): the pages of monitors that belong
-- to one alert group are gathered per channel for the group's wait_seconds, then sent as ONE
-- message listing every monitor, like Alertmanager's group_wait. A batch is the gathering for one
-- (group, channel): opened by the first page, flushed at flush_at by whichever instance claims it
-- (FOR NO KEY UPDATE SKIP LOCKED); a page joins the open batch under FOR SHARE, so a flush never
-- misses a page committed into it. The flush queues one delivery (message id
-- `alert-group:<batch id>`) and marks the batch flushed in one transaction: no loss, no duplicate.
CREATE TABLE alert_group_batches (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  group_id     text NULL REFERENCES alert_groups (id) ON DELETE SET NULL,   -- NULL: the group was deleted; the batch is still sent
  group_name   text NOT NULL,
  wait_seconds integer NOT NULL,
  channel_id   text NOT NULL REFERENCES alert_channels (id) ON DELETE CASCADE,
  opened_at    timestamptz NOT NULL,
  flush_at     timestamptz NOT NULL,
  flushed_at   timestamptz NULL,
  delivery_id  text NULL,                          -- the one delivery sent (NULL when every page was withdrawn)
  monitors     integer NULL                        -- how many monitors the message listed
);
-- One open batch per (group, channel).
CREATE UNIQUE INDEX alert_group_batches_open_key ON alert_group_batches (group_id, channel_id) WHERE flushed_at IS NULL;
CREATE INDEX alert_group_batches_due_idx ON alert_group_batches (flush_at) WHERE flushed_at IS NULL;

-- A page gathered in a batch: delivery_id is NULL until the batch is flushed, then the batch's
-- delivery. `suppressed` = 'withdrawn' when the event was acknowledged or resolved before.
ALTER TABLE alert_event_notifications ADD COLUMN batch_id bigint NULL REFERENCES alert_group_batches (id) ON DELETE SET NULL;
CREATE INDEX alert_event_notifications_batch_idx ON alert_event_notifications (batch_id) WHERE batch_id IS NOT NULL;
