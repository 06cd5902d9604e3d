-- Key scopes, allowed origins and workspace tokens (docs/api/accounts.md "Scopes", "Allowed
-- origins"; docs/api/scopes.md). Scopes stay free text[]: the API validates them against the one
-- list in shared-protocol, so adding a scope needs no migration. allowed_origins: exact
-- scheme://host[:port] values a browser request's Origin must match; empty = any origin.
ALTER TABLE access_keys ADD COLUMN allowed_origins text[] NOT NULL DEFAULT '{}';
-- Team admins list and revoke their team's workspace tokens.
CREATE INDEX access_keys_team_idx ON access_keys (team_id, created_at) WHERE team_id IS NOT NULL;
