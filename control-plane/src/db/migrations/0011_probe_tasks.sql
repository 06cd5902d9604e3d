-- Ad-hoc probe tasks and the results nodes send back (docs/api/probes.md).

-- One task per selected node. A probe request is a group: group_id = the first task's id, ordinal =
-- the task's place in `task_ids`. status: queued (created/sent) -> running (node accepted) ->
-- completed | failed (a result is stored). deadline_at = created + timeout_ms + grace: past it the
-- sweeper stores a failed result for a silent node.
CREATE TABLE probe_tasks (
  id                text PRIMARY KEY,
  group_id          text NOT NULL,
  ordinal           integer NOT NULL,
  node_id           text NOT NULL REFERENCES nodes (id),
  probe_type        text NOT NULL CHECK (probe_type IN ('http', 'ping', 'dns', 'tcp', 'traceroute')),
  target            text NOT NULL,
  "check"           jsonb NOT NULL,
  timeout_ms        integer NOT NULL,
  requester_user_id text NULL,
  status            text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  created_at        timestamptz NOT NULL DEFAULT now(),
  started_at        timestamptz NULL,
  finished_at       timestamptz NULL,
  deadline_at       timestamptz NOT NULL,
  UNIQUE (group_id, ordinal)
);
CREATE INDEX probe_tasks_group_idx ON probe_tasks (group_id);
CREATE INDEX probe_tasks_open_deadline_idx ON probe_tasks (deadline_at) WHERE status IN ('queued', 'running');

-- At most one result per task. result_id is the node's r_ id (idempotent inserts), or one the
-- control plane made for a failure it observed (node offline, rejected, silent past the deadline;
-- then from_node = false). seq orders results for the SSE stream (Last-Event-ID).
CREATE TABLE probe_results (
  result_id   text PRIMARY KEY,
  task_id     text NOT NULL UNIQUE REFERENCES probe_tasks (id),
  group_id    text NOT NULL,
  node_id     text NOT NULL,
  seq         bigserial NOT NULL,
  from_node   boolean NOT NULL,
  success     boolean NOT NULL,
  error       text NULL,
  error_class text NULL,
  output      jsonb NULL,
  started_at  timestamptz NULL,
  finished_at timestamptz NOT NULL,
  stored_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX probe_results_group_seq_idx ON probe_results (group_id, seq);

-- Results of monitor runs on nodes (monitor_id set), stored idempotently until the monitor
-- feature (a later issue) reads them.
CREATE TABLE monitor_results (
  result_id   text PRIMARY KEY,
  monitor_id  text NOT NULL,
  node_id     text NOT NULL,
  probe_type  text NOT NULL,
  success     boolean NOT NULL,
  error       text NULL,
  error_class text NULL,
  output      jsonb NULL,
  started_at  timestamptz NOT NULL,
  finished_at timestamptz NOT NULL,
  stored_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX monitor_results_monitor_idx ON monitor_results (monitor_id, finished_at DESC);
