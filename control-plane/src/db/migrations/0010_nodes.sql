-- Probe nodes, their enrollment tokens and hub relay messages (docs/architecture/hub.md).

-- A probe node. Removed nodes keep their row (removed_at set, credential cleared) so old results
-- still join. status: online | offline | disabled | banned; instance_id = instance holding the socket.
CREATE TABLE nodes (
  id               text PRIMARY KEY,
  name             text NOT NULL,
  owner_user_id    text NULL,
  status           text NOT NULL DEFAULT 'offline'
                   CHECK (status IN ('online', 'offline', 'disabled', 'banned')),
  instance_id      text NULL,
  country          text NULL,
  region           text NULL,
  city             text NULL,
  asn              integer NULL,
  isp              text NULL,
  provider         text NULL,
  tags             text[] NOT NULL DEFAULT '{}',
  ip_address       text NULL,
  allow_private    boolean NOT NULL DEFAULT false,
  agent_version    text NULL,
  capabilities     text[] NOT NULL DEFAULT '{}',
  last_seen_at     timestamptz NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  removed_at       timestamptz NULL,
  -- sha256 hex of the node's nk_ credential; NULL = revoked (docs/architecture/node-agent.md, identity).
  credential_hash  text NULL UNIQUE,
  city_id          integer NULL,
  declared_operator text NULL
);
CREATE INDEX nodes_status_idx ON nodes (status) WHERE removed_at IS NULL;
CREATE INDEX nodes_instance_idx ON nodes (instance_id) WHERE instance_id IS NOT NULL;
CREATE INDEX nodes_owner_idx ON nodes (owner_user_id);

-- Single-use ent_ tokens (docs/api/nodes.md). Only a sha256 of the token is stored; status 'expired' is
-- derived at read time from expires_at.
CREATE TABLE enrollment_tokens (
  id                text PRIMARY KEY,
  user_id           text NOT NULL,
  token_hash        text NOT NULL UNIQUE,
  preview           text NOT NULL,
  label             text NULL,
  country_code      text NULL,
  declared_province text NULL,
  city_id           integer NULL,
  operator          text NULL,
  sponsor_user_id   text NULL,
  status            text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'used')),
  consumed_node_id  text NULL REFERENCES nodes (id),
  created_at        timestamptz NOT NULL DEFAULT now(),
  expires_at        timestamptz NOT NULL,
  used_at           timestamptz NULL
);
CREATE INDEX enrollment_tokens_user_idx ON enrollment_tokens (user_id, created_at DESC);

-- Node messages too large for one NOTIFY payload (8000 bytes): the NOTIFY carries only the row id.
CREATE TABLE hub_relay_messages (
  id          bigserial PRIMARY KEY,
  instance_id text NOT NULL,
  node_id     text NOT NULL,
  message     jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
