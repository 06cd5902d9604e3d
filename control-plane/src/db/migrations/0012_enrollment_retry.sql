-- A node's credential is confirmed by its first `hello`. Until then, the token that created it may
-- be presented again for a short while (the agent never received `welcome`): the node gets a new
-- credential instead of the token being lost (docs/architecture/hub.md, enrollment).
ALTER TABLE nodes ADD COLUMN credential_confirmed_at timestamptz NULL;
UPDATE nodes SET credential_confirmed_at = created_at;
