-- Raw checks kept per account plan (docs/api/billing.md "Plans and quotas", docs/api/monitors.md
-- "Checks"): partitions are dropped past the longest retention in use; the retention job deletes
-- the checks of accounts whose plan keeps fewer days, series by series. `pruned_before`: the
-- series' checks before this instant are deleted already (the next pass starts there; a later
-- downgrade moves the series' cutoff past it again).
ALTER TABLE check_series ADD COLUMN pruned_before timestamptz NULL;

-- Renewal e-mails of manual plan subscriptions (docs/api/billing.md "Renewal e-mails"): one row
-- per event, written with the change it reports (renewal invoice issued, past_due, expired), at
-- most one per subscription, event and period end (a pass that runs again, or on another
-- instance, writes none). The renewal job sends each once: claimed FOR UPDATE SKIP LOCKED, the
-- e-mail queued in the transaction that sets `sent_at`.
CREATE TABLE billing_notices (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  subscription_id text NOT NULL REFERENCES billing_subscriptions (id) ON DELETE CASCADE,
  event           text NOT NULL CHECK (event IN ('renewal_invoice', 'past_due', 'expired')),
  period_end      timestamptz NOT NULL,
  invoice_id      text NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  sent_at         timestamptz NULL,
  UNIQUE (subscription_id, event, period_end)
);
CREATE INDEX billing_notices_unsent_idx ON billing_notices (id) WHERE sent_at IS NULL;
