import type { AlertChannelType } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import { batchMembers, claimDueBatches, closeBatch, openBatch } from './alert-batches.db.js';
import { channelsByIds, recordNotifications, type EventNotificationRow } from './alert-events.db.js';
import type { GroupRef } from './grouping.js';
import { groupNotification } from './grouping.js';
import { queueNotification } from './notify.js';

/*
 * Alert-group collapsing (docs/api/alerting.md "Alert groups"), the stateful half: a page of a
 * grouped monitor joins its (group, channel) batch instead of being queued; a due batch becomes
 * one delivery. Both run inside the engine's transactions, so a restart loses nothing and a
 * flush replayed by another instance finds the batch closed (or the delivery's message id taken).
 */

const BATCH = 100;

/**
 * Gather one page (event, level, channel) in the open batch of (group, channel) at `at`: recorded
 * as a notification with the batch and no delivery yet. Runs in the transaction that holds the event.
 */
export async function gatherPage(tx: SqlExecutor, user_id: string, group: GroupRef, page: { event_id: string; level: number; channel_id: string }, at: Date): Promise<void> {
  const batch_id = await openBatch(tx, user_id, group, page.channel_id, at);
  const row: EventNotificationRow = { ...page, kind: 'firing', delivery_id: null, suppressed: null, batch_id, created_at: at };
  await recordNotifications(tx, [row]);
}

/** The message id of a batch's one delivery (the same whoever flushes it). */
export const batchMessageId = (batch_id: string) => `alert-group:${batch_id}`;

/**
 * Flush the batches due at `now`, a claimed batch per transaction step: one notification per
 * batch listing every monitor whose page it gathered and that was not withdrawn, queued for the
 * batch's channel; a batch left empty is closed without a message. @returns how many messages were queued
 */
export async function flushDueBatches(deps: { sql: Sql; config: Pick<Config, 'delivery_notify_channel'> }, now: Date): Promise<number> {
  let sent = 0;
  for (;;) {
    const claimed = await deps.sql.begin(async (tx) => {
      const batches = await claimDueBatches(tx, now, BATCH);
      const channels = new Map((await channelsByIds(tx, [...new Set(batches.map((b) => b.channel_id))])).map((c) => [c.id, c]));
      for (const b of batches) {
        const members = await batchMembers(tx, b.id);
        const channel = channels.get(b.channel_id);
        if (members.length === 0 || !channel) {
          await closeBatch(tx, b.id, null, 0, now);
          continue;
        }
        const message_id = batchMessageId(b.id);
        const notification = groupNotification(b, members, message_id, now);
        const r = await queueNotification(tx, deps.config, { ...channel, type: channel.type as AlertChannelType }, notification, message_id);
        await closeBatch(tx, b.id, r.delivery_id, notification.group!.monitors.length, now);
        if (r.queued) sent++;
      }
      return batches.length;
    });
    if (claimed < BATCH) return sent;
  }
}
