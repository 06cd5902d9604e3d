import type { Config } from '../config/index.js';
import type { EventPublisher, OutboundEvent, SqlExecutor } from '../contracts.js';
import { insertDeliveries, type NewDelivery } from '../delivery/deliveries.db.js';
import { openBatch } from './alert-batches.db.js';
import { recordNotifications, updateSchedules, type EventNotificationRow, type StepSchedule } from './alert-events.db.js';
import type { GroupRef } from './grouping.js';

/**
 * What a transaction of engine steps writes, gathered and written at its end in one statement
 * each (deliveries, notification rows, event schedules), so a storm of pages costs a few
 * statements per batch of events rather than a few per page. Alert-group batches a step joins
 * are opened once per transaction (held FOR SHARE until it ends, alert-batches.db.ts).
 */
export interface StepWrites {
  deliveries: NewDelivery[];
  notifications: EventNotificationRow[];
  schedules: StepSchedule[];
  /** open batch ids by `<group id>/<channel id>` */
  batches: Map<string, string>;
  /** alert.* webhook events of the steps (published together, EventPublisher.publishMany) */
  events: OutboundEvent[];
}

/** An empty set of writes. */
export function stepWrites(): StepWrites {
  return { deliveries: [], notifications: [], schedules: [], batches: new Map(), events: [] };
}

/** The open batch of (group, channel) for this transaction (alert-batches.db.ts openBatch, once). */
export async function batchFor(tx: SqlExecutor, w: StepWrites, user_id: string, group: GroupRef, channel_id: string, at: Date): Promise<string> {
  const key = `${group.id}/${channel_id}`;
  let id = w.batches.get(key);
  if (!id) {
    id = await openBatch(tx, user_id, group, channel_id, at);
    w.batches.set(key, id);
  }
  return id;
}

/**
 * Write what was gathered (deliveries first: notification rows name them), then publish the
 * webhook events through `deps.events` (all of them in one call).
 * @returns how many deliveries of notifications were queued now
 */
export async function writeSteps(tx: SqlExecutor, deps: { config: Pick<Config, 'delivery_notify_channel'>; events?: EventPublisher }, w: StepWrites): Promise<number> {
  const queued = await insertDeliveries(tx, w.deliveries, deps.config.delivery_notify_channel);
  await recordNotifications(tx, w.notifications);
  await updateSchedules(tx, w.schedules);
  if (w.events.length > 0) await deps.events?.publishMany(w.events, tx);
  return queued;
}
