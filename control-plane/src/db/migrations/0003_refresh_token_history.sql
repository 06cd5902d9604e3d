-- Every refresh token a session has rotated out, so presenting any earlier one (not only the
-- last) is recognised as reuse and revokes the session (docs/api/accounts.md, refresh).
CREATE TABLE session_refresh_history (
  token_hash  text PRIMARY KEY,                       -- sha256 of a rotated-out rt_ token
  session_id  text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  rotated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX session_refresh_history_session_idx ON session_refresh_history (session_id);

-- Carry over the one rotated-out hash each session kept so far; the column is no longer written.
INSERT INTO session_refresh_history (token_hash, session_id)
  SELECT previous_refresh_hash, id FROM sessions WHERE previous_refresh_hash IS NOT NULL
  ON CONFLICT DO NOTHING;
DROP INDEX sessions_previous_refresh_idx;
ALTER TABLE sessions DROP COLUMN previous_refresh_hash;
