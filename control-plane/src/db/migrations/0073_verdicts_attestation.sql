-- Attestation (docs/api/verdicts.md "Attestation keys"): versioned Ed25519 signing keys, the
-- private half sealed with the secret box; each key's life written as key ceremony logs; the
-- steps of each signed report (signed, s3_archived, revoked) as attestation records.
CREATE TABLE key_ceremonies (
  id            text PRIMARY KEY,                      -- kc_ id
  action        text NOT NULL CHECK (action IN ('root_gen', 'root_split', 'sign_key_rotate', 'emergency_revoke')),
  key_id        text NULL,
  key_version   integer NULL,
  actors        jsonb NOT NULL DEFAULT '[]',           -- [{identity, role}]
  evidence_url  text NOT NULL DEFAULT '',
  notes         text NOT NULL DEFAULT '',
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX key_ceremonies_created_idx ON key_ceremonies (created_at DESC, id DESC);

CREATE TABLE attest_keys (
  id                  text PRIMARY KEY,                -- atk_ id
  key_version         integer NOT NULL UNIQUE,
  algorithm           text NOT NULL DEFAULT 'Ed25519',
  public_key_pem      text NOT NULL,
  private_key_sealed  text NOT NULL,                   -- secret box, aad `attest_key:<id>`
  fingerprint         text NOT NULL,                   -- sha256:<hex of the SPKI DER>
  status              text NOT NULL CHECK (status IN ('active', 'rotated', 'revoked')),
  ceremony_log_id     text NOT NULL REFERENCES key_ceremonies (id),
  created_at          timestamptz NOT NULL DEFAULT now(),
  rotated_at          timestamptz NULL,
  revoked_at          timestamptz NULL
);
-- At most one active key: concurrent first uses create one, the other waits and reads it.
CREATE UNIQUE INDEX attest_keys_one_active ON attest_keys ((true)) WHERE status = 'active';

CREATE TABLE attestation_records (
  id               text PRIMARY KEY,                   -- att_ id
  report_id        text NOT NULL,                      -- v_ verdict order or cr_ compliance report
  action           text NOT NULL CHECK (action IN ('signed', 's3_archived', 'revoked', 'tsa_stamped', 'anchored', 'self_verified')),
  status           text NOT NULL CHECK (status IN ('pending', 'success', 'failure')),
  retry_count      integer NOT NULL DEFAULT 0 CHECK (retry_count BETWEEN 0 AND 3),
  key_id           text NULL REFERENCES attest_keys (id),
  external_id      text NULL,
  idempotency_key  text NOT NULL UNIQUE,
  error_detail     text NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  completed_at     timestamptz NULL
);
CREATE INDEX attestation_records_report_idx ON attestation_records (report_id, created_at);
CREATE INDEX attestation_records_key_idx ON attestation_records (key_id) WHERE action = 'signed';

-- Verdict orders (docs/api/verdicts.md): created → paid (credit at once, or the charge's paid
-- handler) → generating → completed | failed. Generation is claimed (claimed_until) by any instance.
CREATE TABLE verdict_orders (
  id                    text PRIMARY KEY,              -- v_ id
  user_id               text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  template              text NOT NULL,
  target                text NOT NULL,
  time_window_start     timestamptz NOT NULL,
  time_window_end       timestamptz NOT NULL,
  notes                 text NOT NULL DEFAULT '',
  notify_email          text NOT NULL,
  webhook_url           text NULL,
  webhook_secret_sealed text NULL,                     -- secret box, aad `verdict_webhook:<id>`
  monitor_ids           text[] NOT NULL DEFAULT '{}',  -- the caller's monitors of the target when ordered
  idempotency_key       text NULL,
  request_hash          text NOT NULL,
  payment_method        text NOT NULL CHECK (payment_method IN ('charge', 'report_credit')),
  price_cny             numeric(12, 2) NOT NULL,
  entitlement_id        text NULL,
  charge_id             text NULL,
  pay_url               text NOT NULL DEFAULT '',
  pay_expires_at        timestamptz NULL,
  status                text NOT NULL CHECK (status IN ('created', 'paid', 'generating', 'completed', 'failed')),
  attempts              integer NOT NULL DEFAULT 0,
  next_attempt_at       timestamptz NULL,
  claimed_until         timestamptz NULL,
  error_detail          text NULL,
  pdf                   bytea NULL,
  content_hash          text NULL,
  key_id                text NULL REFERENCES attest_keys (id),
  signed_at             timestamptz NULL,
  paid_at               timestamptz NULL,
  completed_at          timestamptz NULL,
  created_at            timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX verdict_orders_idempotency_key ON verdict_orders (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX verdict_orders_user_idx ON verdict_orders (user_id, created_at DESC, id DESC);
CREATE INDEX verdict_orders_due_idx ON verdict_orders (next_attempt_at) WHERE status IN ('paid', 'generating');

-- Compliance subscriptions and their periodic reports (docs/api/compliance.md).
CREATE TABLE compliance_subscriptions (
  id                        text PRIMARY KEY,          -- cs_ id
  user_id                   text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  tier                      text NOT NULL CHECK (tier IN ('starter', 'pro', 'enterprise')),
  status                    text NOT NULL CHECK (status IN ('incomplete', 'active', 'past_due', 'canceled', 'expired')),
  monitors_quota            integer NOT NULL,
  monitor_ids               text[] NOT NULL DEFAULT '{}',
  reports_frequency         text NOT NULL CHECK (reports_frequency IN ('monthly', 'weekly', 'custom')),
  custom_interval_days      integer NULL,
  history_retention_months  integer NOT NULL,
  free_verdict_count        integer NULL,              -- null: unlimited (enterprise)
  free_verdict_used         integer NOT NULL DEFAULT 0,
  price_cny                 numeric(12, 2) NOT NULL,
  contact_email             text NULL,
  contact_company           text NULL,
  billing_address           jsonb NULL,
  charge_id                 text NULL,
  checkout_url              text NOT NULL DEFAULT '',
  period_start              timestamptz NULL,
  period_end                timestamptz NULL,
  next_report_at            timestamptz NULL,
  claimed_until             timestamptz NULL,
  canceled_at               timestamptz NULL,
  ext_subscription_id       text NULL,
  created_at                timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX compliance_subscriptions_user_idx ON compliance_subscriptions (user_id, created_at DESC);
CREATE INDEX compliance_subscriptions_due_idx ON compliance_subscriptions (next_report_at) WHERE status = 'active';

CREATE TABLE compliance_reports (
  id                 text PRIMARY KEY,                 -- cr_ id
  subscription_id    text NOT NULL REFERENCES compliance_subscriptions (id) ON DELETE CASCADE,
  user_id            text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  report_type        text NOT NULL DEFAULT 'observation_only',
  period_start       timestamptz NOT NULL,
  period_end         timestamptz NOT NULL,
  period_year        integer NOT NULL,
  period_month       integer NULL,
  period_week        integer NULL,
  monitors_included  integer NOT NULL,
  pdf                bytea NOT NULL,
  content_hash       text NOT NULL,
  signature          text NOT NULL,
  key_id             text NOT NULL REFERENCES attest_keys (id),
  tsa_time           timestamptz NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  UNIQUE (subscription_id, period_start)
);
CREATE INDEX compliance_reports_user_idx ON compliance_reports (user_id, created_at DESC);
