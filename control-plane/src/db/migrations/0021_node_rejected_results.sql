-- Results a node sent that can never be accepted (a monitor not assigned to it, another node's
-- task, a task that already has a result): counted per node, stored nowhere else. A node whose
-- count grows is misbehaving or forging (docs/architecture/hub.md, result.batch).
ALTER TABLE nodes ADD COLUMN results_rejected_total bigint NOT NULL DEFAULT 0;
