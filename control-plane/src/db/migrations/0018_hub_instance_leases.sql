-- Node liveness lives in memory and in one lease row per control-plane instance
-- (docs/architecture/hub.md "Liveness and status"): each instance refreshes its row every
-- heartbeat interval instead of rewriting the row of every node it holds. A node is online while
-- its row says so and its holder's lease is fresh; the first instance that sees a stale lease takes
-- that instance's nodes offline in one statement and deletes the lease.
CREATE TABLE hub_instances (
  instance_id text PRIMARY KEY,
  lease_at    timestamptz NOT NULL DEFAULT now(),
  started_at  timestamptz NOT NULL DEFAULT now()
) WITH (fillfactor = 50); -- room for HOT updates: the refresh rewrites the same few rows forever

-- A node's open tasks, read at every hello (tasks to resend, tasks lost in a node restart).
CREATE INDEX probe_tasks_node_open_idx ON probe_tasks (node_id) WHERE status IN ('queued', 'running');
