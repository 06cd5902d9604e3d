-- Which nodes may receive an account's secrets (docs/api/nodes.md "Platform nodes",
-- docs/api/monitors.md "Secrets in headers"): the account's own nodes, and platform nodes, marked
-- by the operator (VANTAGE_PLATFORM_NODE_OWNERS: the nodes its accounts enroll). Every other node
-- runs only monitors and probes that carry no secret.
ALTER TABLE nodes ADD COLUMN platform boolean NOT NULL DEFAULT false;

-- A node that stops being a platform node may no longer hold other accounts' secrets: the
-- monitors placed on it are looked at again, as for a change of owner (0024).
DROP TRIGGER nodes_placement ON nodes;
CREATE TRIGGER nodes_placement AFTER UPDATE OF capabilities, allow_private, owner_user_id, platform ON nodes
  FOR EACH ROW WHEN (OLD.capabilities IS DISTINCT FROM NEW.capabilities OR OLD.allow_private IS DISTINCT FROM NEW.allow_private
    OR OLD.owner_user_id IS DISTINCT FROM NEW.owner_user_id OR OLD.platform IS DISTINCT FROM NEW.platform)
  EXECUTE FUNCTION placement_queue_node();

-- Monitors placed before this rule on another account's nodes: looked at again now (placement
-- moves those whose headers carry secrets; the others stay where they are).
INSERT INTO placement_queue (monitor_id, reason)
  SELECT DISTINCT p.monitor_id, 'secrets rule' FROM monitor_placements p
  JOIN monitors m ON m.id = p.monitor_id JOIN nodes n ON n.id = p.node_id
  WHERE p.ended_at IS NULL AND n.owner_user_id IS DISTINCT FROM m.user_id
  ON CONFLICT (monitor_id) DO UPDATE SET due_at = least(placement_queue.due_at, now()), reason = EXCLUDED.reason;
