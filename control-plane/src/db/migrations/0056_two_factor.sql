-- QR-code login, e-mail one-time codes, two-factor policy and recovery codes
-- (docs/api/accounts.md "QR-code login", "E-mail codes", "Two-factor policy and recovery codes").

-- A QR-code login attempt (RFC 8628 device authorization grant): the waiting browser holds the
-- dc_ device code (only its hash stored) and shows the user code; a signed-in device approves
-- or denies it. `interval_s` grows by 5 at every poll that came too early (RFC 8628 3.5 slow_down).
CREATE TABLE device_authorizations (
  id                text PRIMARY KEY,              -- da_ id
  device_code_hash  text NOT NULL UNIQUE,          -- sha256 of the dc_ secret
  user_code_hash    text NOT NULL UNIQUE,          -- HMAC-SHA256 of the 8-character user code (deployment key)
  status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'used')),
  user_id           text NULL REFERENCES users (id) ON DELETE CASCADE, -- who approved or denied
  requester_ip      text NULL,
  user_agent        text NULL,
  interval_s        int NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  expires_at        timestamptz NOT NULL,
  last_polled_at    timestamptz NULL,
  decided_at        timestamptz NULL
);
CREATE INDEX device_authorizations_expires_idx ON device_authorizations (expires_at);

-- E-mail one-time codes (6 digits, HMAC-SHA256 with the deployment key): for logging in
-- (`login`) or confirming a sensitive action of a signed-in account (`action`). A new code of a
-- purpose supersedes the earlier unused ones (used_at set).
CREATE TABLE email_otps (
  id          text PRIMARY KEY,                    -- otp_ id
  user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose     text NOT NULL CHECK (purpose IN ('login', 'action')),
  code_hash   text NOT NULL,
  attempts    int NOT NULL DEFAULT 0,              -- wrong codes tried against it
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz NULL
);
CREATE INDEX email_otps_user_idx ON email_otps (user_id, purpose, created_at);

-- TOTP recovery codes: 10 single-use codes per account (sha256 of 80-bit random codes).
CREATE TABLE recovery_codes (
  user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash   text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  used_at     timestamptz NULL,
  PRIMARY KEY (user_id, code_hash)
);

-- Two-factor policy: an account's own setting and a team's (owners and admins set it).
ALTER TABLE users ADD COLUMN require_2fa boolean NOT NULL DEFAULT false;
ALTER TABLE teams ADD COLUMN require_2fa boolean NOT NULL DEFAULT false;
