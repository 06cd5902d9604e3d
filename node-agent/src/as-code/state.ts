import type { AlertChannel, AlertPolicy, AsCodeMark, Monitor, MonitorGroup } from '@vantage/shared-protocol';
import type { ApiClient } from './client.js';
import { AS_CODE_KINDS, type AsCodeKind } from './format.js';
import { KIND_HANDLERS } from './kinds/index.js';

/** A resource as it exists: id, name, its comparable view (references by name) and its mark, if any. */
export interface Existing {
  kind: AsCodeKind;
  id: string;
  name: string;
  view: Record<string, unknown>;
  mark: AsCodeMark | null;
  /** A dashboard's version (sent as expected_version with its writes). */
  version?: number;
}

/** Everything of the caller's own (not a team's) that the engine manages, by kind then name. */
export type AccountState = Record<AsCodeKind, Map<string, Existing>>;

/** The paths of each kind's collection. */
export const KIND_PATH: Record<AsCodeKind, string> = {
  monitor_group: '/v1/monitor-groups', alert_channel: '/v1/alert-channels', monitor: '/v1/monitors', alert_policy: '/v1/alert-policies',
  ...Object.fromEntries(Object.values(KIND_HANDLERS).map((h) => [h.kind, h.path])),
} as Record<AsCodeKind, string>;

async function listMonitors(api: ApiClient): Promise<Monitor[]> {
  const all: Monitor[] = [];
  for (let page = 1; ; page++) {
    const res = await api.get<{ items: Monitor[]; total: number }>(`/v1/monitors?limit=100&page=${page}`);
    all.push(...res.items);
    if (res.items.length < 100 || all.length >= res.total) return all;
  }
}

/** A monitor's view: the ExportMonitor fields (docs/api/monitors.md "Export and import"), group by name. */
export function monitorView(m: Monitor, groupName: (id: string) => string): Record<string, unknown> {
  return {
    type: m.type, ...(m.target !== null && m.type !== 'heartbeat' ? { target: m.target } : {}), interval_s: m.interval_s, node_count: m.node_count,
    tags: m.tags, group: m.group_id ? groupName(m.group_id) : '', config: m.config,
  };
}

/** A policy's view: its fields with the monitor and channels named instead of by id. */
export function policyView(p: AlertPolicy, monitorName: (id: string) => string, channelName: (id: string) => string): Record<string, unknown> {
  return {
    monitor: monitorName(p.monitor_id), channels: p.channel_ids.map(channelName), enabled: p.enabled, delay_s: p.delay_s,
    recovery_n: p.recovery_n, mute_start: p.mute_start, mute_end: p.mute_end, title_template: p.title_template,
    body_template: p.body_template, fire_on_degraded: p.fire_on_degraded, notify_on_no_data: p.notify_on_no_data,
    escalation_levels: p.escalation_levels.map((l) => ({ level_index: l.level_index, after_seconds: l.after_seconds, channels: l.channel_ids.map(channelName) })),
  };
}

/**
 * Read the caller's personal resources of every kind (monitor groups, alert channels, webhook
 * endpoints, monitors, alert policies, silences, maintenance windows, status pages, dashboards)
 * and their as-code marks. A second resource with a name already seen (the API allows it for
 * channels, policies and the kinds named by a free-text field) is left out: the oldest one is
 * the one files manage. A resource without a stable name (a silence without a reason...) is too.
 * @throws ApiCallError from the API
 */
export async function readAccountState(api: ApiClient): Promise<AccountState> {
  const handlers = Object.values(KIND_HANDLERS);
  const [groups, channels, monitors, policies, marks, listed] = await Promise.all([
    api.get<MonitorGroup[]>('/v1/monitor-groups'),
    api.get<{ items: AlertChannel[] }>('/v1/alert-channels').then((r) => r.items),
    listMonitors(api),
    api.get<{ items: AlertPolicy[] }>('/v1/alert-policies').then((r) => r.items),
    api.get<{ items: AsCodeMark[] }>('/v1/as-code/marks').then((r) => r.items),
    Promise.all(handlers.map((h) => h.list(api))),
  ]);
  const markOf = new Map(marks.map((m) => [`${m.kind}\0${m.resource_id}`, m]));
  const state = Object.fromEntries(AS_CODE_KINDS.map((k) => [k, new Map()])) as AccountState;
  const names = new Map<string, string>();
  const add = (kind: AsCodeKind, r: { id: string; name: string; team_id: string | null; version?: number }, view: () => Record<string, unknown>) => {
    names.set(r.id, r.name);
    if (r.team_id !== null || state[kind].has(r.name)) return;
    state[kind].set(r.name, { kind, id: r.id, name: r.name, view: view(), mark: markOf.get(`${kind}\0${r.id}`) ?? null, ...(r.version !== undefined ? { version: r.version } : {}) });
  };
  const nameOf = (id: string) => names.get(id) ?? id;
  for (const g of groups) add('monitor_group', g, () => ({ sort_order: g.sort_order }));
  for (const c of [...channels].sort(byCreated)) add('alert_channel', c, () => ({ type: c.type, config: c.config }));
  for (const m of monitors) add('monitor', m, () => monitorView(m, nameOf));
  for (const p of [...policies].sort(byCreated)) add('alert_policy', p, () => policyView(p, nameOf, nameOf));
  handlers.forEach((h, i) => {
    for (const r of [...listed[i]!].sort(byCreated)) if (r.name !== null) add(h.kind, { ...r, name: r.name }, () => r.view(nameOf));
  });
  return state;
}

function byCreated(a: { created_at: string }, b: { created_at: string }): number {
  return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0;
}
