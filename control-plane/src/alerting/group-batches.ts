import type { AlertChannelType } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import { batchMembers, claimDueBatches, closeBatch } from './alert-batches.db.js';
import { channelsByIds } from './alert-events.db.js';
import { groupNotification } from './grouping.js';
import { queueNotification } from './notify.js';

/*
 * Alert-group collapsing (docs/api/alerting.md "Alert groups"), the flush: a page of a grouped
 * monitor joined its (group, channel) batch instead of being queued (engine.ts notify,
 * step-writes.ts batchFor); a due batch becomes one delivery. Both run inside the engine's
 * transactions, so a restart loses nothing and a flush replayed by another instance finds the
 * batch closed (or the delivery's message id taken).
 */

const BATCH = 100;

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
