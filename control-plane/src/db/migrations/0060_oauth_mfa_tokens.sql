-- The second step of a single sign-on to an account with TOTP on (docs/api/accounts.md
-- "Single sign-on (OIDC, GitHub)"): the callback proves the identity and hands out an mfa_ token
-- (only its SHA-256 stored) that POST /v1/auth/oauth/2fa exchanges, with the TOTP or a recovery
-- code, for a session. Single use, short-lived, a few wrong codes at most.
CREATE TABLE oauth_mfa_tokens (
  token_hash   text PRIMARY KEY,                   -- SHA-256 of the mfa_ secret
  user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  identity_id  text NOT NULL REFERENCES oauth_identities (id) ON DELETE CASCADE,
  attempts     int NOT NULL DEFAULT 0,             -- codes tried against it
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL
);
CREATE INDEX oauth_mfa_tokens_expires_idx ON oauth_mfa_tokens (expires_at);
