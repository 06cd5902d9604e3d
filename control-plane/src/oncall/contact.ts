import type { SqlExecutor } from '../contracts.js';
import { onCallAt } from './rotation.js';
import { memberContact, overridesAt, schedulesByIds } from './schedules.db.js';

/** The person a page of a schedule reaches: a member of the schedule's team and their account e-mail. */
export interface OnCallContact {
  schedule_id: string;
  schedule_name: string;
  team_id: string;
  user_id: string;
  email: string;
}

/**
 * Who is on call on `schedule_id` at `at` and how to reach them (docs/api/teams.md "On-call
 * schedules": an escalation level paging a schedule pages this person on their account e-mail).
 * @returns null when the schedule is gone, nobody is on call, or the person on call is no longer a
 *   member of the schedule's team
 */
export async function onCallContact(ex: SqlExecutor, schedule_id: string, at: Date): Promise<OnCallContact | null> {
  const [schedule] = await schedulesByIds(ex, [schedule_id]);
  if (!schedule) return null;
  const now = onCallAt(schedule, await overridesAt(ex, [schedule_id], at), at);
  if (!now.user_id) return null;
  const contact = await memberContact(ex, schedule.team_id, now.user_id);
  return contact && { schedule_id, schedule_name: schedule.name, team_id: schedule.team_id, ...contact };
}
