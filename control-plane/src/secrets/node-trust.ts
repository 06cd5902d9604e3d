import { isSecretHeader } from './header-rule.js';
import { sameOwner, type NodeOwnerFacts } from '../nodes/sharing.js';

/*
 * Which nodes may receive an account's secrets (docs/api/monitors.md "Secrets in headers",
 * docs/api/nodes.md "Platform nodes"): the one rule placement (monitors/placement.ts), probe node
 * selection (probes/select.ts) and the assignment feed (monitors/assignment-feed.ts) apply.
 */

/** What the rule needs of a node (columns of `nodes`: owner_user_id, team_id from 0046, platform from 0037). */
export interface NodeTrustFacts extends NodeOwnerFacts {
  /** Marked by the operator as one of the platform's own nodes (VANTAGE_PLATFORM_NODE_OWNERS). */
  platform: boolean;
}

/**
 * True when `node` may receive the secrets of `owner` (a monitor's {user_id, team_id}, or a probe
 * requester's account with team_id null): it is a platform node, or it has the same owner
 * (nodes/sharing.ts sameOwner: a team's secrets go to the team's nodes, whoever of its members
 * enrolled them, never to a member's personal node; a personal resource's to its creator's
 * personal nodes). `owner` null (an anonymous requester): platform nodes only. A node of anyone
 * else runs only what carries no secret: its owner controls the machine, its agent's state
 * database and its memory.
 */
export function mayHoldSecretsOf(node: NodeTrustFacts, owner: { user_id: string; team_id: string | null } | null): boolean {
  return node.platform || (owner !== null && sameOwner(node, owner));
}

/**
 * The names of `headers` (a request header map, or anything else: then none) whose values are
 * secrets (header-rule.ts isSecretHeader), in their given order.
 */
export function secretHeaderNames(headers: unknown): string[] {
  if (!headers || typeof headers !== 'object' || Array.isArray(headers)) return [];
  return Object.keys(headers).filter(isSecretHeader);
}
