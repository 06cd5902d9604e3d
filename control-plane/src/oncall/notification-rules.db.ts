import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';

/** One on-call contact method of an account: one of its personal alert channels, in order. */
export interface NotificationRuleRow {
  channel_id: string;
  method: 'email' | 'sms' | 'webhook';
  name: string;
  user_id: string;
}

/**
 * The contact channels of `user_id`, in order: only those still its own personal channels of a
 * contact type (a channel moved into a team, or of another type, drops out).
 */
export async function notificationRulesOf(ex: SqlExecutor, user_id: string): Promise<NotificationRuleRow[]> {
  return ex<NotificationRuleRow[]>`
    SELECT c.id AS channel_id, c.type AS method, c.name, c.user_id FROM oncall_notification_rules r JOIN alert_channels c ON c.id = r.channel_id
    WHERE r.user_id = ${user_id} AND c.user_id = ${user_id} AND c.team_id IS NULL AND c.type IN ('email', 'sms', 'webhook')
    ORDER BY r.position`;
}

/** Replace the contact channels of `user_id` with `channel_ids`, in that order (the route checked them). */
export async function replaceNotificationRules(sql: Sql, user_id: string, channel_ids: string[]): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`DELETE FROM oncall_notification_rules WHERE user_id = ${user_id}`;
    if (channel_ids.length > 0) {
      await tx`INSERT INTO oncall_notification_rules ${tx(channel_ids.map((channel_id, position) => ({ user_id, position, channel_id })))}`;
    }
  });
}

/** The account's bound phone number (E.164; set once verified), or null. */
export async function boundPhone(ex: SqlExecutor, user_id: string): Promise<string | null> {
  const [row] = await ex<{ phone: string | null }[]>`SELECT phone FROM users WHERE id = ${user_id}`;
  return row?.phone ?? null;
}

/** The caller's personal channels among `ids`, with their type and config, for the route's checks. */
export async function personalChannels(ex: SqlExecutor, user_id: string, ids: string[]): Promise<Array<{ id: string; type: string; config: Record<string, unknown> }>> {
  if (ids.length === 0) return [];
  return ex`SELECT id, type, config FROM alert_channels WHERE user_id = ${user_id} AND team_id IS NULL AND id = ANY(${ids}::text[])`;
}
