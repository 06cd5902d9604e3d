import type { Sql } from '../db/sql.js';

/** An `alert_silences` row. */
export interface SilenceRow { id: string; user_id: string; monitor_id: string | null; reason: string; starts_at: Date; ends_at: Date; created_at: Date }

/** The caller's silences, latest start first. */
export async function listSilences(sql: Sql, user_id: string): Promise<SilenceRow[]> {
  return sql<SilenceRow[]>`SELECT * FROM alert_silences WHERE user_id = ${user_id} ORDER BY starts_at DESC, id`;
}

/** The silences of an owner still running or to come at `at` (for activeSilence). */
export async function liveSilences(sql: Sql, user_id: string, at: Date): Promise<SilenceRow[]> {
  return sql<SilenceRow[]>`SELECT * FROM alert_silences WHERE user_id = ${user_id} AND ends_at > ${at}`;
}

export async function getSilence(sql: Sql, user_id: string, id: string): Promise<SilenceRow | null> {
  const [row] = await sql<SilenceRow[]>`SELECT * FROM alert_silences WHERE id = ${id} AND user_id = ${user_id}`;
  return row ?? null;
}

export async function insertSilence(sql: Sql, s: Omit<SilenceRow, 'created_at'>): Promise<SilenceRow> {
  const [row] = await sql<SilenceRow[]>`
    INSERT INTO alert_silences (id, user_id, monitor_id, reason, starts_at, ends_at)
    VALUES (${s.id}, ${s.user_id}, ${s.monitor_id}, ${s.reason}, ${s.starts_at}, ${s.ends_at}) RETURNING *`;
  return row!;
}

export async function updateSilence(sql: Sql, user_id: string, id: string, p: { reason: string; starts_at: Date; ends_at: Date }): Promise<SilenceRow | null> {
  const [row] = await sql<SilenceRow[]>`
    UPDATE alert_silences SET reason = ${p.reason}, starts_at = ${p.starts_at}, ends_at = ${p.ends_at}
    WHERE id = ${id} AND user_id = ${user_id} RETURNING *`;
  return row ?? null;
}

export async function deleteSilence(sql: Sql, user_id: string, id: string): Promise<boolean> {
  return (await sql`DELETE FROM alert_silences WHERE id = ${id} AND user_id = ${user_id} RETURNING id`).length > 0;
}
