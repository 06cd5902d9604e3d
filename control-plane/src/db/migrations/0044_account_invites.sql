-- Account invites (docs/api/accounts.md "Administration"): with VANTAGE_REGISTRATION=invite,
-- POST /v1/auth/register needs a token an administrator created. Only a sha256 of the token is
-- kept; it is accepted once (used_at set in the registering transaction) and until expires_at.
-- `email` (optional) binds the invite to one address, compared case-insensitively.
CREATE TABLE account_invites (
  id            text PRIMARY KEY,               -- inv_ id
  token_hash    text NOT NULL UNIQUE,
  email         text,
  created_by    text NOT NULL,                  -- the administrator's u_ id
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  used_at       timestamptz,
  used_by       text                            -- the u_ id registered with it
);
CREATE INDEX account_invites_created ON account_invites (created_at DESC);
