-- Plans, billing and entitlements (docs/api/billing.md).
-- A plan subscription of an account: the account's plan while active or past_due; otherwise the
-- deployment's default plan applies. One live (not canceled/expired) subscription per account.
CREATE TABLE billing_subscriptions (
  id                   text PRIMARY KEY,                 -- sub_ id
  user_id              text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  plan                 text NOT NULL CHECK (plan IN ('pro', 'business')),
  status               text NOT NULL CHECK (status IN ('incomplete', 'active', 'past_due', 'canceled', 'expired')),
  provider             text NOT NULL CHECK (provider IN ('manual', 'stripe')),
  ext_subscription_id  text NULL UNIQUE,                 -- the provider's subscription id (Stripe sub_...)
  ext_customer_id      text NULL,
  current_period_end   timestamptz NULL,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  canceled_at          timestamptz NULL,
  provider_event_at    timestamptz NULL,                 -- time of the newest provider event applied (older ones are skipped)
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX billing_subscriptions_live_key ON billing_subscriptions (user_id)
  WHERE status IN ('incomplete', 'active', 'past_due');

-- An invoice: a one-off charge (createCharge: a subscription's first period, a verdict order, a
-- compliance subscription) or a renewal the provider issued. `purpose` + `reference_id` name the
-- thing paid for; the paid handler of `purpose` runs once, in the transaction that marks it paid.
CREATE TABLE billing_invoices (
  id                text PRIMARY KEY,                    -- bi_ id
  user_id           text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose           text NOT NULL,
  reference_id      text NOT NULL,
  description       text NOT NULL,
  amount_cents      bigint NOT NULL CHECK (amount_cents >= 0),
  currency          text NOT NULL,                       -- ISO 4217, lower case
  status            text NOT NULL CHECK (status IN ('open', 'paid', 'void', 'uncollectible')),
  provider          text NOT NULL CHECK (provider IN ('manual', 'stripe')),
  pay_url           text NOT NULL,
  ext_checkout_id   text NULL UNIQUE,                    -- Stripe Checkout Session id
  ext_invoice_id    text NULL UNIQUE,                    -- Stripe invoice id (renewals)
  failure_reason    text NULL,
  expires_at        timestamptz NULL,
  paid_at           timestamptz NULL,
  created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_invoices_user_idx ON billing_invoices (user_id, created_at DESC);

-- Provider webhook events already applied: a replayed event id changes nothing.
CREATE TABLE billing_provider_events (
  provider     text NOT NULL,
  event_id     text NOT NULL,
  type         text NOT NULL,
  created_at   timestamptz NOT NULL,                     -- the provider's event time (ordering)
  received_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, event_id)
);

-- Entitlements: quota overrides, API call packs and report credit packs granted to an account.
CREATE TABLE entitlements (
  id           text PRIMARY KEY,                         -- etl_ id
  user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind         text NOT NULL CHECK (kind IN ('quota_override', 'api_pack', 'report_pack')),
  status       text NOT NULL CHECK (status IN ('active', 'revoked', 'expired')),
  balance      bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
  attrs        jsonb NOT NULL DEFAULT '{}',
  source       text NOT NULL,
  order_ref    text NULL,
  granted_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NULL,
  revoked_at   timestamptz NULL
);
CREATE INDEX entitlements_user_idx ON entitlements (user_id, kind, status);

-- API calls per key (or per account for session callers: key_id = '') and UTC day.
CREATE TABLE api_usage_daily (
  user_id   text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key_id    text NOT NULL,
  day       date NOT NULL,
  calls     bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, key_id, day)
);
