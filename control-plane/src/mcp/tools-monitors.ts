import { z } from 'zod';
import { alertEventListQuerySchema, checkListQuerySchema, isId, monitorCreateSchema, uptimeQuerySchema, type MonitorStatus } from '@vantage/shared-protocol';
import { getEvent } from '../alerting/alert-events.db.js';
import { alertEventsPage } from '../alerting/alert-events-list.js';
import { acknowledgeEvent } from '../alerting/engine.js';
import { toAlertEvent } from '../alerting/events.js';
import { ownerOf } from '../alerting/route-kit.js';
import { ApiError } from '../errors.js';
import { findMonitor, findMonitorOwner } from '../monitors/monitors.db.js';
import { toMonitor } from '../monitors/view.js';
import { decideAccess, ownerForNewOfActor } from '../teams/authorize.js';
import type { Access } from '../teams/roles.js';
import { scopeOf, type ToolContext, type ToolDef } from './tool-def.js';

/*
 * Monitor and alerting tools of the MCP entry point (docs/api/mcp.md "Tools"): each decides access
 * by the one authorization rule (teams/authorize.ts decideAccess: another account's or team's
 * monitor is MONITOR_NOT_FOUND) and then calls what the matching /v1 route calls
 * (monitors/writer.ts, checks/history-reads.ts, alerting/alert-events-list.ts, alerting/engine.ts).
 */

const monitorId = z.object({ id: z.string().max(64).describe('monitor id (m_…)') });

/** Monitor `id`'s owner once the token's owner may `access` it. @throws ApiError MONITOR_NOT_FOUND, FORBIDDEN */
async function ownedMonitor(ctx: ToolContext, id: string, access: Access): Promise<void> {
  const owner = isId('monitor', id) ? await findMonitorOwner(ctx.sql, id) : null;
  decideAccess(ctx.actor, owner, access, 'MONITOR_NOT_FOUND', 'monitor');
}

function statusTool(name: string, from: MonitorStatus, to: MonitorStatus, route: string): ToolDef {
  return {
    name,
    description: `${to === 'paused' ? 'Pause one of your monitors: no rounds run until resumed' : 'Resume one of your paused monitors'} (same as POST /v1/monitors/{id}/${route}).`,
    input: monitorId,
    async run(ctx, a: { id: string }) {
      const row = isId('monitor', a.id) ? await findMonitor(ctx.sql, a.id) : null;
      decideAccess(ctx.actor, row, 'write', 'MONITOR_NOT_FOUND', 'monitor');
      const r = await ctx.monitors.setStatus(row!, from, to);
      return { data: r, text: `${r.id}: ${r.status} (${r.state})`, units: 1 };
    },
  };
}

const uptimeInput = monitorId.extend(uptimeQuerySchema.shape);
const checksInput = monitorId.extend(checkListQuerySchema.shape);

/** The monitor and alert-event tools. */
export const MONITOR_TOOLS: readonly ToolDef[] = [
  {
    name: 'get_monitor_uptime',
    description: 'Uptime of one of your monitors over a period (24h, 7d, 30d, 90d; default 24h) or from/to: up, degraded, down, maintenance and no-data seconds, incidents, MTTR (same answer as GET /v1/monitors/{id}/uptime).',
    input: uptimeInput,
    async run(ctx, a: z.infer<typeof uptimeInput>) {
      const { id, ...q } = a;
      const now = Date.now();
      const window = ctx.history.uptimeWindow(q, now);
      await ownedMonitor(ctx, id, 'read');
      const u = await ctx.history.uptime(id, window, now);
      return { data: u as unknown as Record<string, unknown>, text: `${id}: ${u.uptime_percent === null ? 'no data' : `${u.uptime_percent}% up`} from ${u.from} to ${u.to}, ${u.incidents} incidents`, units: 1 };
    },
  },
  {
    name: 'list_monitor_checks',
    description: 'Recent raw checks of one of your monitors, newest first: one per node and round, with success, response time and error (same answer as GET /v1/monitors/{id}/checks; from defaults to 24 hours ago).',
    input: checksInput,
    async run(ctx, a: z.infer<typeof checksInput>) {
      const { id, ...q } = a;
      await ownedMonitor(ctx, id, 'read');
      const page = await ctx.history.checks(id, q);
      const lines = page.items.map((c) => `${c.scheduled_at} ${c.node_id ?? '-'} ${c.success ? 'ok' : `failed: ${c.error ?? c.error_class ?? 'unknown'}`}${c.response_ms === null ? '' : ` ${c.response_ms} ms`}`).join('\n');
      return { data: page as unknown as Record<string, unknown>, text: `${page.items.length} of ${page.total} checks${lines ? `\n${lines}` : ''}`, units: 1 };
    },
  },
  {
    name: 'create_monitor',
    description: 'Create a monitor (same body and checks as POST /v1/monitors: name, type, target, config, interval_s, node_count, group_id, tags, team_id). A heartbeat monitor\'s check-in URL is shown once.',
    input: monitorCreateSchema as unknown as z.ZodObject,
    async run(ctx, a: z.infer<typeof monitorCreateSchema>) {
      const { team_id, ...body } = a;
      const { row, heartbeat } = await ctx.monitors.create(ownerForNewOfActor(ctx.actor, team_id), body);
      return { data: toMonitor(row, heartbeat) as unknown as Record<string, unknown>, text: `created ${row.id} ${row.name} (${row.type} ${row.target ?? ''}) on ${row.node_ids.length} nodes`, units: 1 };
    },
  },
  statusTool('pause_monitor', 'active', 'paused', 'pause'),
  statusTool('resume_monitor', 'paused', 'active', 'resume'),
  {
    name: 'list_alert_events',
    description: 'Alert events you can read, yours and your teams\', newest first (same filters as GET /v1/alert-events: status, monitor_id, team_id, from, to, page, page_size).',
    input: alertEventListQuerySchema,
    async run(ctx, q: z.infer<typeof alertEventListQuerySchema>) {
      const page = await alertEventsPage(ctx.sql, scopeOf(ctx.actor, q.team_id), q);
      const lines = page.items.map((e) => `${e.id} ${e.status} ${e.started_at}`).join('\n');
      return { data: page as unknown as Record<string, unknown>, text: `${page.items.length} of ${page.total} alert events${lines ? `\n${lines}` : ''}`, units: 1 };
    },
  },
  {
    name: 'ack_alert_event',
    description: 'Acknowledge a firing alert event you may act on: escalation stops and the channels already paged are told; acknowledging it again changes nothing (same as POST /v1/alert-events/{id}/ack).',
    input: z.object({ id: z.string().max(64).describe('alert event id (ae_…)') }),
    async run(ctx, a: { id: string }) {
      const row = isId('alert_event', a.id) ? await getEvent(ctx.sql, a.id) : null;
      decideAccess(ctx.actor, row && ownerOf(row), 'write', 'NOT_FOUND', 'alert event');
      const out = await acknowledgeEvent(ctx.alert_engine, ctx.token.user_id, a.id);
      if (out === 'missing') throw new ApiError('NOT_FOUND', `no alert event ${a.id}`);
      if (out === 'resolved') throw new ApiError('CONFLICT', `alert event ${a.id} is resolved`);
      const event = toAlertEvent({ ...out, team_id: row!.team_id });
      return { data: event as unknown as Record<string, unknown>, text: `${event.id}: ${event.status}`, units: 1 };
    },
  },
];
