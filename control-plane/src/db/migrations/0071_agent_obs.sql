-- Agent observability (docs/api/agent-obs.md). Each agent-obs monitor is backed by a monitor of
-- type llm_endpoint, tool_api or rag (monitor_id), which runs its checks on nodes; deleting either
-- deletes both. The monthly cost is kept on the row (total_cost_usd for cost_month) and updated
-- with the budget check in the transaction that records the check's event.
CREATE TABLE agent_obs_monitors (
  id                    text PRIMARY KEY,                 -- aom_ id
  monitor_id            text NOT NULL UNIQUE REFERENCES monitors (id) ON DELETE CASCADE,
  user_id               text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  team_id               text NULL REFERENCES teams (id) ON DELETE CASCADE,
  agent_name            text NOT NULL,
  type                  text NOT NULL CHECK (type IN ('llm', 'tool', 'rag', 'other')),
  endpoint_url          text NOT NULL,
  frequency_seconds     integer NOT NULL CHECK (frequency_seconds >= 10),
  failure_threshold     jsonb NOT NULL,
  budget_per_check_usd  numeric NULL CHECK (budget_per_check_usd >= 0),
  budget_monthly_usd    numeric NULL CHECK (budget_monthly_usd >= 0),
  step_name             text NULL,
  endpoint_config       jsonb NOT NULL DEFAULT '{}',
  notification_channels text[] NOT NULL DEFAULT '{}',
  -- The config request's own fields (expected_tokens_max, model_name, payload_template); the rest
  -- of it is the monitor's own fields. Request headers are kept only in the backing monitor's
  -- config, where secret values are sealed (endpoint_config is stored without them).
  check_options         jsonb NOT NULL DEFAULT '{}',
  config_created_at     timestamptz NOT NULL DEFAULT now(),
  config_updated_at     timestamptz NOT NULL DEFAULT now(),
  status                text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'exceeded_budget')),
  paused_at             timestamptz NULL,
  cost_month            date NOT NULL DEFAULT date_trunc('month', now() AT TIME ZONE 'UTC')::date,
  total_cost_usd        numeric NOT NULL DEFAULT 0,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agent_obs_monitors_owner_idx ON agent_obs_monitors (user_id, created_at);
CREATE INDEX agent_obs_monitors_team_idx ON agent_obs_monitors (team_id) WHERE team_id IS NOT NULL;

-- One event per check (monitor, node, round): the stream's order is seq, handed out under the
-- lock of agent_obs_stream_head so that seq order is commit order (a reader that has seen seq n
-- has seen every event before it).
CREATE TABLE agent_obs_events (
  seq            bigint PRIMARY KEY,
  id             text NOT NULL UNIQUE,                    -- aoe_ id
  monitor_id     text NOT NULL REFERENCES agent_obs_monitors (id) ON DELETE CASCADE,
  user_id        text NOT NULL,
  team_id        text NULL,
  node_id        text NOT NULL,
  scheduled_at   timestamptz NOT NULL,
  occurred_at    timestamptz NOT NULL,
  success        boolean NOT NULL,
  latency_ms     integer NULL,
  cost_usd       numeric NULL,
  tokens_used    integer NULL,
  status_code    integer NULL,
  failure_class  text NULL CHECK (failure_class IN ('timeout', '4xx', '5xx', 'malformed', 'semantic', 'budget')),
  failure_detail jsonb NULL,
  region         text NULL,
  trace_id       text NULL,
  obs_type       text NOT NULL,
  response_preview text NULL,
  UNIQUE (monitor_id, node_id, scheduled_at)
);
CREATE INDEX agent_obs_events_monitor_idx ON agent_obs_events (monitor_id, seq);
CREATE INDEX agent_obs_events_owner_idx ON agent_obs_events (user_id, seq);

CREATE TABLE agent_obs_stream_head (
  one  boolean PRIMARY KEY DEFAULT true CHECK (one),
  seq  bigint NOT NULL
);
INSERT INTO agent_obs_stream_head (one, seq) VALUES (true, 0);
