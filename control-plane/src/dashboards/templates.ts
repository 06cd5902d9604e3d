import { newId, type DashboardTemplate, type Widget } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { OwnerScope } from '../teams/authorize.js';
import { ownerMonitors } from './widget-data.db.js';

/*
 * Dashboard templates (docs/api/dashboards.md "Templates"), filled with the owner's own
 * resources when the dashboard is made: the monitors named by latency and checks-by-node widgets
 * are the owner's first ones by name (widgets that would need a monitor are left out when it has
 * none); uptime and event widgets cover all of the owner's monitors, so monitors added later show.
 */

/** Monitors a template's latency widget names. */
const LATENCY_MONITORS = 5;

type Draft = Omit<Widget, 'id'>;
const at = (x: number, y: number, w: number, h: number) => ({ x, y, w, h });

function monitorOverview(ids: string[]): Draft[] {
  const out: Draft[] = [
    { type: 'stat', title: 'Uptime', position: at(0, 0, 3, 2), data_source: { kind: 'monitor', metric: 'uptime' }, options: { decimals: 3 } },
    { type: 'gauge', title: 'Uptime', position: at(3, 0, 3, 2), data_source: { kind: 'monitor', metric: 'uptime' }, options: { min: 90, max: 100, thresholds: [99, 99.9] } },
    { type: 'donut', title: 'Time by state', position: at(6, 0, 3, 2), data_source: { kind: 'monitor', metric: 'uptime' }, options: {} },
    { type: 'stat', title: 'Alerts', position: at(9, 0, 3, 2), data_source: { kind: 'event', metric: 'alert_events' }, options: {} },
    { type: 'status_strip', title: 'Uptime by day', position: at(0, 2, 12, 4), data_source: { kind: 'monitor', metric: 'uptime' }, options: { limit: 20 } },
    { type: 'table', title: 'Monitors, worst first', position: at(0, 10, 12, 5), data_source: { kind: 'monitor', metric: 'uptime' }, options: { limit: 50 } },
  ];
  if (ids.length > 0) {
    out.push({ type: 'timeseries', title: 'Response time (p95)', position: at(0, 6, 12, 4), data_source: { kind: 'monitor', metric: 'latency', monitor_ids: ids }, options: { stat: 'p95' } });
  }
  return out;
}

function nodeFleet(ids: string[]): Draft[] {
  const out: Draft[] = [
    { type: 'stat', title: 'Nodes online', position: at(0, 0, 4, 2), data_source: { kind: 'node', metric: 'online_count', mine: true }, options: {} },
    { type: 'donut', title: 'Online / offline', position: at(4, 0, 4, 2), data_source: { kind: 'node', metric: 'online_count', mine: true }, options: {} },
    { type: 'stat', title: 'Directory', position: at(8, 0, 4, 2), data_source: { kind: 'node', metric: 'directory' }, options: {} },
    { type: 'table', title: 'Your nodes', position: at(0, 2, 12, 5), data_source: { kind: 'node', metric: 'directory', mine: true }, options: { limit: 50 } },
  ];
  if (ids.length > 0) {
    out.push({ type: 'bar', title: 'Checks by node', position: at(0, 7, 12, 4), data_source: { kind: 'monitor', metric: 'checks_by_node', monitor_ids: ids.slice(0, 1) }, options: {} });
  }
  return out;
}

function alerting(): Draft[] {
  return [
    { type: 'stat', title: 'Alert events', position: at(0, 0, 3, 2), data_source: { kind: 'event', metric: 'alert_events' }, options: {} },
    { type: 'stat', title: 'Open incidents', position: at(3, 0, 3, 2), data_source: { kind: 'event', metric: 'incidents' }, options: {} },
    { type: 'donut', title: 'Alerts by status', position: at(6, 0, 3, 2), data_source: { kind: 'event', metric: 'alert_events' }, options: {} },
    { type: 'donut', title: 'Incidents', position: at(9, 0, 3, 2), data_source: { kind: 'event', metric: 'incidents' }, options: {} },
    { type: 'table', title: 'Recent alert events', position: at(0, 2, 12, 5), data_source: { kind: 'event', metric: 'alert_events' }, options: { limit: 50 } },
    { type: 'table', title: 'Incidents', position: at(0, 7, 12, 4), data_source: { kind: 'event', metric: 'incidents' }, options: { limit: 20 } },
  ];
}

/** The widgets of template `key` for the owner `scope` (ids made here). */
export async function templateWidgets(ex: SqlExecutor, scope: OwnerScope, key: DashboardTemplate): Promise<Widget[]> {
  const ids = key === 'alerting' ? [] : (await ownerMonitors(ex, scope, undefined, LATENCY_MONITORS)).map((m) => m.id);
  const drafts = key === 'monitor_overview' ? monitorOverview(ids) : key === 'node_fleet' ? nodeFleet(ids) : alerting();
  return drafts.map((d) => ({ id: newId('widget'), ...d }));
}
