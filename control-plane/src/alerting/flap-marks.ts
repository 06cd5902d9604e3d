import type { SqlExecutor } from '../contracts.js';
import { FLAP_LOOKBACK_S } from './noise-engine.js';
import { flapEpisode } from './noise-flap.js';
import { flapFactsOf, type FlapFacts } from './noise-rules.db.js';

/**
 * Which of the monitors `monitor_ids` are flapping at `now`, and since when (docs/api/monitors.md
 * "Flapping", docs/api/alerting.md "Noise rules"): a monitor is flapping while one of the flap
 * rules that apply to it (the first, oldest first, that sees a flap) counts `flap_changes` state
 * changes within `flap_window_s` and it has not been stable for `flap_window_s` since: the rule
 * the alert engine applies (noise-flap.ts flapEpisode), read from the same state changes, so the
 * monitor's mark and its events' marks agree. One query for any number of monitors.
 * @returns monitor id → the flap's first counted change, for the flapping ones only
 */
export async function flappingSince(ex: SqlExecutor, monitor_ids: string[], now: Date = new Date()): Promise<Map<string, Date>> {
  const out = new Map<string, Date>();
  for (const f of await flapFactsOf(ex, monitor_ids, flapFactsSince(now))) {
    const since = flapSinceOf(f, now);
    if (since) out.set(f.monitor_id, since);
  }
  return out;
}

/** From when on state changes count for a flap mark at `now` (the alert engine's lookback, noise-engine.ts FLAP_LOOKBACK_S). */
export function flapFactsSince(now: Date): Date {
  return new Date(now.getTime() - FLAP_LOOKBACK_S * 1000);
}

/**
 * Since when the monitor of `f` (its flap rules and state changes from {@link flapFactsSince}
 * on, null: no flap rule applies) is flapping at `now`, by the rule {@link flappingSince} states;
 * undefined when it is not.
 */
export function flapSinceOf(f: FlapFacts | null, now: Date): Date | undefined {
  for (const r of f?.rules ?? []) {
    const flap = flapEpisode(f!.changes, r.flap_changes, r.flap_window_s, now);
    if (flap) return flap.since;
  }
  return undefined;
}
