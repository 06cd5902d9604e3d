-- Single sign-on (docs/api/accounts.md "Single sign-on (OIDC, GitHub)"): identities at an
-- OpenID Connect provider or GitHub linked to an account, the flows started and not yet completed,
-- and the link offers a login made for an account that already has the provider's e-mail.
CREATE TABLE oauth_identities (
  id             text PRIMARY KEY,                 -- idn_ id
  user_id        text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider       text NOT NULL,                    -- provider id of VANTAGE_OIDC_PROVIDERS
  subject        text NOT NULL,                    -- OIDC `sub`, GitHub user id
  email          text NOT NULL DEFAULT '',         -- the provider's e-mail at link time
  created_at     timestamptz NOT NULL DEFAULT now(),
  last_login_at  timestamptz NULL,
  UNIQUE (provider, subject)
);
CREATE INDEX oauth_identities_user_idx ON oauth_identities (user_id);

-- A started authorization-code flow: single use, removed when its callback arrives.
CREATE TABLE oauth_states (
  state_hash     text PRIMARY KEY,                 -- SHA-256 of the `state` handed out
  provider       text NOT NULL,
  purpose        text NOT NULL CHECK (purpose IN ('login', 'link')),
  user_id        text NULL REFERENCES users (id) ON DELETE CASCADE,  -- the signed-in user of a link flow
  code_verifier  text NOT NULL,                    -- PKCE verifier (RFC 7636)
  nonce          text NULL,                        -- OIDC nonce (none for GitHub)
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL,
  CHECK ((purpose = 'link') = (user_id IS NOT NULL))
);
CREATE INDEX oauth_states_expires_idx ON oauth_states (expires_at);

-- A provider identity whose verified e-mail is an existing account's: linked only when that
-- account's owner, signed in, confirms with the token. Single use.
CREATE TABLE oauth_link_offers (
  token_hash     text PRIMARY KEY,                 -- SHA-256 of `details.link_token`
  user_id        text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider       text NOT NULL,
  subject        text NOT NULL,
  email          text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL
);
CREATE INDEX oauth_link_offers_expires_idx ON oauth_link_offers (expires_at);
