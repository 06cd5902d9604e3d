-- Account lifecycle (docs/api/accounts.md "Account lifecycle"): username, phone binding, deletion
-- with a grace period and its restore links.

-- Optional username, unique case-insensitively (stored as given, compared in lower case).
ALTER TABLE users ADD COLUMN username text NULL;
CREATE UNIQUE INDEX users_username_key ON users (lower(username)) WHERE username IS NOT NULL;

-- The bound phone (E.164), set only once a code sent to it by SMS was entered.
ALTER TABLE users ADD COLUMN phone text NULL;

-- A deleting account: purged by the lifecycle job once deletion_scheduled_at has passed.
ALTER TABLE users ADD COLUMN deletion_requested_at timestamptz NULL;
ALTER TABLE users ADD COLUMN deletion_scheduled_at timestamptz NULL;
CREATE INDEX users_deletion_due_idx ON users (deletion_scheduled_at) WHERE status = 'deleting';

-- The code of a phone binding under way: one per account (a new request replaces it); only a
-- sha256 hash of the code is stored.
CREATE TABLE phone_verifications (
  user_id     text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  phone       text NOT NULL,
  code_hash   text NOT NULL,
  attempts    integer NOT NULL DEFAULT 0,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);

-- Restore links (art_ tokens) e-mailed when a deletion is requested; only the sha256 hash stored.
CREATE TABLE account_restore_tokens (
  token_hash  text PRIMARY KEY,
  user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz NULL
);
CREATE INDEX account_restore_tokens_user_idx ON account_restore_tokens (user_id);
