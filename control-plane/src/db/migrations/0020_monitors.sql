-- Monitors and monitor groups (docs/api/monitors.md).
--
-- Placement (which nodes run a monitor) and per-node assignment versions live in their own
-- tables keyed by monitor id (ON DELETE CASCADE), added with placement; `revision` here is bumped
-- on every change of a monitor, so placement can tell which assignments are stale.

-- A named, ordered bucket of one account's monitors; names are unique per account (import
-- matches groups by name). Deleting a group ungroups its monitors (monitors.group_id SET NULL).
CREATE TABLE monitor_groups (
  id          text PRIMARY KEY,                 -- mg_ id
  user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name        text NOT NULL,
  sort_order  integer NOT NULL DEFAULT 0,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, name)
);

-- status: what the user set (active | paused). state: what the checks say (pending until the
-- first verdict; paused while paused). config: the type's config with defaults filled (jsonb).
-- target: NULL for heartbeat. node_count: 0 for the types the control plane checks itself
-- (heartbeat, domain_expiry). private_target: the target is private, so the monitor may run only
-- on the owner's nodes that allow private targets. heartbeat_token_hash: sha256 hex of the
-- check-in token (the token itself is never stored).
CREATE TABLE monitors (
  id                       text PRIMARY KEY,    -- m_ id
  user_id                  text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name                     text NOT NULL,
  type                     text NOT NULL CHECK (type IN ('http', 'https', 'ping', 'tcp', 'dns', 'ssl_expiry',
                             'domain_expiry', 'keyword', 'rbl', 'llm_endpoint', 'tool_api', 'rag', 'heartbeat',
                             'browser', 'traceroute')),
  target                   text NULL,
  config                   jsonb NOT NULL DEFAULT '{}',
  interval_s               integer NOT NULL CHECK (interval_s > 0),
  node_count               integer NOT NULL CHECK (node_count >= 0),
  group_id                 text NULL REFERENCES monitor_groups (id) ON DELETE SET NULL,
  tags                     text[] NOT NULL DEFAULT '{}',
  status                   text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused')),
  state                    text NOT NULL DEFAULT 'pending'
                           CHECK (state IN ('pending', 'up', 'degraded', 'down', 'paused', 'maintenance')),
  state_changed_at         timestamptz NOT NULL DEFAULT now(),
  private_target           boolean NOT NULL DEFAULT false,
  heartbeat_token_hash     text NULL UNIQUE,
  heartbeat_token_preview  text NULL,
  revision                 bigint NOT NULL DEFAULT 1,
  last_check_at            timestamptz NULL,
  created_at               timestamptz NOT NULL DEFAULT now(),
  updated_at               timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, name)
);
CREATE INDEX monitors_user_created_idx ON monitors (user_id, created_at DESC, id DESC);
CREATE INDEX monitors_group_idx ON monitors (group_id) WHERE group_id IS NOT NULL;
CREATE INDEX monitors_tags_idx ON monitors USING gin (tags);
-- Placement and the schedulers of control-plane checks walk the active monitors.
CREATE INDEX monitors_active_idx ON monitors (type, id) WHERE status = 'active';
