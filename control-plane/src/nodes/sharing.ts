/*
 * Which accounts a node works for (docs/api/nodes.md "Sharing"): the one rule probe node selection
 * (probes/select.ts, probes/node-selection.db.ts) and monitor placement (monitors/placement.ts)
 * apply. Secrets have a stricter rule of their own (secrets/node-trust.ts). Both compare owners
 * with {@link sameOwner}.
 */

/** Who owns a node (columns of `nodes`: owner_user_id, the enrolling account; team_id from 0046, null: personal). */
export interface NodeOwnerFacts {
  owner_user_id: string | null;
  team_id: string | null;
}

/** What the rule needs of a node (platform from 0037, shared from 0045). */
export interface NodeSharingFacts extends NodeOwnerFacts {
  /** A platform node (marked by the operator): serves every account. */
  platform: boolean;
  /** Its owner lets other accounts' probes and monitors run on it. */
  shared: boolean;
}

/**
 * Who a node works for: the owner of a monitor ({user_id: its creator, team_id}: the resource
 * owner of teams/authorize.ts), or a probe requester (its account, with `team_id` null, and the
 * teams it is a member of in `member_of`). null: an anonymous probe.
 */
export interface ServedOwner {
  user_id: string;
  team_id: string | null;
  /** Teams whose nodes also serve this owner (a probe requester's memberships); none when absent. */
  member_of?: readonly string[];
}

/**
 * True when `node` and `owner` have the same owner (docs/api/nodes.md "Sharing"): a team's node and
 * a team's resource match on the team (whoever enrolled the node or created the resource); a
 * personal node and a personal resource match on the account. A team's node is never the same
 * owner as a personal resource of one of its members, nor a member's personal node as a team's.
 */
export function sameOwner(node: NodeOwnerFacts, owner: { user_id: string; team_id: string | null }): boolean {
  if (owner.team_id !== null) return node.team_id === owner.team_id;
  return node.team_id === null && node.owner_user_id === owner.user_id;
}

/**
 * True when `node` may run probes and monitors of `owner`: it is a platform node, its owner shares
 * it, it has the same owner ({@link sameOwner}), or it is a node of a team `owner.member_of` names
 * (a member's probes). `owner` null (an anonymous probe): shared and platform nodes only.
 */
export function mayServe(node: NodeSharingFacts, owner: ServedOwner | null): boolean {
  if (node.platform || node.shared) return true;
  if (owner === null) return false;
  return sameOwner(node, owner) || (node.team_id !== null && (owner.member_of ?? []).includes(node.team_id));
}

/**
 * The owner a caller's own probes act as (docs/api/nodes.md "Sharing", docs/api/teams.md
 * "Workspace tokens"): its account (`team_id` null), or for a workspace token (`team_only`, its
 * team) that team: a workspace token never reaches its creator's personal nodes, for private
 * targets or secret headers either.
 */
export function actingOwner(user_id: string, team_only: string | null): { user_id: string; team_id: string | null } {
  return { user_id, team_id: team_only };
}

/**
 * Whom the nodes of a caller's own probe work for ({@link mayServe}): its account and every team
 * it is a member of (`teams`); for a workspace token (`team_only`) that team alone, as the owner
 * and as the only membership, so its creator's personal nodes and other teams' do not serve it.
 */
export function requesterOwner(user_id: string, teams: readonly string[], team_only: string | null): ServedOwner {
  if (team_only === null) return { user_id, team_id: null, member_of: teams };
  return { user_id, team_id: team_only, member_of: teams.filter((t) => t === team_only) };
}
