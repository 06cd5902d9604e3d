import {
  exportGroupSchema, exportMonitorSchema, fieldIssues, newId,
  type ExportMonitor, type ImportItemResult, type MonitorImport, type MonitorImportResult,
} from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import { accountQuotas, minIntervalError, monitorsCap, quotaExceeded, type QuotaDeps } from '../billing/quotas.js';
import { countUsed } from '../billing/quotas.db.js';
import { ApiError } from '../errors.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { Owner } from '../teams/authorize.js';
import { sealedConfig, secretsFailure } from './header-secrets.js';
import { heartbeatUrl, newHeartbeatToken } from './heartbeat.js';
import { groupIdsByName, insertGroup } from './monitor-groups.db.js';
import { countMonitors, insertMonitor, monitorNames, type MonitorFields } from './monitors.db.js';
import type { PlanLimits } from './plans.js';
import type { MonitorInput } from './spec.js';

/**
 * What an import needs: the database, the monitor check (spec.ts), the deployment's plan, the
 * account plans' quotas (billing/quotas.ts), the check-in URL base and the box header secrets are
 * sealed with.
 */
export interface ImportDeps {
  sql: Sql;
  quotas: QuotaDeps;
  box: SecretBox;
  check: (owner: Owner, input: MonitorInput) => Promise<MonitorFields>;
  plan: PlanLimits;
  base_url: string;
}

/** How many items are checked at once (each may wait on DNS for the address policy). */
const CHECK_CONCURRENCY = 8;

type Pending = { index: number; id: string; item: ExportMonitor; fields?: MonitorFields; error?: ApiError };

function errorOf(err: ApiError): NonNullable<ImportItemResult['error']> {
  return { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) };
}

async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => { while (next < items.length) await fn(items[next++]!); };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Import ExportMonitor items (docs/api/monitors.md "Export and import") for `owner` (a team, or
 * the user alone: teams/authorize.ts ownerForNew decided it).
 * Each item is checked on its own like a create request (schema, name unique for the owner and
 * in the batch, config, target and address policy, interval, node_count, the plan's quota
 * counting the items before it; the importing account plan's `min_interval_s` (FEATURE_LOCKED)
 * and, for personal monitors, its `monitors` quota (MONITOR_LIMIT_EXCEEDED), as a create is:
 * docs/api/billing.md "Plans and quotas"); a bad item fails alone with its error. Groups are matched by
 * name; a missing one (listed in `groups[]` or named by a valid item) is created. With
 * `dry_run` nothing is written and valid items report `valid`.
 * @throws ApiError VALIDATION_FAILED when an entry of `groups[]` is malformed (nothing is written)
 */
export async function importMonitors(deps: ImportDeps, owner: Owner, body: MonitorImport): Promise<MonitorImportResult> {
  const groups = body.groups.map((g, i) => {
    const parsed = exportGroupSchema.safeParse(g);
    if (!parsed.success) {
      const fields = fieldIssues(parsed.error).map((f) => ({ path: `groups[${i}]${f.path ? `.${f.path}` : ''}`, message: f.message }));
      throw new ApiError('VALIDATION_FAILED', `${fields[0]!.path}: ${fields[0]!.message}`, { fields, in: 'body' });
    }
    return parsed.data;
  });
  const existingGroups = await groupIdsByName(deps.sql, owner);
  const names = await monitorNames(deps.sql, owner);
  const pending: Pending[] = body.monitors.map((raw, index) => {
    const parsed = exportMonitorSchema.safeParse(raw);
    if (!parsed.success) {
      const fields = fieldIssues(parsed.error);
      return { index, id: newId('monitor'), item: raw as ExportMonitor, error: new ApiError('VALIDATION_FAILED', `${fields[0]!.path}: ${fields[0]!.message}`, { fields }) };
    }
    const item = parsed.data;
    if (names.has(item.name)) return { index, id: newId('monitor'), item, error: new ApiError('MONITOR_NAME_TAKEN', `you already have a monitor named "${item.name}"`) };
    return { index, id: newId('monitor'), item };
  });

  // The importing account's plan: its shortest interval always; its monitors quota for personal
  // monitors only (a team's follow the deployment's limits: docs/api/billing.md "Teams").
  const account = await accountQuotas(deps.quotas, owner.user_id);
  const counted = owner.team_id === null;
  // The insert counts again under a lock: a concurrent create or import cannot pass either quota.
  const cap = monitorsCap(account, owner, deps.plan.monitors_max,
    () => new ApiError('MONITOR_LIMIT_EXCEEDED', `the ${deps.plan.plan} plan allows ${deps.plan.monitors_max} monitors`, { limit: 'monitors', max: deps.plan.monitors_max }));
  await eachLimited(pending.filter((p) => !p.error), CHECK_CONCURRENCY, async (p) => {
    const { item } = p;
    try {
      // The group may not exist yet: it is checked by name here and attached after creation.
      const fields = await deps.check(owner, {
        name: item.name, type: item.type, target: item.target, config: item.config, interval_s: item.interval_s,
        node_count: item.node_count, group_id: existingGroups.get(item.group) ?? null, tags: item.tags,
      });
      const locked = item.type !== 'heartbeat' ? minIntervalError(account, fields.interval_s) : null;
      if (locked) throw locked;
      // Header secrets sealed for the monitor to be; an exported mask has no secret to keep here.
      p.fields = { ...fields, config: secretsFailure(() => sealedConfig(deps.box, p.id, item.type, fields.config, null)) };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      p.error = err;
    }
  });

  // In request order: a name is taken by the first valid item that has it, then the quota counts.
  let count = await countMonitors(deps.sql, owner);
  let personal = counted ? await countUsed(deps.sql, owner.user_id, 'monitors') : 0;
  const claimed = new Set<string>();
  for (const p of pending) {
    if (p.error) continue;
    if (claimed.has(p.item.name)) p.error = new ApiError('MONITOR_NAME_TAKEN', `"${p.item.name}" is already used by an earlier monitor of this import`);
    else if (count >= deps.plan.monitors_max) p.error = new ApiError('MONITOR_LIMIT_EXCEEDED', `the ${deps.plan.plan} plan allows ${deps.plan.monitors_max} monitors`, { limit: 'monitors', max: deps.plan.monitors_max });
    else if (counted && personal >= account.quotas.monitors) p.error = quotaExceeded('monitors', account.plan, account.quotas.monitors, personal);
    else {
      claimed.add(p.item.name);
      count++;
      personal++;
    }
  }

  const wanted = [...groups.map((g) => g.name), ...pending.filter((p) => !p.error && p.item.group).map((p) => p.item.group)];
  const groups_created = [...new Set(wanted)].filter((name) => !existingGroups.has(name));
  if (!body.dry_run) {
    for (const name of groups_created) {
      const sort_order = groups.find((g) => g.name === name)?.sort_order ?? 0;
      const row = await insertGroup(deps.sql, { id: newId('monitor_group'), ...owner, name, sort_order });
      if (row) existingGroups.set(name, row.id);
    }
    // A group created meanwhile by another request is matched too.
    for (const [name, id] of await groupIdsByName(deps.sql, owner)) existingGroups.set(name, id);
  }

  const items: ImportItemResult[] = [];
  for (const p of pending) {
    const name = typeof p.item?.name === 'string' ? p.item.name : null;
    if (p.error || !p.fields) {
      items.push({ index: p.index, name, status: 'failed', monitor_id: null, error: errorOf(p.error!) });
      continue;
    }
    if (body.dry_run) {
      items.push({ index: p.index, name, status: 'valid', monitor_id: null, error: null });
      continue;
    }
    const hb = p.item.type === 'heartbeat' ? newHeartbeatToken() : null;
    const fields = { ...p.fields, group_id: p.item.group ? existingGroups.get(p.item.group) ?? null : null };
    const out = await insertMonitor(deps.sql, { ...fields, id: p.id, ...owner, type: p.item.type, heartbeat: hb }, cap.max);
    if ('refused' in out) {
      const error = out.refused === 'limit' ? cap.refusal() : new ApiError('MONITOR_NAME_TAKEN', `you already have a monitor named "${p.item.name}"`);
      items.push({ index: p.index, name, status: 'failed', monitor_id: null, error: errorOf(error) });
      continue;
    }
    items.push({
      index: p.index, name, status: 'created', monitor_id: out.row.id, error: null,
      ...(hb ? { heartbeat: { token: hb.token, url: heartbeatUrl(deps.base_url, hb.token) } } : {}),
    });
  }
  return {
    dry_run: body.dry_run, created: items.filter((i) => i.status === 'created').length,
    failed: items.filter((i) => i.status === 'failed').length, groups_created, items,
  };
}
