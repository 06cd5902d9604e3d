-- The requester's target policy a probe task runs under (docs/api/probes.md "Target safety"):
-- allow_private is true only when the requester owns the node, used a write-capable credential,
-- and the node allows private targets. It travels in task.run (also when the task is re-sent)
-- with the deployment's allow-list; the node enforces it on every address it connects to.
ALTER TABLE probe_tasks ADD COLUMN allow_private boolean NOT NULL DEFAULT false;
