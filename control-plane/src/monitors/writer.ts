import { newId, type MonitorCreate, type MonitorStatus } from '@vantage/shared-protocol';
import { publicBaseUrl } from '../config/public-url.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import type { HostResolver } from '../probes/address-policy.js';
import { secretBoxOf } from '../secrets/secret-box.js';
import type { Owner } from '../teams/authorize.js';
import { heartbeatUrl, newHeartbeatToken } from './heartbeat.js';
import { maskedConfig, sealedConfig, secretsFailure } from './header-secrets.js';
import { changeMonitorStatus, countMonitors, findMonitor, insertMonitor, type MonitorRow } from './monitors.db.js';
import { createPlacementEngine } from './placement-engine.js';
import { planLimits } from './plans.js';
import { assertMinInterval, assertQuota, monitorsCap } from '../billing/quotas.js';
import { monitorChecker } from './spec.js';

/**
 * How monitors are created and paused or resumed (docs/api/monitors.md), once for every entry
 * point: the /v1/monitors routes and the MCP tools call these after deciding access
 * (teams/authorize.ts). Also the parts the routes' patch shares: the checker, plan limits,
 * placement, the secret box (`shown` and `shownInPlace` mask header secrets) and the two refusals.
 * @param opts.resolve host resolver for the target address policy (tests; default the system resolver)
 */
export function monitorWriter(deps: Pick<AppDeps, 'sql' | 'config' | 'log' | 'events'>, opts: { resolve?: HostResolver } = {}) {
  const check = monitorChecker({ sql: deps.sql, config: deps.config, resolve: opts.resolve });
  const plan = planLimits(deps.config);
  // Placement answers at once for the monitor a request changed; the job (main.ts) does the rest.
  const placement = createPlacementEngine({ sql: deps.sql, log: deps.log, config: deps.config });
  const placed = async (row: MonitorRow): Promise<MonitorRow> => ({ ...row, node_ids: await placement.placeNow(row.id) });
  // Header secrets: sealed when stored, masked in every answer (header-secrets.ts).
  const box = secretBoxOf(deps.config);
  const shown = (row: MonitorRow): MonitorRow => ({ ...row, config: maskedConfig(box, row.id, row.type, row.config) });
  // The same, masking `row` itself: for rows a request read for its answer alone (the list), which
  // need no copy of their two dozen fields for the one that changes.
  const shownInPlace = (row: MonitorRow): MonitorRow => {
    row.config = maskedConfig(box, row.id, row.type, row.config);
    return row;
  };
  const quotaError = () => new ApiError('MONITOR_LIMIT_EXCEEDED', `the ${plan.plan} plan allows ${plan.monitors_max} monitors`, { limit: 'monitors', max: plan.monitors_max, plan: plan.plan });
  const nameTaken = (owner: Owner, name: string) => new ApiError('MONITOR_NAME_TAKEN',
    `${owner.team_id === null ? 'you already have' : `team ${owner.team_id} already has`} a monitor named "${name}"`, { fields: [{ path: 'name', message: 'already taken' }] });

  return {
    check, plan, placement, box, shown, shownInPlace, placed, quotaError, nameTaken,

    /**
     * Create a monitor of `body` (monitorCreateSchema, without team_id) for `owner`, placed at once.
     * @returns the stored row as shown (secrets masked, node_ids placed) and, for a heartbeat
     *   monitor, its check-in token and URL (shown once)
     * @throws ApiError MONITOR_LIMIT_EXCEEDED (deployment or account plan), FEATURE_LOCKED (an
     *   interval under the plan's minimum), MONITOR_NAME_TAKEN, and the checker's VALIDATION_FAILED,
     *   MONITOR_INVALID_TARGET, MONITOR_INVALID_INTERVAL
     */
    async create(owner: Owner, body: Omit<MonitorCreate, 'team_id'>): Promise<{ row: MonitorRow; heartbeat?: { token: string; url: string } }> {
      if (await countMonitors(deps.sql, owner) >= plan.monitors_max) throw quotaError();
      // The account's plan (docs/api/billing.md "Quotas"): its monitor count, then (once the
      // interval is known to be one the deployment accepts) its shortest interval.
      const cap = monitorsCap(await assertQuota(deps, owner, 'monitors'), owner, plan.monitors_max, quotaError);
      const fields = await check(owner, body);
      await assertMinInterval(deps, owner.user_id, body.type === 'heartbeat' ? undefined : body.interval_s);
      const id = newId('monitor');
      const config = secretsFailure(() => sealedConfig(box, id, body.type, fields.config, null));
      const hb = body.type === 'heartbeat' ? newHeartbeatToken() : null;
      const out = await insertMonitor(deps.sql, { ...fields, config, id, ...owner, type: body.type, heartbeat: hb }, cap.max);
      if ('refused' in out) throw out.refused === 'limit' ? cap.refusal() : nameTaken(owner, fields.name);
      return { row: shown(await placed(out.row)), heartbeat: hb ? { token: hb.token, url: heartbeatUrl(publicBaseUrl(deps.config), hb.token) } : undefined };
    },

    /**
     * Pause (`active` → `paused`) or resume (`paused` → `active`) monitor `current`, publishing
     * monitor.paused / monitor.resumed and re-placing it (paused: it leaves its nodes' sets).
     * @throws ApiError MONITOR_PAUSED (already paused), CONFLICT (resuming an active one), MONITOR_NOT_FOUND (deleted meanwhile)
     */
    async setStatus(current: MonitorRow, from: MonitorStatus, to: MonitorStatus): Promise<{ id: string; status: MonitorStatus; state: MonitorRow['state'] }> {
      const refuse = (status: MonitorStatus) => status === 'paused'
        ? new ApiError('MONITOR_PAUSED', 'the monitor is already paused')
        : new ApiError('CONFLICT', 'the monitor is already active: only a paused monitor can be resumed');
      if (current.status !== from) throw refuse(current.status);
      const id = current.id;
      // The event names its creator; a team's monitor reports to the team's endpoints (webhooks/event-owner.db.ts).
      const row = await changeMonitorStatus(deps.sql, id, from, to, to === 'paused' ? 'paused' : 'pending', (tx, m) => deps.events.publish({
        type: to === 'paused' ? 'monitor.paused' : 'monitor.resumed', user_id: m.user_id,
        data: { monitor: { id: m.id, name: m.name, type: m.type, target: m.target ?? '' }, status: to, changed_at: m.state_changed_at.toISOString() },
      }, tx));
      if (!row) {
        const now = await findMonitor(deps.sql, id);
        throw now ? refuse(now.status) : new ApiError('MONITOR_NOT_FOUND', `no monitor ${id}`);
      }
      // Paused: it leaves its nodes' sets (a delta); resumed: it comes back, on nodes that are still fit.
      await placement.placeNow(id);
      return { id, status: row.status, state: row.state };
    },
  };
}

/** The monitor writer's type (monitors/writer.ts). */
export type MonitorWriter = ReturnType<typeof monitorWriter>;
