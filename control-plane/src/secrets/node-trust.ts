import { isSecretHeader } from './header-rule.js';

/*
 * Which nodes may receive an account's secrets (docs/api/monitors.md "Secrets in headers",
 * docs/api/nodes.md "Platform nodes"): the one rule placement (monitors/placement.ts), probe node
 * selection (probes/select.ts) and the assignment feed (monitors/assignment-feed.ts) apply.
 */

/** What the rule needs of a node (columns of `nodes`: owner_user_id, platform from 0037). */
export interface NodeTrustFacts {
  owner_user_id: string | null;
  /** Marked by the operator as one of the platform's own nodes (VANTAGE_PLATFORM_NODE_OWNERS). */
  platform: boolean;
}

/**
 * True when `node` may receive the secrets of account `user_id`: it is a platform node, or that
 * account owns it. `user_id` null (an anonymous requester): platform nodes only. A node enrolled
 * by anyone else runs only what carries no secret: its owner controls the machine, its agent's
 * state database and its memory.
 */
export function mayHoldSecretsOf(node: NodeTrustFacts, user_id: string | null): boolean {
  return node.platform || (user_id !== null && node.owner_user_id === user_id);
}

/**
 * The names of `headers` (a request header map, or anything else: then none) whose values are
 * secrets (header-rule.ts isSecretHeader), in their given order.
 */
export function secretHeaderNames(headers: unknown): string[] {
  if (!headers || typeof headers !== 'object' || Array.isArray(headers)) return [];
  return Object.keys(headers).filter(isSecretHeader);
}
