import { roundIndexAt, roundPhaseMs, roundStartMs } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import { sweptMonitors, writeSilentRounds, type SilentRound, type SweptMonitor } from './decide-silent.db.js';
import { roundDeadlineMs } from './traits.js';

/*
 * Rounds nobody reported (docs/api/monitors.md "No data"). Rounds are written by ingest when a
 * node's result arrives; a monitor whose nodes are all gone (removed, offline, or none placed)
 * would get no rounds at all, keep its last state for ever and never alert. This sweep writes an
 * empty round for each round whose deadline passed with no report, so the verdict job judges it
 * `no_data` (two in a row: the monitor goes to no_data) and uptime counts its time apart.
 */

/** How far back the first sweep (or one after a long stop) looks for rounds nobody reported, ms. */
export const SILENT_LOOKBACK_MS = 3_600_000;
/** Empty rounds one sweep writes per monitor at most (the newest ones). */
const SILENT_ROUNDS_MAX = 400;

/**
 * The rounds of `m` whose deadline falls in (`after_ms`, `m.now`] (epoch ms) and that started at
 * least one interval into its open schedule span (the round running as a monitor is created,
 * resumed or given a new interval is left out: its nodes hear of it during that round and start
 * with the next): starts at its phase + k * interval_s (shared-protocol rounds.ts), deadlines
 * `roundDeadlineMs` after them (`grace_ms`: checks_round_grace_ms). Newest SILENT_ROUNDS_MAX at most.
 */
export function dueRounds(m: SweptMonitor, after_ms: number, grace_ms: number): SilentRound[] {
  const now_ms = m.now.getTime();
  const deadline_ms = roundDeadlineMs(m.type, m.config, m.interval_s, grace_ms);
  const phase = roundPhaseMs(m.id, m.interval_s);
  const first = Math.max(roundIndexAt(phase, m.interval_s, Math.max(after_ms - deadline_ms, m.span_from.getTime() + m.interval_s * 1000 - 1)) + 1,
    roundIndexAt(phase, m.interval_s, now_ms - deadline_ms) - SILENT_ROUNDS_MAX + 1);
  const out: SilentRound[] = [];
  for (let k = first; ; k++) {
    const at = roundStartMs(phase, m.interval_s, k);
    if (at + deadline_ms > now_ms) break;
    out.push({ monitor_id: m.id, scheduled_at: new Date(at), deadline_at: new Date(at + deadline_ms), interval_s: m.interval_s, expected: m.placed });
  }
  return out;
}

/**
 * One sweep: for every monitor with rounds now, write an empty round for each of its rounds
 * whose deadline passed since `after` (null: SILENT_LOOKBACK_MS ago, also the furthest back it
 * looks) and that no node reported. Uses the database clock.
 * @returns the instant swept up to (pass it as the next `after`) and how many rounds were written
 */
export async function sweepSilentRounds(tx: SqlExecutor, after: Date | null, grace_ms: number): Promise<{ swept_until: Date; written: number }> {
  const monitors = await sweptMonitors(tx);
  const now = monitors[0]?.now ?? (await tx<{ now: Date }[]>`SELECT now() AS now`)[0]!.now;
  const from_ms = Math.max(after?.getTime() ?? 0, now.getTime() - SILENT_LOOKBACK_MS);
  const rounds = monitors.flatMap((m) => dueRounds(m, from_ms, grace_ms));
  let written = 0;
  for (let i = 0; i < rounds.length; i += 5000) written += await writeSilentRounds(tx, rounds.slice(i, i + 5000));
  return { swept_until: now, written };
}
