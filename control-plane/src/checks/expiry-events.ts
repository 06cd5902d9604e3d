import type { EventPublisher, OutboundEvent, SqlExecutor } from '../contracts.js';
import { recordExpiryCrossings } from './expiry-notices.db.js';

/*
 * What `ssl.expiring` and `domain.expiring` share (docs/api/webhooks.md "Events"): the thresholds
 * a monitor reports expiry at, and sending each crossing of one once (0042_expiry_notices.sql).
 */

/** Days before expiry a monitor reports at: `warn_days`, and `critical_days` (at most warn_days). */
export interface ExpiryThresholds {
  warn_days: number;
  critical_days: number;
}

const wholeDays = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : fallback);

/**
 * The thresholds of a monitor config (`warn_days`, `critical_days`: shared-protocol
 * monitors/config-network.ts), each falling back to `defaults` when absent or not a whole number.
 */
export function expiryThresholds(config: Record<string, unknown> | null, defaults: ExpiryThresholds): ExpiryThresholds {
  return { warn_days: wholeDays(config?.warn_days, defaults.warn_days), critical_days: wholeDays(config?.critical_days, defaults.critical_days) };
}

/**
 * The thresholds `days_left` (whole days, negative once expired) is below: "fewer days remain"
 * than warn_days, critical_days, or both (one when they are equal).
 */
export function crossedThresholds(days_left: number, t: ExpiryThresholds): number[] {
  return [...new Set([t.warn_days, t.critical_days])].filter((threshold) => days_left < threshold);
}

/**
 * Queue `event` (an expiry event of `monitor_id`) in `tx` when `days_left` crossed a threshold of
 * `t` not yet recorded for `subject` (what expires: `cert:…`, `domain:…`): one event per crossing,
 * whichever node, round or instance sees it first; a renewal (new subject) starts over. Crossing
 * warn_days and critical_days at once (first seen below both) sends one event.
 * @returns true when the event was queued (or no endpoint subscribes), false when nothing crossed anew
 */
export async function publishExpiryOnce(tx: SqlExecutor, events: EventPublisher, crossing: { monitor_id: string; subject: string; days_left: number; thresholds: ExpiryThresholds }, event: OutboundEvent): Promise<boolean> {
  const crossed = crossedThresholds(crossing.days_left, crossing.thresholds);
  if (crossed.length === 0) return false;
  const recorded = await recordExpiryCrossings(tx, crossing.monitor_id, crossing.subject, crossed);
  if (recorded.length === 0) return false;
  await events.publish(event, tx);
  return true;
}
