import { ApiCallError, type ApiClient } from './client.js';
import { KIND_SECTION, type AsCodeKind } from './format.js';
import { KIND_HANDLERS } from './kinds/index.js';
import type { AsCodeIssue } from './load.js';
import type { Plan, ResourceChange } from './plan.js';
import { KIND_PATH, type AccountState } from './state.js';

/** What became of one change: `done`, or `failed` with the API's error code and message. */
export interface ChangeResult {
  action: ResourceChange['action'];
  kind: AsCodeKind;
  name: string;
  status: 'done' | 'failed';
  id: string | null;
  error: { code: string; message: string } | null;
}

type Ids = Record<AsCodeKind, Map<string, string>>;

function idsOf(state: AccountState): Ids {
  const ids = {} as Ids;
  for (const kind of Object.keys(state) as AsCodeKind[]) ids[kind] = new Map([...state[kind].values()].map((e) => [e.name, e.id]));
  return ids;
}

function need(ids: Ids, kind: AsCodeKind, name: string): string {
  const id = ids[kind].get(name);
  if (!id) throw new ApiCallError(0, 'DEPENDENCY_FAILED', `${kind} "${name}" does not exist (its own change failed)`);
  return id;
}

/** The request body for a create (with `name`) or an update (without), ids looked up by name (the first four kinds; the others are KIND_HANDLERS'). */
function bodyOf(c: ResourceChange, ids: Ids, create: boolean): Record<string, unknown> {
  const v = c.desired!.view;
  const name = create ? { name: c.name } : {};
  switch (c.kind) {
    case 'monitor_group': return { ...name, sort_order: v.sort_order };
    case 'alert_channel': {
      const config = { ...c.desired!.config };
      // PATCH merges configs: a field the file no longer gives is removed with null.
      if (!create) for (const k of Object.keys((c.existing!.view.config ?? {}) as object)) if (!(k in config)) config[k] = null;
      return { ...name, ...(create ? { type: v.type } : {}), config };
    }
    case 'monitor': {
      const { group, type, ...rest } = v;
      return { ...name, ...(create ? { type } : {}), ...rest, group_id: group ? need(ids, 'monitor_group', group as string) : null };
    }
    case 'alert_policy': {
      const { monitor, channels, escalation_levels, ...rest } = v as { monitor: string; channels: string[]; escalation_levels: Array<{ level_index: number; after_seconds: number; channels: string[] }> };
      return {
        ...name, ...rest, monitor_id: need(ids, 'monitor', monitor), channel_ids: channels.map((n) => need(ids, 'alert_channel', n)),
        escalation_levels: escalation_levels.map((l) => ({ level_index: l.level_index, after_seconds: l.after_seconds, channel_ids: l.channels.map((n) => need(ids, 'alert_channel', n)) })),
      };
    }
    default: throw new Error(`no request body for ${c.kind}: it is written by its kind handler`);
  }
}

/**
 * Ask the API to check the monitors to be created or changed without writing anything (the
 * import's dry run: target and address policy, config, interval, quota), so a monitor the API
 * would refuse stops the apply before any change. Changed monitors are checked under a
 * throw-away name (their own is taken) and are not counted against the quota.
 * @returns one issue per refused monitor
 */
export async function preflightMonitors(api: ApiClient, plan: Plan): Promise<AsCodeIssue[]> {
  const monitors = plan.changes.filter((c) => c.kind === 'monitor' && c.action !== 'delete' && !c.mark_only);
  if (!monitors.length) return [];
  const items = monitors.map((c, i) => {
    const { group, ...rest } = c.desired!.view;
    return { ...rest, group: group ?? '', name: c.action === 'create' ? c.name : `as-code preflight ${i} ${Date.now()}` };
  });
  const res = await api.post<{ items: Array<{ index: number; status: string; error: { code: string; message: string } | null }> }>('/v1/monitors/import', { dry_run: true, monitors: items });
  const issues: AsCodeIssue[] = [];
  for (const r of res.items) {
    const c = monitors[r.index]!;
    if (r.status !== 'failed' || !r.error) continue;
    if (c.action === 'update' && r.error.code === 'MONITOR_LIMIT_EXCEEDED') continue;
    issues.push({ source_file: c.source_file, kind: 'monitor', name: c.name, path: `${KIND_SECTION.monitor}.${c.name}`, message: `${r.error.code}: ${r.error.message}` });
  }
  return issues;
}

/**
 * Carry out `plan` through the API in its order (AS_CODE_KINDS: groups, channels, webhook
 * endpoints, monitors, policies, silences, windows, status pages, dashboards; deletes last, in
 * reverse), marking each created or updated resource with its file and unmarking
 * deleted ones. A failed change is reported and the rest go on; a change that needs a resource
 * whose creation failed fails with DEPENDENCY_FAILED.
 */
export async function applyPlan(api: ApiClient, plan: Plan, state: AccountState): Promise<ChangeResult[]> {
  const ids = idsOf(state);
  const results: ChangeResult[] = [];
  for (const c of plan.changes) {
    const base = { action: c.action, kind: c.kind, name: c.name };
    try {
      let id = c.existing?.id ?? null;
      if (c.action === 'delete') {
        await api.delete(`${KIND_PATH[c.kind]}/${id}`);
        await api.delete(`/v1/as-code/marks/${c.kind}/${id}`);
        ids[c.kind].delete(c.name);
      } else {
        const handler = KIND_HANDLERS[c.kind];
        const write = { api, need: (kind: AsCodeKind, name: string) => need(ids, kind, name) };
        if (c.action === 'create') id = handler ? await handler.create(c, write) : (await api.post<{ id: string }>(KIND_PATH[c.kind], bodyOf(c, ids, true))).id;
        else if (!c.mark_only) await (handler ? handler.update(c, write) : api.patch(`${KIND_PATH[c.kind]}/${id}`, bodyOf(c, ids, false)));
        ids[c.kind].set(c.name, id!);
        await api.put(`/v1/as-code/marks/${c.kind}/${id}`, { key: c.name, source_file: c.source_file });
      }
      results.push({ ...base, status: 'done', id, error: null });
    } catch (err) {
      if (!(err instanceof ApiCallError)) throw err;
      results.push({ ...base, status: 'failed', id: c.existing?.id ?? null, error: { code: err.code, message: err.message } });
    }
  }
  return results;
}
