import type { SqlExecutor } from '../contracts.js';
import { FLAP_LOOKBACK_S } from './noise-engine.js';
import { flapEpisode } from './noise-flap.js';
import { flapFactsOf } from './noise-rules.db.js';

/**
 * Which of the monitors `monitor_ids` are flapping at `now`, and since when (docs/api/monitors.md
 * "Flapping", docs/api/alerting.md "Noise rules"): a monitor is flapping while one of the flap
 * rules that apply to it (the first, oldest first, that sees a flap) counts `flap_changes` state
 * changes within `flap_window_s` and it has not been stable for `flap_window_s` since: the rule
 * the alert engine applies (noise-flap.ts flapEpisode), read from the same state changes, so the
 * monitor's mark and its events' marks agree. Two queries for any number of monitors.
 * @returns monitor id → the flap's first counted change, for the flapping ones only
 */
export async function flappingSince(ex: SqlExecutor, monitor_ids: string[], now: Date = new Date()): Promise<Map<string, Date>> {
  const out = new Map<string, Date>();
  for (const f of await flapFactsOf(ex, monitor_ids, new Date(now.getTime() - FLAP_LOOKBACK_S * 1000))) {
    for (const r of f.rules) {
      const flap = flapEpisode(f.changes, r.flap_changes, r.flap_window_s, now);
      if (!flap) continue;
      out.set(f.monitor_id, flap.since);
      break;
    }
  }
  return out;
}
