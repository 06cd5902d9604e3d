import {
  ALERT_CHANNEL_CONFIG_SCHEMAS, ALERT_CHANNEL_SECRET_FIELDS, alertPolicyCreateSchema, fieldIssues, maskChannelConfig, newId,
  parseMonitorConfig, type MonitorType,
} from '@vantage/shared-protocol';
import type { Env } from './env-ref.js';
import { envRefSchema, KIND_SECTION, type AsCodeKind, type ChannelSpec, type GroupSpec, type MonitorSpec, type PolicySpec } from './format.js';
import { KIND_HANDLERS } from './kinds/index.js';
import type { AsCodeIssue, Declared } from './load.js';
import type { AccountState } from './state.js';

/**
 * A declared resource made ready to compare and send: `view` is what plan compares with the
 * existing resource's view (state.ts; secrets masked the way the API masks them), `compare` the
 * view's keys that count (a field the file leaves to the API's default is not compared),
 * `config` the channel config with env references replaced by their values and `secrets` the
 * other kinds' resolved secrets (a status page's password): sent, never shown.
 */
export interface Desired {
  kind: AsCodeKind;
  name: string;
  source_file: string;
  view: Record<string, unknown>;
  compare: string[];
  config?: Record<string, unknown>;
  secrets?: Record<string, unknown>;
}

// The API's policy defaults (the create request's), read from its schema once.
const POLICY_DEFAULTS = (() => {
  const { name: _n, monitor_id: _m, channel_ids: _c, escalation_levels: _e, incident_status_page_ids: _i, team_id: _t, ...rest } =
    alertPolicyCreateSchema.parse({ name: 'x', monitor_id: newId('monitor') });
  return rest;
})();

export type { Env } from './env-ref.js';

function resolveRefs(config: Record<string, unknown>, env: Env, issue: (path: string, message: string) => void): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    const ref = envRefSchema.safeParse(v);
    if (!ref.success) { out[k] = v; continue; }
    const value = env[ref.data.env];
    if (value === undefined || value === '') issue(`config.${k}`, `environment variable ${ref.data.env} is not set`);
    else out[k] = value;
  }
  return out;
}

/**
 * Check every declared resource against its kind's rules and the references it makes (a group,
 * monitor or channel must be declared or exist), resolving channel secrets from `env`.
 * @returns the desired resources and the issues (a resource with an issue is left out)
 */
export function resolveDesired(declared: Declared[], state: AccountState, env: Env): { desired: Desired[]; issues: AsCodeIssue[] } {
  const issues: AsCodeIssue[] = [];
  const desired: Desired[] = [];
  const known = (kind: AsCodeKind, name: string) => state[kind].has(name) || declared.some((d) => d.kind === kind && d.name === name);
  for (const d of declared) {
    let bad = false;
    const issue = (path: string, message: string) => {
      bad = true;
      issues.push({ source_file: d.source_file, kind: d.kind, name: d.name, path: `${KIND_SECTION[d.kind]}.${d.name}${path ? `.${path}` : ''}`, message });
    };
    const base = { kind: d.kind, name: d.name, source_file: d.source_file };
    const handler = KIND_HANDLERS[d.kind];
    if (handler) {
      const resolved = handler.resolve(d.name, d.spec, { known, existing: state[d.kind].get(d.name) ?? null, env, issue });
      if (!bad) desired.push({ ...base, ...resolved });
      continue;
    }
    if (d.kind === 'monitor_group') {
      const s = d.spec as GroupSpec;
      desired.push({ ...base, view: { sort_order: s.sort_order }, compare: ['sort_order'] });
      continue;
    }
    if (d.kind === 'monitor') {
      const s = d.spec as MonitorSpec;
      const parsed = parseMonitorConfig(s.type as MonitorType, s.config);
      if (!parsed.ok) for (const f of parsed.issues) issue(f.path, f.message);
      if (s.group && !known('monitor_group', s.group)) issue('group', `no monitor group named "${s.group}" in these files or your account`);
      if (s.type !== 'heartbeat' && !s.target) issue('target', 'required for this type');
      const existing = state.monitor.get(d.name);
      if (existing && existing.view.type !== s.type) issue('type', `the existing monitor is of type ${String(existing.view.type)}; a type cannot change (give it another name)`);
      if (bad || !parsed.ok) continue;
      const view: Record<string, unknown> = { type: s.type, tags: s.tags, group: s.group, config: parsed.config };
      if (s.type !== 'heartbeat' && s.target !== undefined) view.target = s.target;
      if (s.interval_s !== undefined && s.type !== 'heartbeat') view.interval_s = s.interval_s;
      if (s.node_count !== undefined && s.node_count !== 0) view.node_count = s.node_count;
      desired.push({ ...base, view, compare: Object.keys(view) });
      continue;
    }
    if (d.kind === 'alert_channel') {
      const s = d.spec as ChannelSpec;
      for (const field of ALERT_CHANNEL_SECRET_FIELDS[s.type]) {
        const v = s.config[field];
        if (v !== undefined && !envRefSchema.safeParse(v).success && !(field === 'headers' && isRefMap(v))) issue(`config.${field}`, 'a secret must be given as { env: NAME }, never inline');
      }
      const headers = s.config.headers;
      const resolved = resolveRefs(s.config, env, issue);
      if (headers && isRefMap(headers)) resolved.headers = resolveRefs(headers as Record<string, unknown>, env, (p, m) => issue(`config.headers.${p.replace(/^config\./, '')}`, m));
      const checked = ALERT_CHANNEL_CONFIG_SCHEMAS[s.type].safeParse(resolved);
      if (!checked.success && !bad) for (const f of fieldIssues(checked.error)) issue(`config${f.path ? `.${f.path}` : ''}`, f.message);
      const existing = state.alert_channel.get(d.name);
      if (existing && existing.view.type !== s.type) issue('type', `the existing channel is of type ${String(existing.view.type)}; a type cannot change (give it another name)`);
      if (bad || !checked.success) continue;
      const config = checked.data as Record<string, unknown>;
      desired.push({ ...base, view: { type: s.type, config: maskChannelConfig(s.type, config) }, compare: ['type', 'config'], config });
      continue;
    }
    const s = d.spec as PolicySpec;
    if (!known('monitor', s.monitor)) issue('monitor', `no monitor named "${s.monitor}" in these files or your account`);
    const channelNames = [...s.channels, ...s.escalation_levels.flatMap((l) => l.channels)];
    for (const c of new Set(channelNames)) if (!known('alert_channel', c)) issue('channels', `no alert channel named "${c}" in these files or your account`);
    // The API's own rules (mute window, escalation order) on the request this resource becomes.
    const { monitor: _m, channels: _c, escalation_levels, ...fields } = s;
    const check = alertPolicyCreateSchema.safeParse({
      ...fields, name: d.name, monitor_id: newId('monitor'),
      escalation_levels: escalation_levels.map((l) => ({ level_index: l.level_index, after_seconds: l.after_seconds, channel_ids: l.channels })),
    });
    if (!check.success) for (const f of fieldIssues(check.error)) issue(f.path, f.message);
    if (bad) continue;
    const view = { ...POLICY_DEFAULTS, ...stripUndefined(fields), monitor: s.monitor, channels: s.channels, escalation_levels };
    desired.push({ ...base, view, compare: Object.keys(view) });
  }
  return { desired, issues };
}

function isRefMap(v: unknown): boolean {
  return !!v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => envRefSchema.safeParse(x).success);
}

function stripUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
