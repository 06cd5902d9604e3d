import { newId, type OncallRotation } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { OverrideRef } from './rotation.js';

/** An `oncall_schedules` row (docs/api/teams.md "On-call schedules"). */
export interface ScheduleRow {
  id: string;
  team_id: string;
  name: string;
  time_zone: string;
  rotations: OncallRotation[];
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

/** An `oncall_overrides` row. */
export interface OverrideRow extends OverrideRef {
  schedule_id: string;
  created_by: string | null;
}

/** The schedules of `team_ids`, oldest first. */
export async function listSchedules(ex: SqlExecutor, team_ids: string[]): Promise<ScheduleRow[]> {
  return ex<ScheduleRow[]>`SELECT * FROM oncall_schedules WHERE team_id = ANY(${team_ids}::text[]) ORDER BY created_at, id`;
}

/** One schedule, or null. */
export async function getSchedule(ex: SqlExecutor, id: string): Promise<ScheduleRow | null> {
  const [row] = await ex<ScheduleRow[]>`SELECT * FROM oncall_schedules WHERE id = ${id}`;
  return row ?? null;
}

/** Schedules by id (the engine's look-up); unknown ids are left out. */
export async function schedulesByIds(ex: SqlExecutor, ids: string[]): Promise<ScheduleRow[]> {
  if (ids.length === 0) return [];
  return ex<ScheduleRow[]>`SELECT * FROM oncall_schedules WHERE id = ANY(${ids}::text[])`;
}

/** Insert a schedule. @returns the row, or `name_taken` when the team has a schedule of that name (any case) */
export async function insertSchedule(ex: SqlExecutor, f: { team_id: string; name: string; time_zone: string; rotations: OncallRotation[]; created_by: string }): Promise<ScheduleRow | 'name_taken'> {
  const [row] = await ex<ScheduleRow[]>`
    INSERT INTO oncall_schedules (id, team_id, name, time_zone, rotations, created_by)
    VALUES (${newId('oncall_schedule')}, ${f.team_id}, ${f.name}, ${f.time_zone}, ${ex.json(f.rotations as never)}, ${f.created_by})
    ON CONFLICT DO NOTHING RETURNING *`;
  return row ?? 'name_taken';
}

/** Replace a schedule's fields. @returns the row, `missing`, or `name_taken` */
export async function updateSchedule(ex: SqlExecutor, id: string, f: { name: string; time_zone: string; rotations: OncallRotation[] }): Promise<ScheduleRow | 'missing' | 'name_taken'> {
  try {
    const [row] = await ex<ScheduleRow[]>`
      UPDATE oncall_schedules SET name = ${f.name}, time_zone = ${f.time_zone}, rotations = ${ex.json(f.rotations as never)}, updated_at = now()
      WHERE id = ${id} RETURNING *`;
    return row ?? 'missing';
  } catch (err) {
    if ((err as { code?: string }).code === '23505') return 'name_taken';
    throw err;
  }
}

/** Delete a schedule. @returns `ok`, `missing`, or the policies whose escalation levels still page it */
export async function deleteSchedule(ex: SqlExecutor, id: string): Promise<'ok' | 'missing' | { policy_ids: string[] }> {
  const used = await ex<{ policy_id: string }[]>`
    SELECT DISTINCT l.policy_id FROM alert_escalation_level_schedules s JOIN alert_escalation_levels l ON l.id = s.level_id
    WHERE s.schedule_id = ${id} ORDER BY l.policy_id`;
  if (used.length > 0) return { policy_ids: used.map((u) => u.policy_id) };
  const rows = await ex`DELETE FROM oncall_schedules WHERE id = ${id} RETURNING id`;
  return rows.length > 0 ? 'ok' : 'missing';
}

/** Which of `user_ids` are members of `team_id` (any role). */
export async function teamMembersAmong(ex: SqlExecutor, team_id: string, user_ids: string[]): Promise<Set<string>> {
  if (user_ids.length === 0) return new Set();
  const rows = await ex<{ user_id: string }[]>`SELECT user_id FROM team_members WHERE team_id = ${team_id} AND user_id = ANY(${user_ids}::text[])`;
  return new Set(rows.map((r) => r.user_id));
}

/** The overrides of `schedule_id` still running or to come at `at` (all when `at` is omitted), by start. */
export async function listOverrides(ex: SqlExecutor, schedule_id: string, at?: Date): Promise<OverrideRow[]> {
  return ex<OverrideRow[]>`
    SELECT * FROM oncall_overrides WHERE schedule_id = ${schedule_id} ${at ? ex`AND ends_at > ${at}` : ex``}
    ORDER BY starts_at, created_at, id`;
}

/** The overrides of `schedule_ids` covering `at` (the engine's look-up). */
export async function overridesAt(ex: SqlExecutor, schedule_ids: string[], at: Date): Promise<OverrideRow[]> {
  if (schedule_ids.length === 0) return [];
  return ex<OverrideRow[]>`SELECT * FROM oncall_overrides WHERE schedule_id = ANY(${schedule_ids}::text[]) AND starts_at <= ${at} AND ends_at > ${at}`;
}

/** Insert an override. */
export async function insertOverride(ex: SqlExecutor, f: { schedule_id: string; user_id: string; replaces_user_id: string | null; starts_at: Date; ends_at: Date; created_by: string }): Promise<OverrideRow> {
  const [row] = await ex<OverrideRow[]>`
    INSERT INTO oncall_overrides (id, schedule_id, user_id, replaces_user_id, starts_at, ends_at, created_by)
    VALUES (${newId('oncall_override')}, ${f.schedule_id}, ${f.user_id}, ${f.replaces_user_id}, ${f.starts_at}, ${f.ends_at}, ${f.created_by})
    RETURNING *`;
  return row!;
}

/** Delete one override of `schedule_id`. @returns whether it existed */
export async function deleteOverride(ex: SqlExecutor, schedule_id: string, id: string): Promise<boolean> {
  const rows = await ex`DELETE FROM oncall_overrides WHERE id = ${id} AND schedule_id = ${schedule_id} RETURNING id`;
  return rows.length > 0;
}

/**
 * The contact of `user_id` as a member of `team_id` (its account e-mail), or null when it is no
 * longer a member (a removed member is never paged).
 */
export async function memberContact(ex: SqlExecutor, team_id: string, user_id: string): Promise<{ user_id: string; email: string } | null> {
  const [row] = await ex<{ user_id: string; email: string }[]>`
    SELECT u.id AS user_id, u.email FROM team_members tm JOIN users u ON u.id = tm.user_id
    WHERE tm.team_id = ${team_id} AND tm.user_id = ${user_id}`;
  return row ?? null;
}

/** Which of `ids` are schedules of `team_id` (none for a personal owner: `team_id` null). */
export async function teamScheduleIds(ex: SqlExecutor, team_id: string | null, ids: string[]): Promise<Set<string>> {
  if (team_id === null || ids.length === 0) return new Set();
  const rows = await ex<{ id: string }[]>`SELECT id FROM oncall_schedules WHERE team_id = ${team_id} AND id = ANY(${ids}::text[])`;
  return new Set(rows.map((r) => r.id));
}
