-- What each node last reported about its outbox (`outbox.stats`): results waiting
-- to be delivered and results it had to drop (count/age bound). Shown to the node's owner.
ALTER TABLE nodes
  ADD COLUMN outbox_pending integer NULL,
  ADD COLUMN outbox_dropped_total integer NULL,
  ADD COLUMN outbox_oldest_pending_at timestamptz NULL,
  ADD COLUMN outbox_reported_at timestamptz NULL;
