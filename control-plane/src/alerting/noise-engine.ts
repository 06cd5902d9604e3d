import type { SqlExecutor } from '../contracts.js';
import type { AlertEventRow } from './alert-events.db.js';
import { flapEpisode, targetKey } from './noise-flap.js';
import {
  holdResolve, lockTarget, markEventNoise, monitorPagedSince, pagedOpenEventsOfOwner, rulesOfMonitor, stateChangesSince,
} from './noise-rules.db.js';

/*
 * The noise rules in the alert engine (docs/api/alerting.md "Noise rules"), asked at every step
 * the engine runs, before it pages: a `min_duration` rule defers the step until the outage is
 * old enough; a `flap` rule lets one page out per flap; a `duplicate` rule holds back a page
 * while another monitor of the owner with the same target has an open event that paged.
 */

/** How far back a flap is traced (s): a flap going on longer than this pages again once a day. */
export const FLAP_LOOKBACK_S = 86_400;

/**
 * What the noise rules decide for one step: `defer_until` (run the step again then, page nobody
 * now), `suppressed` (record the page as held back, with that reason), and `metadata` for the
 * event (`flapping`, `flapping_since`, `duplicate_of`, `noise_rule_id`); or nothing to do.
 */
export interface NoiseDecision {
  defer_until?: Date;
  suppressed?: 'flapping' | 'duplicate';
  metadata?: Record<string, unknown>;
}

/** What one transaction of steps has paged so far (its writes are not in the tables until it ends). */
interface TxPages { monitors: Set<string>; targets: Map<string, string> }
const pagesOf = new WeakMap<object, TxPages>();
function txPages(w: object): TxPages {
  let p = pagesOf.get(w);
  if (!p) pagesOf.set(w, p = { monitors: new Set(), targets: new Map() });
  return p;
}

/** The noise rules of a monitor as noiseDecision reads them (noise-rules.db.ts rulesOfMonitor; null: the monitor is gone). */
export type RulesOf = (monitor_id: string) => Promise<Awaited<ReturnType<typeof rulesOfMonitor>>>;

/**
 * The decision of the noise rules for the step of `event` at `level`, at `now`. `w` stands for the
 * transaction (its StepWrites): pages decided earlier in it count. Records the decision on the
 * event (metadata, and `suppressed` when its first page is held back). `rulesOf` reads the
 * monitor's rules (default: one query; the engine passes those it read for its whole batch).
 */
export async function noiseDecision(tx: SqlExecutor, w: object, event: AlertEventRow, level: number, now: Date,
  rulesOf: RulesOf = (id) => rulesOfMonitor(tx, id)): Promise<NoiseDecision> {
  const found = await rulesOf(event.monitor_id);
  if (!found || found.rules.length === 0) return {};
  const { monitor, rules } = found;
  const pages = txPages(w);

  let defer_until: Date | undefined;
  for (const r of rules) {
    if (r.kind !== 'min_duration' || level !== 0) continue;
    const until = new Date(event.started_at.getTime() + r.min_down_s! * 1000);
    if (until > now && (!defer_until || until > defer_until)) defer_until = until;
  }
  if (defer_until) return { defer_until };

  const decision: NoiseDecision = {};
  const flaps = rules.filter((r) => r.kind === 'flap');
  if (flaps.length > 0) {
    const changes = await stateChangesSince(tx, monitor.id, new Date(now.getTime() - FLAP_LOOKBACK_S * 1000));
    for (const r of flaps) {
      const flap = flapEpisode(changes, r.flap_changes!, r.flap_window_s!, now);
      if (!flap) continue;
      decision.metadata = { flapping: true, flapping_since: flap.since.toISOString(), noise_rule_id: r.id };
      if (pages.monitors.has(monitor.id) || await monitorPagedSince(tx, monitor.id, flap.since)) decision.suppressed = 'flapping';
      break;
    }
  }

  if (!decision.suppressed) {
    for (const r of rules) {
      if (r.kind !== 'duplicate') continue;
      const key = targetKey(monitor.target, r.duplicate_match!);
      if (key === null) continue;
      const owner_key = `${monitor.team_id ?? `u:${monitor.user_id}`}|${key}`;
      await lockTarget(tx, owner_key);
      const here = pages.targets.get(owner_key);
      const first = here && here !== event.id ? here
        : (await pagedOpenEventsOfOwner(tx, monitor)).find((o) => targetKey(o.target, r.duplicate_match!) === key)?.event_id;
      if (!first) continue;
      decision.suppressed = 'duplicate';
      decision.metadata = { ...decision.metadata, duplicate_of: first, noise_rule_id: r.id };
      break;
    }
  }

  if (decision.metadata) await markEventNoise(tx, event.id, { suppressed: level === 0 ? decision.suppressed : undefined, metadata: decision.metadata });
  if (!decision.suppressed) {
    pages.monitors.add(monitor.id);
    for (const r of rules) {
      const key = r.kind === 'duplicate' ? targetKey(monitor.target, r.duplicate_match!) : null;
      const owner_key = key === null ? null : `${monitor.team_id ?? `u:${monitor.user_id}`}|${key}`;
      if (owner_key && !pages.targets.has(owner_key)) pages.targets.set(owner_key, event.id);
    }
  }
  return decision;
}

/**
 * Whether a flap rule holds back the resolution of `event` at `now` (docs/api/alerting.md "Noise
 * rules"): an event that paged, whose monitor is up again but flapping (this recovery counted), is
 * not resolved until the monitor has been stable for the rule's `flap_window_s` after its last
 * change; so a flap tells its channels once that it began and once that it ended. The hold is
 * recorded on the event (resolve_held_until, and the flap's marks in its metadata), and the engine
 * looks again then: a change in between holds it longer. An event that never paged resolves at
 * once (there is no one to tell).
 * @returns true when the resolution is held (the caller leaves the event open)
 */
export async function holdFlappingResolve(tx: SqlExecutor, event: AlertEventRow, now: Date): Promise<boolean> {
  if (event.notified_at === null) return false;
  const found = await rulesOfMonitor(tx, event.monitor_id);
  const flaps = found?.rules.filter((r) => r.kind === 'flap') ?? [];
  if (flaps.length === 0) return false;
  const changes = await stateChangesSince(tx, event.monitor_id, new Date(now.getTime() - FLAP_LOOKBACK_S * 1000));
  for (const r of flaps) {
    const flap = flapEpisode(changes, r.flap_changes!, r.flap_window_s!, now);
    if (!flap) continue;
    const until = new Date(flap.last_change_at.getTime() + r.flap_window_s! * 1000);
    await holdResolve(tx, event.id, until, { flapping: true, flapping_since: flap.since.toISOString(), noise_rule_id: r.id, resolve_held_until: until.toISOString() });
    return true;
  }
  return false;
}
