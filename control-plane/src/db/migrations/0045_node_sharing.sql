-- Node sharing (docs/api/nodes.md "Sharing"): a node runs other accounts' probes and monitors only
-- when its owner shares it, or when it is a platform node. The API writes `shared` explicitly every
-- time (POST /v1/enrollment-tokens: false unless the body says true; the node takes its token's
-- value). The column defaults are true so that nodes and unused tokens from before this migration
-- keep serving everyone, as they did when they were enrolled or created.
ALTER TABLE nodes ADD COLUMN shared boolean NOT NULL DEFAULT true;
ALTER TABLE enrollment_tokens ADD COLUMN shared boolean NOT NULL DEFAULT true;

-- Who decided a node's platform mark: 'owners_setting' (VANTAGE_PLATFORM_NODE_OWNERS, applied at
-- enrollment and at every start) or 'admin' (PATCH /v1/admin/nodes/{id}, which the start-up sync
-- never overrides, whether the administrator marked or unmarked the node); null: nobody yet.
ALTER TABLE nodes ADD COLUMN platform_source text
  CHECK (platform_source IN ('owners_setting', 'admin'));
UPDATE nodes SET platform_source = 'owners_setting' WHERE platform;

-- A node whose sharing changes: the monitors placed on it are looked at again (0037's trigger, with
-- `shared` added); a monitor of another account leaves a node that stops being shared.
DROP TRIGGER nodes_placement ON nodes;
CREATE TRIGGER nodes_placement AFTER UPDATE OF capabilities, allow_private, owner_user_id, platform, shared ON nodes
  FOR EACH ROW WHEN (OLD.capabilities IS DISTINCT FROM NEW.capabilities OR OLD.allow_private IS DISTINCT FROM NEW.allow_private
    OR OLD.owner_user_id IS DISTINCT FROM NEW.owner_user_id OR OLD.platform IS DISTINCT FROM NEW.platform
    OR OLD.shared IS DISTINCT FROM NEW.shared)
  EXECUTE FUNCTION placement_queue_node();

-- A node that becomes available to more accounts (shared, or a platform node): the monitors short
-- of nodes are looked at now instead of at their next retry.
CREATE FUNCTION placement_queue_short() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE placement_queue SET due_at = now() WHERE reason = 'short of nodes' AND due_at > now();
  RETURN NULL;
END $$;
CREATE TRIGGER nodes_placement_opened AFTER UPDATE OF platform, shared ON nodes
  FOR EACH ROW WHEN ((NEW.shared AND NOT OLD.shared) OR (NEW.platform AND NOT OLD.platform))
  EXECUTE FUNCTION placement_queue_short();
