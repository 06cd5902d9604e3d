-- Accounts, sessions and credentials (docs/api/accounts.md, docs/api/conventions.md).
CREATE TABLE users (
  id              text PRIMARY KEY,                 -- u_ id
  email           text NOT NULL,
  email_verified  boolean NOT NULL DEFAULT false,
  password_hash   text NOT NULL,                    -- scrypt$N$r$p$salt$hash (base64url)
  display_name    text,
  avatar_url      text,
  bio             text,
  locale          text NOT NULL DEFAULT 'en' CHECK (locale IN ('cn', 'en', 'tw')),
  timezone        text NOT NULL DEFAULT 'UTC',
  theme           text NOT NULL DEFAULT 'system' CHECK (theme IN ('system', 'light', 'dark')),
  status          text NOT NULL DEFAULT 'active',
  totp_secret     text,                             -- base32; set once 2FA is enabled
  totp_pending    text,                             -- secret awaiting confirmation
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- A login session: the JWT carries its id (sid) and is accepted only while the row is live.
CREATE TABLE sessions (
  id                    text PRIMARY KEY,           -- ses_ id
  user_id               text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  refresh_hash          text NOT NULL UNIQUE,       -- sha256 of the current rt_ token
  previous_refresh_hash text,                       -- the rotated-out token (reuse = theft)
  created_at            timestamptz NOT NULL DEFAULT now(),
  expires_at            timestamptz NOT NULL,
  revoked_at            timestamptz
);
CREATE INDEX sessions_user_idx ON sessions (user_id);
CREATE INDEX sessions_previous_refresh_idx ON sessions (previous_refresh_hash);

-- API keys (sk_live_/sk_test_) and personal access tokens (svc_pat_): only sha256 hashes stored.
CREATE TABLE access_keys (
  id            text PRIMARY KEY,                   -- key_ or pat_ id
  kind          text NOT NULL CHECK (kind IN ('api_key', 'pat')),
  user_id       text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name          text NOT NULL,
  key_hash      text NOT NULL UNIQUE,
  key_prefix    text NOT NULL,                      -- masked display form
  type          text NOT NULL CHECK (type IN ('production', 'test')),
  scopes        text[] NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz,
  last_used_at  timestamptz,
  revoked_at    timestamptz
);
CREATE INDEX access_keys_user_idx ON access_keys (user_id, kind, created_at);

-- Deployment-wide settings shared by every instance (the generated JWT key).
CREATE TABLE platform_settings (
  name        text PRIMARY KEY,
  value       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
