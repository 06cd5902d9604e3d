import { roundPhaseMs } from '@vantage/shared-protocol';
import type { IngestMonitorRow } from './ingest.db.js';

/*
 * Which rounds a node may report (docs/architecture/checks.md "Which rounds a node may report"):
 * only a round the monitor really had, while the node was placed on it.
 */

/** A monitor's round history for one node (checks/ingest.db.ts ingestMonitors): creation, the node's placement spans, the schedule spans. */
export type RoundHistory = Pick<IngestMonitorRow, 'id' | 'created_ms'> & {
  placed_spans: NonNullable<IngestMonitorRow['placed_spans']>;
  schedule_spans: NonNullable<IngestMonitorRow['schedule_spans']>;
};

/**
 * How far a node's round instants may be off the control plane's clock, ms: 5 minutes, the usual
 * bound on clock skew between peers that check each other's timestamps (Kerberos' default
 * `clockskew`, MIT krb5.conf). A node corrects its clock by the offset it measures over its link
 * (docs/architecture/node-agent.md "Clock"), but runs on its own clock until the first
 * measurement, and a node more than CLOCK_SKEW_MAX_MS (shared-protocol) off is flagged, not
 * refused. A round may start this much before its monitor's creation, its node's placement or its
 * schedule span, and lie this much ahead of the control plane's clock.
 */
export const ROUND_CLOCK_TOLERANCE_MS = 5 * 60_000;

/** Why a round is not one the node may report ({@link roundOf}). */
export const ROUND_REFUSAL = {
  before_created: 'round starts before the monitor was created',
  not_placed_then: 'monitor was not placed on this node at that round',
  no_rounds_then: 'the monitor had no rounds then (it was paused)',
  not_a_round: 'scheduled_at is not a round of the monitor (rounds start at its phase + k * interval_s)',
} as const;

/** A span [from, until] (epoch ms) stretched by the tolerances: it may be met this early and this late. */
const within = (t_ms: number, from_ms: number, until_ms: number, lag_ms: number) =>
  t_ms >= from_ms - ROUND_CLOCK_TOLERANCE_MS && t_ms <= until_ms + lag_ms;

/**
 * True when `t_ms` (epoch ms) is the start of a round of `monitor_id` at `interval_s`: `phase +
 * k * interval_s * 1000` for some integer k, with the phase of shared-protocol roundPhaseMs (the
 * function the control plane's assignments and the node's scheduler use).
 */
export function isRoundStart(monitor_id: string, interval_s: number, t_ms: number): boolean {
  const interval_ms = interval_s * 1000;
  return (((t_ms - roundPhaseMs(monitor_id, interval_s)) % interval_ms) + interval_ms) % interval_ms === 0;
}

/**
 * Whether the round starting at `t_ms` (epoch ms) is one the monitor `m` really had while the
 * reporting node was placed on it (`m`'s history for that node, checks/ingest.db.ts):
 * - not before the monitor was created;
 * - within a span the node was placed on it;
 * - within a span the monitor had rounds (active, not paused) and aligned to that span's
 *   interval (an interval change keeps the rounds of the old interval valid up to the change).
 * Spans may be met ROUND_CLOCK_TOLERANCE_MS early (clocks) and `lag_ms` after they ended: a node
 * keeps its old schedule until it hears of a change, which takes it seconds while connected and
 * at most the placement grace while unreachable (past that, its placement ends).
 * @returns the round's interval_s (the span's), or why it is refused ({@link ROUND_REFUSAL})
 */
export function roundOf(m: RoundHistory, t_ms: number, lag_ms: number): { interval_s: number } | { reason: string } {
  if (t_ms < m.created_ms - ROUND_CLOCK_TOLERANCE_MS) return { reason: ROUND_REFUSAL.before_created };
  if (!m.placed_spans.some(([from, until]) => within(t_ms, from, until, lag_ms))) return { reason: ROUND_REFUSAL.not_placed_then };
  let active = false;
  // A round that fits two spans (around an interval change) counts at the newer one's interval.
  let best: [number, number, number] | null = null;
  for (const span of m.schedule_spans) {
    if (!within(t_ms, span[0], span[1], lag_ms)) continue;
    active = true;
    if ((!best || span[0] > best[0]) && isRoundStart(m.id, span[2], t_ms)) best = span;
  }
  if (best) return { interval_s: best[2] };
  return { reason: active ? ROUND_REFUSAL.not_a_round : ROUND_REFUSAL.no_rounds_then };
}
