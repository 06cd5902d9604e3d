-- Passwords (docs/api/accounts.md "Passwords"): the hashes an account used before its current one
-- (a new password may not be any of the last VANTAGE_PASSWORD_HISTORY_COUNT), and the single-use
-- tokens of password-reset links (only their sha256 is stored).
CREATE TABLE password_history (
  user_id        text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  password_hash  text NOT NULL,                     -- argon2id PHC string or scrypt$N$r$p$salt$hash
  replaced_at    timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX password_history_user_idx ON password_history (user_id, replaced_at DESC);

CREATE TABLE password_reset_tokens (
  token_hash  text PRIMARY KEY,                     -- sha256 of the prt_ token
  user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz NULL
);
CREATE INDEX password_reset_tokens_user_idx ON password_reset_tokens (user_id, created_at DESC);
