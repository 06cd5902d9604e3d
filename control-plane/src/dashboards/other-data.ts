import type { WidgetType } from '@vantage/shared-protocol';
import { listEvents } from '../alerting/alert-events.db.js';
import { listIncidents } from '../incidents/incidents.db.js';
import { listNodesJson } from '../nodes/nodes.db.js';
import type { Sql } from '../db/sql.js';
import type { DataContext } from './monitor-data.js';
import { alertEventCounts, ownerMonitors } from './widget-data.db.js';

/*
 * Data of event and node widgets (docs/api/dashboards.md "Widget data"): the owner's alert events
 * started in the range (alerting/alert-events.db.ts), its incidents (incidents/incidents.db.ts:
 * those open at some point of the range), and the node directory (nodes/nodes.db.ts, the same
 * rows GET /v1/nodes lists).
 */

/** Rows an event or directory table lists by default. */
const TABLE_ROWS = 50;
/** Incidents read to find those overlapping a range (newest first). */
const INCIDENTS_READ = 200;

const limitOf = (o: Record<string, unknown>, dflt: number) => (o.limit as number | undefined) ?? dflt;

/** Alert-event widget data: stat (`value`: events started), donut and bar (`slices` by status), table (`rows`). */
export async function alertEventsData(ctx: DataContext, type: WidgetType, monitor_ids: string[] | undefined, options: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (type === 'table') {
    const { rows, total } = monitor_ids && monitor_ids.length === 1
      ? await listEvents(ctx.sql, ctx.scope, { monitor_id: monitor_ids[0], from: ctx.from, to: ctx.to, limit: limitOf(options, TABLE_ROWS), offset: 0 })
      : await listEvents(ctx.sql, ctx.scope, { from: ctx.from, to: ctx.to, limit: monitor_ids ? 1000 : limitOf(options, TABLE_ROWS), offset: 0 });
    const picked = (monitor_ids ? rows.filter((e) => monitor_ids.includes(e.monitor_id)) : rows).slice(0, limitOf(options, TABLE_ROWS));
    const names = new Map((await ownerMonitors(ctx.sql, ctx.scope, [...new Set(picked.map((e) => e.monitor_id))], picked.length)).map((m) => [m.id, m.name]));
    return {
      total: monitor_ids ? picked.length : total,
      rows: picked.map((e) => ({
        ...(ctx.with_ids ? { id: e.id, monitor_id: e.monitor_id } : {}), monitor_name: names.get(e.monitor_id) ?? null, type: e.type, status: e.status,
        started_at: e.started_at.toISOString(), resolved_at: e.resolved_at?.toISOString() ?? null,
      })),
    };
  }
  const counts = await alertEventCounts(ctx.sql, ctx.scope, ctx.from, ctx.to, monitor_ids);
  if (type === 'stat') return { unit: 'events', value: counts.firing + counts.acknowledged + counts.resolved, firing: counts.firing };
  return { unit: 'events', slices: (['firing', 'acknowledged', 'resolved'] as const).map((label) => ({ label, value: counts[label] })) };
}

/** Incident widget data: stat (`value`: open now), donut and bar (`slices` open/resolved of those in the range), table (`rows`). */
export async function incidentsData(ctx: DataContext, type: WidgetType, options: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (type === 'stat') {
    const { total } = await listIncidents(ctx.sql, ctx.scope, { status: 'open', limit: 1, offset: 0 });
    return { unit: 'incidents', value: total };
  }
  const { rows } = await listIncidents(ctx.sql, ctx.scope, { limit: INCIDENTS_READ, offset: 0 });
  const inRange = rows.filter((i) => i.started_at < ctx.to && (i.resolved_at === null || i.resolved_at >= ctx.from));
  if (type === 'table') {
    return {
      total: inRange.length,
      rows: inRange.slice(0, limitOf(options, TABLE_ROWS)).map((i) => ({
        ...(ctx.with_ids ? { id: i.id } : {}), title: i.title, status: i.status, impact: i.impact,
        started_at: i.started_at.toISOString(), resolved_at: i.resolved_at?.toISOString() ?? null,
      })),
    };
  }
  const open = inRange.filter((i) => i.status !== 'resolved').length;
  return { unit: 'incidents', slices: [{ label: 'open', value: open }, { label: 'resolved', value: inRange.length - open }] };
}

/**
 * Node widget data: `directory` as a table (`rows`: the directory's public fields) or a stat
 * (`value`: nodes listed); `online_count` as a stat or gauge (`value`: online, `total`) or a donut
 * (online/offline). `mine` limits both to the dashboard owner's own nodes.
 */
export async function nodeData(ctx: DataContext, type: WidgetType, metric: 'directory' | 'online_count', mine: boolean, options: Record<string, unknown>): Promise<Record<string, unknown>> {
  const owners = mine ? ctx.scope : undefined;
  const sql = ctx.sql as Sql;
  if (metric === 'directory') {
    const { items_json, total } = await listNodesJson(sql, { owners }, 1, type === 'table' ? Math.min(limitOf(options, TABLE_ROWS), 200) : 1);
    return type === 'table' ? { total, rows: JSON.parse(items_json) } : { unit: 'nodes', value: total };
  }
  const [online, all] = await Promise.all([listNodesJson(sql, { owners, status: 'online' }, 1, 1), listNodesJson(sql, { owners }, 1, 1)]);
  if (type === 'donut') return { unit: 'nodes', slices: [{ label: 'online', value: online.total }, { label: 'offline', value: all.total - online.total }] };
  return { unit: 'nodes', value: online.total, total: all.total };
}
