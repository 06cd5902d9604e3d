/*
 * Which accounts a node works for (docs/api/nodes.md "Sharing"): the one rule probe node selection
 * (probes/select.ts, probes/node-selection.db.ts) and monitor placement (monitors/placement.ts)
 * apply. Secrets have a stricter rule of their own (secrets/node-trust.ts).
 */

/** What the rule needs of a node (columns of `nodes`: owner_user_id, platform from 0037, shared from 0045). */
export interface NodeSharingFacts {
  owner_user_id: string | null;
  /** A platform node (marked by the operator): serves every account. */
  platform: boolean;
  /** Its owner lets other accounts' probes and monitors run on it. */
  shared: boolean;
}

/**
 * True when `node` may run probes and monitors of account `user_id`: it is a platform node, its
 * owner shares it, or `user_id` owns it. `user_id` null (an anonymous probe): shared and platform
 * nodes only.
 */
export function mayServe(node: NodeSharingFacts, user_id: string | null): boolean {
  return node.platform || node.shared || (user_id !== null && node.owner_user_id === user_id);
}
