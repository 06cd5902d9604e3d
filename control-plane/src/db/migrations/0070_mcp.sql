-- MCP entry point (docs/api/mcp.md): tokens (only the SHA-256 of the svc_mcp_ secret is kept),
-- the sessions opened with them, and every tool call made in a session. Tool-call payloads are
-- kept as SHA-256 hashes; raw payloads only for failed calls of a token whose owner opted in
-- (store_failed_payloads), until payload_retain_until (7 days), then cleared.
CREATE TABLE mcp_tokens (
  id                     text PRIMARY KEY,            -- mcpt_ id
  user_id                text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  team_id                text NULL REFERENCES teams (id) ON DELETE CASCADE,
  type                   text NOT NULL CHECK (type IN ('personal', 'workspace', 'service')),
  name                   text NOT NULL,
  secret_hash            text NOT NULL UNIQUE,
  token_display          text NOT NULL,
  scope_tools            text[] NOT NULL DEFAULT '{}',
  scope_regions          text[] NOT NULL DEFAULT '{}',
  ip_whitelist           text[] NOT NULL DEFAULT '{}',
  auto_renew             boolean NOT NULL,
  store_failed_payloads  boolean NOT NULL DEFAULT false,
  expires_at             timestamptz NOT NULL,
  last_used_at           timestamptz NULL,
  last_renewed_at        timestamptz NULL,
  revoked_at             timestamptz NULL,
  revoke_reason          text NULL,
  created_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mcp_tokens_user_idx ON mcp_tokens (user_id, created_at);

CREATE TABLE mcp_sessions (
  id                text PRIMARY KEY,                 -- mcps_ id
  user_id           text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_id          text NOT NULL REFERENCES mcp_tokens (id) ON DELETE CASCADE,
  client_id         text NOT NULL CHECK (client_id IN ('sdk-py', 'sdk-ts', 'other')),
  client_ip         text NOT NULL,
  client_version    text NOT NULL,
  started_at        timestamptz NOT NULL DEFAULT now(),
  last_activity_at  timestamptz NOT NULL DEFAULT now(),
  ended_at          timestamptz NULL,
  total_tool_calls  integer NOT NULL DEFAULT 0,
  total_units       integer NOT NULL DEFAULT 0
);
CREATE INDEX mcp_sessions_user_idx ON mcp_sessions (user_id, started_at);

CREATE TABLE mcp_tool_calls (
  id                     text PRIMARY KEY,            -- mctc_ id
  user_id                text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  session_id             text NOT NULL REFERENCES mcp_sessions (id) ON DELETE CASCADE,
  tool_name              text NOT NULL,
  status                 text NOT NULL CHECK (status IN ('success', 'failure', 'timeout', 'rate_limited')),
  latency_ms             integer NOT NULL,
  error_class            text NULL,
  error_detail           text NULL,
  request_payload_hash   text NOT NULL,
  response_payload_hash  text NOT NULL,
  request_bytes          integer NOT NULL,
  response_bytes         integer NOT NULL,
  request_payload_raw    jsonb NULL,
  response_payload_raw   jsonb NULL,
  payload_retain_until   timestamptz NULL,
  created_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mcp_tool_calls_user_idx ON mcp_tool_calls (user_id, created_at);
CREATE INDEX mcp_tool_calls_session_idx ON mcp_tool_calls (session_id, created_at);
CREATE INDEX mcp_tool_calls_retain_idx ON mcp_tool_calls (payload_retain_until) WHERE payload_retain_until IS NOT NULL;
