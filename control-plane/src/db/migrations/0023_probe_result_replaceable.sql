-- A failure the control plane recorded in place of a result it did not get (the node stayed
-- silent past the deadline, disconnected, came back from a restart without the task, the task
-- could not be delivered, the node's result could not be stored) stands only until the node's own
-- result arrives: that result replaces it, so nothing a node measured is lost
-- (docs/api/probes.md, "Results from nodes"). The rule reads this flag, never the error class.
-- Node results and the node's own refusal of a task (class rejected) are final.
ALTER TABLE probe_results ADD COLUMN replaceable boolean NOT NULL DEFAULT false;
UPDATE probe_results SET replaceable = true WHERE NOT from_node AND error_class IS DISTINCT FROM 'rejected';
