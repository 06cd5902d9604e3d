import {
  MONITOR_LIMITS, heartbeatIntervalS, isId, parseMonitorConfig, runsOnControlPlane,
  type HeartbeatMonitorConfig, type MonitorType,
} from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import { nodeCountLimits } from '../billing/quotas.js';
import { ApiError } from '../errors.js';
import { compileAddressPolicy, firstBlockedAddress, systemResolver, type AddressVerdict, type HostResolver } from '../probes/address-policy.js';
import type { Owner } from '../teams/authorize.js';
import { findGroup } from './monitor-groups.db.js';
import type { MonitorFields } from './monitors.db.js';
import { planLimits } from './plans.js';
import { ownsPrivateNode } from './private-nodes.db.js';
import { MonitorTargetError, parseMonitorTarget, type ContactedHost } from './target.js';

/** A monitor as a client describes it (create request, PATCH merged onto the stored monitor, import item). */
export interface MonitorInput {
  name: string;
  type: MonitorType;
  target?: string | null;
  config?: Record<string, unknown> | null;
  interval_s?: number;
  node_count?: number;
  group_id?: string | null;
  tags?: string[];
}

/** What checking a monitor needs; built once per router by {@link monitorChecker}. */
export interface MonitorCheckerDeps {
  sql: Sql;
  config: Pick<Config, 'probe_allow_cidrs' | 'plan' | 'plan_monitors_max' | 'plan_node_count_default' | 'plan_node_count_max' | 'billing_plan_quotas' | 'checks_retention_days'>
    & Partial<Pick<Config, 'monitor_extra_intervals_s'>>;
  /** Host name resolver for the address policy (default: the system resolver, 3 s bound). */
  resolve?: HostResolver;
}

/** A group belongs to the monitor's owner: the same team, or both personal of the same user. */
function sameOwner(group: Owner | null, owner: Owner): boolean {
  if (!group) return false;
  return owner.team_id === null ? group.team_id === null && group.user_id === owner.user_id : group.team_id === owner.team_id;
}

function invalidTarget(err: MonitorTargetError): ApiError {
  return new ApiError('MONITOR_INVALID_TARGET', `${err.path}: ${err.message}`, { fields: [{ path: err.path, message: err.message }] });
}

/**
 * Build the check that turns a {@link MonitorInput} into stored {@link MonitorFields} (docs/api/monitors.md;
 * docs/api/monitors.md), in this order:
 * 1. `config` validated for the type with defaults filled → 400 VALIDATION_FAILED (`config.` paths);
 * 2. `target` checked for the type → 422 MONITOR_INVALID_TARGET;
 * 3. `interval_s` in 60/300/1800 or the operator's `monitor_extra_intervals_s` (default 300),
 *    browser >= 300 → 400 MONITOR_INVALID_INTERVAL;
 *    heartbeat: derived from its schedule, the given value ignored;
 * 4. `node_count` 0 or absent = the plan's default, above the plan's maximum → 422
 *    MONITOR_LIMIT_EXCEEDED (a personal monitor: its account's plan; a team's: the deployment's;
 *    billing/quotas.ts nodeCountLimits); 0 for the types the control plane checks (heartbeat, domain_expiry);
 * 5. `group_id` must be a group of the monitor's owner (the same team, or the creator's personal
 *    groups for a personal monitor) → 400 VALIDATION_FAILED;
 * 6. every host a node would contact (the target's; a dns or rbl monitor's `config.server`)
 *    passes the address policy of probe targets (probes/address-policy.ts, `probe_allow_cidrs`),
 *    or it is private (or cannot be shown to be public) and the owner has a node that allows
 *    private targets (a team monitor: one of the team's nodes, whoever enrolled it; a personal
 *    monitor: one of the creator's personal nodes; private-nodes.db.ts ownsPrivateNode): then `private_target` is true; otherwise 422 MONITOR_INVALID_TARGET naming
 *    the field the host came from. With `recheck_address`
 *    false (a PATCH that changes neither target, config nor owner) `previous_private` is kept.
 */
export function monitorChecker(deps: MonitorCheckerDeps) {
  const allowed: (address: string) => AddressVerdict = compileAddressPolicy(deps.config.probe_allow_cidrs);
  const resolve = deps.resolve ?? systemResolver();
  const plan = planLimits(deps.config);
  const intervals_s = [...new Set([...MONITOR_LIMITS.intervals_s, ...(deps.config.monitor_extra_intervals_s ?? [])])].sort((a, b) => a - b);

  async function privateTarget(owner: Owner, hosts: ContactedHost[]): Promise<boolean> {
    for (const { host, path } of hosts) {
      const blocked = await firstBlockedAddress(host, allowed, resolve);
      if (!blocked) continue;
      if (await ownsPrivateNode(deps.sql, owner)) return true;
      const what = blocked.address === null
        ? `${path} ${host} cannot be shown to be public: ${blocked.reason}`
        : `${path} ${host} is a ${blocked.range} address (${blocked.address})`;
      throw new ApiError('MONITOR_INVALID_TARGET', `${what}; private targets need ${owner.team_id === null ? 'one of your nodes' : 'one of the team\'s nodes'} that allows private targets`,
        { host, address: blocked.address, range: blocked.range, fields: [{ path, message: what }] });
    }
    return false;
  }

  function intervalOf(input: MonitorInput, config: unknown): number {
    if (input.type === 'heartbeat') return heartbeatIntervalS(config as HeartbeatMonitorConfig);
    const interval_s = input.interval_s ?? MONITOR_LIMITS.interval_s_default;
    if (!intervals_s.includes(interval_s)) {
      const allowed = intervals_s.join(', ');
      throw new ApiError('MONITOR_INVALID_INTERVAL', `interval_s must be one of ${allowed} seconds`, { fields: [{ path: 'interval_s', message: `must be one of ${allowed}` }] });
    }
    if (input.type === 'browser' && interval_s < MONITOR_LIMITS.browser_interval_s_min) {
      throw new ApiError('MONITOR_INVALID_INTERVAL', `browser monitors run at most every ${MONITOR_LIMITS.browser_interval_s_min} s`, { fields: [{ path: 'interval_s', message: 'browser monitors need 300 or 1800' }] });
    }
    return interval_s;
  }

  async function nodeCountOf(owner: Owner, input: MonitorInput): Promise<number> {
    if (runsOnControlPlane(input.type)) return 0;
    const limits = await nodeCountLimits(deps, owner, plan);
    const node_count = input.node_count || limits.default;
    if (node_count > limits.max) {
      throw new ApiError('MONITOR_LIMIT_EXCEEDED', `the ${limits.plan} plan allows at most ${limits.max} nodes per monitor`,
        { limit: 'node_count', max: limits.max, plan: limits.plan, quota: 'node_count', used: node_count, fields: [{ path: 'node_count', message: `at most ${limits.max}` }] });
    }
    return node_count;
  }

  return async function check(owner: Owner, input: MonitorInput, opts: { recheck_address?: boolean; previous_private?: boolean } = {}): Promise<MonitorFields> {
    const parsed = parseMonitorConfig(input.type, input.config);
    if (!parsed.ok) {
      const first = parsed.issues[0]!;
      throw new ApiError('VALIDATION_FAILED', `${first.path}: ${first.message}`, { fields: parsed.issues, in: 'body' });
    }
    let target;
    try {
      target = parseMonitorTarget(input.type, input.target, parsed.config);
    } catch (err) {
      if (err instanceof MonitorTargetError) throw invalidTarget(err);
      throw err;
    }
    const interval_s = intervalOf(input, parsed.config);
    const node_count = await nodeCountOf(owner, input);
    const group_id = input.group_id ?? null;
    if (group_id !== null && !(isId('monitor_group', group_id) && sameOwner(await findGroup(deps.sql, group_id), owner))) {
      const where = owner.team_id === null ? 'your account' : `team ${owner.team_id}`;
      throw new ApiError('VALIDATION_FAILED', `group_id: no monitor group ${group_id} in ${where} (a monitor and its group have the same owner)`,
        { fields: [{ path: 'group_id', message: 'no such monitor group of the monitor\'s owner' }], in: 'body' });
    }
    const private_target = opts.recheck_address === false ? opts.previous_private ?? false : await privateTarget(owner, target.hosts);
    return {
      name: input.name, target: target.target, config: parsed.config as Record<string, unknown>, interval_s, node_count,
      group_id, tags: input.tags ?? [], private_target,
    };
  };
}
