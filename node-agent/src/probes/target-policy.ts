import { PUBLIC_ONLY, compileTargetPolicy, type AddressVerdict, type TargetPolicy } from '@vantage/shared-protocol';

/**
 * The node's side of target safety (docs/architecture/probes.md; the rule itself is shared-protocol's
 * probe/address-policy.ts, the same one the control plane applies before dispatch). A node runs
 * each check under the intersection of its operator's policy (`allow_private`, `allow_cidrs` in
 * its config) and the policy of whoever asked for the check (carried by `task.run` and by
 * assignments): a private address is probed only when both allow it.
 */
export type { TargetPolicy } from '@vantage/shared-protocol';
export { intersectPolicies } from '@vantage/shared-protocol';

/** Public unicast only: the default of a node's configuration and of a task that says nothing. */
export const DEFAULT_POLICY: TargetPolicy = PUBLIC_ONLY;

/**
 * Compile `policy` into a predicate over IP literals: allowed, or refused with the range name.
 * Throws on a malformed CIDR, so bad configuration fails at start-up.
 */
export function compilePolicy(policy: TargetPolicy): (address: string) => AddressVerdict {
  return compileTargetPolicy(policy);
}
