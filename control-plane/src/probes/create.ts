import { newId, type CheckSpec, type ProbeCreated, type ProbeParams, type ProbeType } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import { insertTasks, type NewTask } from './tasks.db.js';
import type { Principal } from '../env.js';
import { ApiError } from '../errors.js';
import type { NodeHub } from '../contracts.js';
import type { Logger } from '../log.js';
import { compileAddressPolicy, firstBlockedAddress, systemResolver, type AddressVerdict, type HostResolver } from './address-policy.js';
import type { CandidateNode, FirstRoundTasks, NodeOwner } from './node-selection.db.js';
import { actingOwner, requesterOwner, sameOwner, type ServedOwner } from '../nodes/sharing.js';
import { rolesOfUser } from '../teams/memberships.db.js';
import { failTask } from './failures.js';
import { selectNodesInserting, type NodeRequest, type PickLimits } from './select.js';
import { parseTarget, TargetSyntaxError, taskTimeoutMs } from './target.js';
import { sealTaskCheck, taskSecretHeaders } from './task-secrets.js';
import { secretBoxOf } from '../secrets/secret-box.js';

/** What creating probes needs; built once per app by {@link probeCreator}. */
export interface ProbeCreatorDeps {
  sql: Sql;
  /** The client node picks run on (AppDeps.generic_sql); `sql` when absent. */
  generic_sql?: Sql;
  log: Logger;
  config: Pick<Config, 'probe_allow_cidrs' | 'task_grace_ms' | 'secrets_key' | 'secrets_keys_previous'>;
  hub: NodeHub;
  /** Host name resolver for the target check (default: the system resolver, 3 s bound; failing or slower = refused). */
  resolve?: HostResolver;
  /** [0,1) source for node picks (tests pass a seeded one). */
  random?: () => number;
}

/** A validated probe request (shared-protocol probeRequestSchema(type) output). */
export type ProbeBody<T extends ProbeType> = NodeRequest & { target: string; params: ProbeParams[T] };

/**
 * True when `principal` may reach private addresses through the nodes it owns: a write-capable
 * credential (a session, or an API key / PAT with the `write` scope). A read-only key may not.
 */
export function canProbePrivate(principal: Principal | null): principal is Principal {
  return principal !== null && principal.scopes.includes('write');
}

/**
 * Whether the task on `node` runs with `allow_private` in its requester policy: only with a
 * write-capable credential, on a node of `owner` (nodes/sharing.ts sameOwner: the caller's
 * personal node, or for a monitor's run the monitor's owner's) that lets run private targets.
 */
function ownsPrivately(node: CandidateNode, principal: Principal | null, owner: NodeOwner | null): boolean {
  return canProbePrivate(principal) && owner !== null && sameOwner(node, owner) && node.allow_private;
}

/**
 * Whom a probe's nodes work for: `on_behalf` (a monitor's owner, for its run), else the caller's
 * account with the teams it is a member of (a workspace token: its team only, as owner too: nodes/sharing.ts requesterOwner), else anonymous.
 */
async function servedOwner(sql: Sql, principal: Principal | null, on_behalf: NodeOwner | undefined): Promise<ServedOwner | null> {
  if (on_behalf) return { user_id: on_behalf.user_id, team_id: on_behalf.team_id };
  if (!principal) return null;
  return requesterOwner(principal.user_id, [...(principal.standing?.team_roles ?? await rolesOfUser(sql, principal.user_id)).keys()], principal.team_id ?? null);
}

/**
 * Build the probe-creation operation (docs/api/probes.md). `create(type, body, principal, on_behalf?)`
 * (`on_behalf`: the owner of the monitor a run is for, the route having authorized the caller to
 * change that monitor: its nodes are then those of the monitor's owner, a team's for a team monitor):
 * 1. parses the target per type (probes/target.ts): malformed → 400 VALIDATION_FAILED;
 * 2. checks every host the node will contact (literal, or resolved by the system resolver)
 *    against the address policy (docs/architecture/probes.md, target safety). A private/reserved address outside
 *    `probe_allow_cidrs`, or a name that cannot be resolved within the bound (fail closed), is
 *    refused: 422 PROBE_TARGET_INVALID for anonymous callers, 403 FORBIDDEN for a credential
 *    without the `write` scope; a write-capable caller is restricted to their own nodes that
 *    allow private targets;
 * 3. selects nodes among those that serve the caller (own, its teams', shared and platform nodes;
 *    anonymous: shared and platform; nodes/sharing.ts) (probes/select.ts; 404/503/422 there, 403
 *    for a named node that does not serve the caller; a request whose headers carry secrets
 *    only among nodes trusted with the caller's secrets, 403 for an explicit one that is not),
 *    inserts one task per node (one group,
 *    group id = first task id; a small automatic pick answered by its first round inserts them
 *    in the pick statement itself), then sends each `task.run` through the hub with the requester's
 *    policy (public addresses and `probe_allow_cidrs`, plus `allow_private` on the caller's own
 *    nodes when the credential can write), which the node enforces on every address it
 *    connects to; a node the hub finds offline gets a failed result at once ("node offline").
 * @returns `{ task_id, task_ids, status: 'queued' }`
 */
export function probeCreator(deps: ProbeCreatorDeps) {
  const allowed: (address: string) => AddressVerdict = compileAddressPolicy(deps.config.probe_allow_cidrs);
  const resolve = deps.resolve ?? systemResolver();
  const log = deps.log.child({ module: 'tasks.create' });
  const box = secretBoxOf(deps.config);

  async function privateOwner(type: ProbeType, target: string, params: unknown, principal: Principal | null): Promise<string | null> {
    let hosts: string[];
    try {
      hosts = parseTarget(type, target, params as never).hosts;
    } catch (err) {
      if (err instanceof TargetSyntaxError) throw new ApiError('VALIDATION_FAILED', `${err.path}: ${err.message}`, { fields: [{ path: err.path, message: err.message }] });
      throw err;
    }
    for (const host of hosts) {
      const blocked = await firstBlockedAddress(host, allowed, resolve);
      if (!blocked) continue;
      const what = blocked.address === null
        ? `target ${host} cannot be shown to be public: ${blocked.reason}`
        : `target ${host} is a ${blocked.range} address (${blocked.address})`;
      const details = { host, address: blocked.address, range: blocked.range };
      if (!principal) throw new ApiError('PROBE_TARGET_INVALID', `${what}; public probes reach only public addresses`, details);
      if (!canProbePrivate(principal)) {
        throw new ApiError('FORBIDDEN', `${what}; private targets need a write-capable credential of the node's owner`, { ...details, required_scope: 'write' });
      }
      return principal.user_id;
    }
    return null;
  }

  async function dispatch(task: NewTask): Promise<void> {
    let outcome: 'sent' | 'offline' | 'error';
    try {
      outcome = await deps.hub.sendTask(task.node_id, {
        type: 'task.run', task_id: task.id, timeout_ms: task.timeout_ms,
        policy: { allow_private: task.allow_private, allow_cidrs: deps.config.probe_allow_cidrs }, check: task.check,
      });
    } catch (err) {
      log.warn({ err, task_id: task.id, node_id: task.node_id }, 'task dispatch failed');
      outcome = 'error';
    }
    if (outcome === 'sent') return;
    await failTask(deps.sql, task.id, outcome === 'offline' ? 'node offline' : 'could not deliver the task to the node', 'internal');
  }

  return async function create<T extends ProbeType>(type: T, body: ProbeBody<T>, principal: Principal | null, on_behalf?: NodeOwner): Promise<ProbeCreated> {
    const served = servedOwner(deps.sql, principal, on_behalf);
    served.catch(() => undefined); // awaited below; a refused target must not leave it unhandled
    const acting: NodeOwner | null = on_behalf ?? (principal ? actingOwner(principal.user_id, principal.team_id ?? null) : null);
    const private_owner = (await privateOwner(type, body.target, body.params, principal)) === null ? null : acting;
    const requester = await served;
    const check = { type, target: body.target, params: body.params } as CheckSpec;
    const timeout_ms = taskTimeoutMs(type, body.params);
    // Stored with secret header values sealed (under the group id); sent to the nodes as requested.
    const sealed = (ids: string[]) => sealTaskCheck(box, ids[0]!, check);
    // A small automatic pick inserts its tasks in the pick statement when its first round is
    // the whole answer (probes/select.ts): these are those tasks' ids and columns.
    const firstRound = (count: number): FirstRoundTasks => {
      const ids = Array.from({ length: count }, () => newId('probe_task'));
      return {
        ids, probe_type: type, target: body.target, check: sealed(ids), timeout_ms, grace_ms: deps.config.task_grace_ms,
        requester_user_id: principal?.user_id ?? null, private_owner: canProbePrivate(principal) ? acting : null,
      };
    };
    const secret_headers = taskSecretHeaders(check);
    const limits: PickLimits = { requester, private_owner, secrets: secret_headers.length > 0 ? { headers: secret_headers, requester: acting } : null };
    const { nodes, inserted } = await selectNodesInserting(deps.generic_sql ?? deps.sql, type, body, limits, deps.random, firstRound);
    const ids = inserted ? inserted.ids : nodes.map(() => newId('probe_task'));
    const tasks: NewTask[] = nodes.map((node, i) => ({
      id: ids[i]!, group_id: ids[0]!, ordinal: i, node_id: node.id, probe_type: type, target: body.target, check,
      timeout_ms, grace_ms: deps.config.task_grace_ms, requester_user_id: principal?.user_id ?? null, allow_private: ownsPrivately(node, principal, acting),
    }));
    if (!inserted) {
      const stored_check = sealed(ids);
      await insertTasks(deps.sql, stored_check === check ? tasks : tasks.map((t) => ({ ...t, check: stored_check })));
    }
    await Promise.all(tasks.map(dispatch));
    log.debug({ task_id: ids[0], type, nodes: ids.length, inserted_with_pick: inserted !== null }, 'probe created');
    return { task_id: ids[0]!, task_ids: ids, status: 'queued' };
  };
}
