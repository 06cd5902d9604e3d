-- Passkeys (WebAuthn credentials, W3C Web Authentication Level 3) registered by a user: several
-- per account, each usable to log in without a password and counted as a second factor by a
-- two-factor policy (docs/api/accounts.md "Passkeys").
CREATE TABLE passkeys (
  id              text PRIMARY KEY,                  -- pk_ id
  user_id         text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  credential_id   text NOT NULL UNIQUE,              -- base64url credential id from the authenticator
  public_key      bytea NOT NULL,                    -- COSE public key
  sign_count      bigint NOT NULL DEFAULT 0,         -- signature counter (0 when the authenticator keeps none)
  transports      text[] NOT NULL DEFAULT '{}',
  device_type     text NOT NULL DEFAULT 'singleDevice' CHECK (device_type IN ('singleDevice', 'multiDevice')),
  backed_up       boolean NOT NULL DEFAULT false,
  name            text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  last_used_at    timestamptz NULL
);
CREATE INDEX passkeys_user_idx ON passkeys (user_id);
