import { CLOCK_SKEW_MAX_MS, type HeartbeatMessage } from '@vantage/shared-protocol';
import type { Conn, HubCore } from './core.js';

/** A reported offset is written again when it moved by at least this much, ms (jitter is not news). */
const CHANGE_MS = 250;
/** …or when the stored one is this old, ms (so `clock_offset_at` says the figure is current). */
const REFRESH_MS = 10 * 60_000;

const recorded = new WeakMap<Conn, { offset_ms: number; at: number }>();

/**
 * Keep the clock offset a node reports in its heartbeats (node clock minus ours, ms; shared-protocol
 * heartbeatMessageSchema) on the node record, for GET /v1/nodes/{id} (`clock_offset_ms`,
 * `clock_skewed` beyond CLOCK_SKEW_MAX_MS). Written on the first report of a connection, when it
 * moved by CHANGE_MS, crossed the skew bound, or every REFRESH_MS: not at every heartbeat.
 */
export function noteClockOffset(core: HubCore, conn: Conn, node_id: string, msg: HeartbeatMessage): void {
  const offset_ms = msg.clock_offset_ms;
  if (offset_ms === undefined) return;
  const last = recorded.get(conn);
  const now = Date.now();
  const skewed = (v: number) => Math.abs(v) > CLOCK_SKEW_MAX_MS;
  if (last && Math.abs(last.offset_ms - offset_ms) < CHANGE_MS && skewed(last.offset_ms) === skewed(offset_ms) && now - last.at < REFRESH_MS) return;
  recorded.set(conn, { offset_ms, at: now });
  if (skewed(offset_ms) && (!last || !skewed(last.offset_ms))) core.log.warn({ node_id, clock_offset_ms: offset_ms, rtt_ms: msg.rtt_ms }, 'node clock is off');
  // Written behind with other nodes' offsets (node-reports.ts).
  core.reports.clock.note({ id: node_id, offset_ms: Math.round(offset_ms) });
}
