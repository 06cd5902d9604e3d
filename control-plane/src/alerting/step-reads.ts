import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import { groupsOfUser } from './alert-batches.db.js';
import { channelsByIds, monitorsByIds, policiesByIds, type EngineMonitor, type EnginePolicy } from './alert-events.db.js';
import { liveSilences } from './alert-silences.db.js';
import { suppressionAt } from './escalation.js';
import type { GroupRef } from './grouping.js';
import { liveWindows } from './maintenance-windows.db.js';
import { onCallContact, type OnCallContact } from '../oncall/contact.js';
import type { RulesOf } from './noise-engine.js';
import { rulesOfMonitor, rulesOfMonitors } from './noise-rules.db.js';

/** A channel as the engine queues for it. */
export interface StepChannel { id: string; type: string; user_id: string }

/**
 * What the engine's steps read, each read once per transaction: the batch's policies and
 * monitors in one query each, an owner's silences, maintenance windows and alert groups once,
 * channels once each. A storm of steps (one owner, one channel) then costs its writes only.
 */
export interface StepReads {
  policy(id: string): Promise<EnginePolicy | null>;
  monitor(id: string): Promise<EngineMonitor | null>;
  /** What holds a page of `monitor` under `policy` back at `at` (escalation.ts suppressionAt). */
  suppression(monitor: EngineMonitor, policy: EnginePolicy, at: Date): Promise<'maintenance' | 'silence' | 'mute' | null>;
  /** The alert groups of a monitor's owner: its team's, or its creator's personal ones. */
  groups(owner: { user_id: string; team_id?: string | null }): Promise<GroupRef[]>;
  channels(ids: string[]): Promise<Map<string, StepChannel>>;
  /** Who is on call on schedule `id` at `at`, with their contact (oncall/contact.ts; null: nobody to page). */
  onCall(id: string, at: Date): Promise<OnCallContact | null>;
  /** The noise rules of a monitor (noise-rules.db.ts rulesOfMonitor): the batch's monitors' read in one query. */
  noiseRules: RulesOf;
}

/** Reads for `tx`, with the policies and monitors of `events` fetched now. */
export async function stepReads(tx: SqlExecutor, events: Array<{ policy_id: string; monitor_id: string }> = []): Promise<StepReads> {
  const policies = new Map<string, EnginePolicy | null>();
  const monitors = new Map<string, EngineMonitor | null>();
  const channels = new Map<string, StepChannel | null>();
  const perUser = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, load: () => Promise<T>): Promise<T> => {
    if (!perUser.has(key)) perUser.set(key, load());
    return perUser.get(key) as Promise<T>;
  };
  const [ps, ms] = [await policiesByIds(tx, [...new Set(events.map((e) => e.policy_id))]), await monitorsByIds(tx, [...new Set(events.map((e) => e.monitor_id))])];
  for (const p of ps) policies.set(p.id, p);
  for (const m of ms) monitors.set(m.id, m);
  const preloaded = new Set(monitors.keys());
  let rules: Promise<Map<string, NonNullable<Awaited<ReturnType<RulesOf>>>>> | null = null;
  return {
    async noiseRules(id) {
      // The batch's monitors' rules are read at the first step that asks, others one at a time.
      if (!preloaded.has(id)) return rulesOfMonitor(tx, id);
      rules ??= rulesOfMonitors(tx, [...preloaded]);
      return (await rules).get(id) ?? null;
    },
    async policy(id) {
      if (!policies.has(id)) policies.set(id, (await policiesByIds(tx, [id]))[0] ?? null);
      return policies.get(id)!;
    },
    async monitor(id) {
      if (!monitors.has(id)) monitors.set(id, (await monitorsByIds(tx, [id]))[0] ?? null);
      return monitors.get(id)!;
    },
    async suppression(monitor, policy, at) {
      // A team's monitor follows its team's silences and windows, a personal one its creator's.
      const key = `${monitor.team_id ?? monitor.user_id}@${at.getTime()}`;
      const silences = await once(`s:${key}`, () => liveSilences(tx as Sql, monitor, at));
      const windows = await once(`w:${key}`, () => liveWindows(tx as Sql, monitor, at));
      return suppressionAt({ monitor, policy, silences, windows, owner_tz: monitor.owner_tz || 'UTC' }, at);
    },
    groups: (owner) => once(`g:${owner.team_id ?? owner.user_id}`, () => groupsOfUser(tx, owner)),
    onCall: (id, at) => once(`o:${id}@${at.getTime()}`, () => onCallContact(tx, id, at)),
    async channels(ids) {
      const missing = ids.filter((id) => !channels.has(id));
      if (missing.length > 0) {
        const found = await channelsByIds(tx, missing);
        for (const id of missing) channels.set(id, found.find((c) => c.id === id) ?? null);
      }
      return new Map(ids.flatMap((id) => (channels.get(id) ? [[id, channels.get(id)!] as [string, StepChannel]] : [])));
    },
  };
}
