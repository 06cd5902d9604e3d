-- Renewals (docs/api/billing.md "Renewals", docs/api/compliance.md "Renewal"): a manual plan
-- subscription and a compliance subscription get one renewal invoice per period, issued before the
-- period ends; `renewal_for` is the period end it renews (so each period's invoice is issued once,
-- by whichever instance claims it), `renewal_invoice_id` / `renewal_charge_id` the invoice (bi_).
ALTER TABLE billing_subscriptions
  ADD COLUMN renewal_for        timestamptz NULL,
  ADD COLUMN renewal_invoice_id text NULL;
CREATE INDEX billing_subscriptions_manual_period_idx ON billing_subscriptions (current_period_end)
  WHERE provider = 'manual' AND status IN ('active', 'past_due', 'canceled');

ALTER TABLE compliance_subscriptions
  ADD COLUMN renewal_for        timestamptz NULL,
  ADD COLUMN renewal_charge_id  text NULL,
  ADD COLUMN renewal_claimed_at timestamptz NULL;          -- when an instance took the renewal (taken again if it died)
CREATE INDEX compliance_subscriptions_period_idx ON compliance_subscriptions (period_end)
  WHERE status IN ('active', 'past_due', 'canceled');
