import { sslParamsSchema, type SslAudit, type SslLookup } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { Principal } from '../env.js';
import { ApiError } from '../errors.js';
import type { probeCreator } from '../probes/create.js';
import { taskTimeoutMs } from '../probes/target.js';
import type { GroupViews } from '../probes/view.js';
import { waitForGroup } from '../probes/wait-group.js';
import { SSL_RETRY_AFTER_S, sslUnavailable } from './ssl-audit.js';

/*
 * GET /v1/info/ssl with `node_id` (docs/api/lookups.md "SSL audit from a node"): the audit runs on
 * that node as an `ssl` probe task (node-agent probes/ssl.ts, the same audit code as the control
 * plane's), created through the probe machinery (node selection, the requester's target policy,
 * the node's own policy) and awaited here.
 */

/** Extra wait past the task's own bound and grace for the result to be stored and read, ms. */
const RESULT_SLACK_MS = 2000;

/** What the node path needs: the probe creator and group reader of the app, and the config. */
export interface SslNodeAuditDeps {
  create: ReturnType<typeof probeCreator>;
  views: GroupViews;
  config: Pick<Config, 'lookup_timeout_ms' | 'task_grace_ms'>;
}

/** The selection's refusal of `node_id`, said for this route's query (`node_id`, never `node_ids`). */
function forQuery(err: unknown, node_id: string): unknown {
  if (!(err instanceof ApiError)) return err;
  const named = Array.isArray(err.details?.node_ids);
  // Another account's node that does not serve the caller is not shown to exist: 404, never 403.
  if (err.code === 'NODE_NOT_FOUND' || (err.code === 'FORBIDDEN' && named)) {
    return new ApiError('NODE_NOT_FOUND', `node_id: no node ${node_id}`, { node_id, fields: [{ path: 'node_id', message: 'no such node' }] });
  }
  if (err.code === 'NODE_OFFLINE') {
    return new ApiError('NODE_OFFLINE', `node_id: node ${node_id} is not online`, { node_id }, { 'Retry-After': String(SSL_RETRY_AFTER_S) });
  }
  if (err.code === 'VALIDATION_FAILED' && /cannot run/.test(err.message)) {
    const message = `node ${node_id} cannot run SSL audits: its agent does not advertise the ssl probe type (an older agent; upgrade it)`;
    return new ApiError('VALIDATION_FAILED', `node_id: ${message}`, { node_id, fields: [{ path: 'node_id', message }] });
  }
  return err;
}

/**
 * Build the node path: `audit(q, port, node_id, principal)` creates an `ssl` task for `q:port` on
 * `node_id` for `principal` (null: anonymous) with each handshake bounded by lookup_timeout_ms
 * (clamped to the probe's 100-30000 ms), waits for its result (the task's bound plus task_grace_ms),
 * and answers the audit with `node_id`.
 * @throws ApiError NODE_NOT_FOUND (unknown node, or one that does not serve the caller),
 *   NODE_OFFLINE with Retry-After, VALIDATION_FAILED naming node_id (an agent without the ssl
 *   probe), PROBE_TARGET_INVALID (the target policy of the control plane or of the node refuses
 *   the address), NOT_FOUND (the name does not resolve on the node), UNAVAILABLE with Retry-After
 *   (no handshake, or no result in time)
 */
export function sslNodeAudit(deps: SslNodeAuditDeps) {
  const params = sslParamsSchema.parse({ timeout_ms: Math.min(30_000, Math.max(100, deps.config.lookup_timeout_ms)) });
  const wait_ms = taskTimeoutMs('ssl', params) + deps.config.task_grace_ms + RESULT_SLACK_MS;

  return async function audit(q: string, port: number, node_id: string, principal: Principal | null): Promise<SslLookup> {
    let task_id: string;
    try {
      ({ task_id } = await deps.create('ssl', { target: `${q}:${port}`, node_id, params }, principal));
    } catch (err) {
      throw forQuery(err, node_id);
    }
    let group;
    try {
      group = await waitForGroup(deps.views, task_id, AbortSignal.timeout(wait_ms));
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw sslUnavailable(`node ${node_id} sent no SSL audit of ${q}:${port} within ${wait_ms} ms`, q, 'no result from the node in time', { node_id, task_id, timeout: true });
    }
    const r = group.node_results[0] as (typeof group.node_results)[number] & { audit?: SslAudit | null };
    if (r?.success && r.audit) return { ...r.audit, node_id };
    const reason = r?.error ?? 'no result';
    const details = { q, node_id, task_id, reason };
    switch (r?.error_class) {
      case 'resolver': throw new ApiError('NOT_FOUND', `${q} does not resolve on node ${node_id}: ${reason}`, details);
      case 'blocked': throw new ApiError('PROBE_TARGET_INVALID', `node ${node_id} refuses the target: ${reason}`, details);
      default: throw sslUnavailable(`no SSL audit of ${q}:${port} from node ${node_id}: ${reason}`, q, reason, { node_id, task_id, timeout: r?.error_class === 'timeout' });
    }
  };
}
