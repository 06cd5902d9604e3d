import type { SqlExecutor } from '../contracts.js';
import { onCallAt } from './rotation.js';
import { notificationRulesOf } from './notification-rules.db.js';
import { memberContact, overridesAt, schedulesByIds } from './schedules.db.js';

/**
 * The person a page of a schedule reaches: a member of the schedule's team, their account e-mail,
 * and their contact channels (their own personal email, sms or webhook alert channels, in order;
 * empty: the page goes to `email`).
 */
export interface OnCallContact {
  schedule_id: string;
  schedule_name: string;
  team_id: string;
  user_id: string;
  email: string;
  channels: Array<{ id: string; type: 'email' | 'sms' | 'webhook'; user_id: string }>;
}

/**
 * Who is on call on `schedule_id` at `at` and how to reach them (docs/api/teams.md "On-call
 * schedules", "On-call contacts": an escalation level paging a schedule pages this person on their contact
 * channels, or without any on their account e-mail).
 * @returns null when the schedule is gone, nobody is on call, or the person on call is no longer a
 *   member of the schedule's team
 */
export async function onCallContact(ex: SqlExecutor, schedule_id: string, at: Date): Promise<OnCallContact | null> {
  const [schedule] = await schedulesByIds(ex, [schedule_id]);
  if (!schedule) return null;
  const now = onCallAt(schedule, await overridesAt(ex, [schedule_id], at), at);
  if (!now.user_id) return null;
  const contact = await memberContact(ex, schedule.team_id, now.user_id);
  if (!contact) return null;
  const channels = (await notificationRulesOf(ex, contact.user_id)).map((r) => ({ id: r.channel_id, type: r.method, user_id: r.user_id }));
  return { schedule_id, schedule_name: schedule.name, team_id: schedule.team_id, ...contact, channels };
}
