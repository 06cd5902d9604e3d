-- Certificate orders over ACME (RFC 8555), the certificates they issue, and the DNS credentials
-- that answer DNS-01 challenges (docs/api/certificates.md). Ids are int64. Secrets (DNS credential
-- secrets, ACME account keys, certificate private keys) are kept sealed by the secret box, never
-- in clear. Orders are jobs: `due_at` says when a step is due, `lease_until` marks a claim held by
-- one instance (claimed FOR UPDATE SKIP LOCKED).
CREATE TABLE dns_credentials (
  id                 bigserial PRIMARY KEY,
  user_id            text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  team_id            text NULL REFERENCES teams (id) ON DELETE CASCADE,
  provider           text NOT NULL CHECK (provider IN ('rfc2136', 'cloudflare', 'route53')),
  display_name       text NOT NULL,
  settings           jsonb NOT NULL,                 -- non-secret settings of the provider
  secret_sealed      text NOT NULL,                  -- the provider's secret, sealed
  health_status      text NOT NULL DEFAULT 'unknown' CHECK (health_status IN ('valid', 'invalid', 'unknown')),
  health_error       text NULL,
  health_checked_at  timestamptz NULL,
  revoked_at         timestamptz NULL,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dns_credentials_user_idx ON dns_credentials (user_id, created_at);
CREATE INDEX dns_credentials_health_idx ON dns_credentials (health_checked_at NULLS FIRST) WHERE revoked_at IS NULL;

-- The service's own ACME accounts, one per directory URL; the account key is sealed.
CREATE TABLE acme_accounts (
  directory_url  text PRIMARY KEY,
  key_sealed     text NOT NULL,
  account_url    text NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE cert_orders (
  id                  bigserial PRIMARY KEY,
  user_id             text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  team_id             text NULL REFERENCES teams (id) ON DELETE CASCADE,
  ca                  text NOT NULL,
  tier                text NOT NULL,
  challenge_type      text NOT NULL CHECK (challenge_type IN ('dns-01', 'manual-dns')),
  common_name         text NULL,
  sans                text[] NOT NULL,
  sans_unicode        text[] NOT NULL,
  status              text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'validating', 'awaiting_org_validation', 'issuing', 'issued', 'failed', 'revoking', 'revoked')),
  cert_id             bigint NULL,
  dns_credential_id   bigint NULL REFERENCES dns_credentials (id),
  retry_count         integer NOT NULL DEFAULT 0,
  attempt             integer NOT NULL DEFAULT 0,    -- failed steps since the last submit or retry
  last_error          text NULL,
  acme_order_url      text NULL,
  manual_challenges   jsonb NOT NULL DEFAULT '[]',
  manual_confirmed    boolean NOT NULL DEFAULT false,
  due_at              timestamptz NULL,
  lease_until         timestamptz NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  finalized_at        timestamptz NULL
);
CREATE INDEX cert_orders_user_idx ON cert_orders (user_id, created_at);
CREATE INDEX cert_orders_due_idx ON cert_orders (due_at) WHERE due_at IS NOT NULL;

CREATE TABLE cert_order_events (
  order_id     bigint NOT NULL REFERENCES cert_orders (id) ON DELETE CASCADE,
  action_seq   integer NOT NULL,
  action       text NOT NULL,
  detail       text NULL,
  occurred_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (order_id, action_seq)
);

CREATE TABLE certificates (
  id                   bigserial PRIMARY KEY,
  user_id              text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  team_id              text NULL REFERENCES teams (id) ON DELETE CASCADE,
  order_id             bigint NOT NULL REFERENCES cert_orders (id) ON DELETE CASCADE,
  status               text NOT NULL DEFAULT 'issued' CHECK (status IN ('issued', 'revoking', 'revoked', 'expired')),
  issuer               text NOT NULL,
  serial_hex           text NOT NULL,
  fingerprint_sha256   text NOT NULL,
  sans                 text[] NOT NULL,
  not_before           timestamptz NOT NULL,
  not_after            timestamptz NOT NULL,
  chain_pem            text NOT NULL,
  key_sealed           text NOT NULL,
  revoke_reason        text NULL,
  revoked_at           timestamptz NULL,
  expiry_notified_at   timestamptz NULL,
  created_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX certificates_user_idx ON certificates (user_id, created_at);
ALTER TABLE cert_orders ADD CONSTRAINT cert_orders_cert_fk FOREIGN KEY (cert_id) REFERENCES certificates (id) ON DELETE SET NULL;
