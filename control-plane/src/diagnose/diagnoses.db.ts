import type { DiagnoseScope, ProbeType } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';

/** One scope of a stored diagnose run: its probe group's first task id, or why it was skipped. */
export interface StoredSection {
  scope: DiagnoseScope;
  probe_type: ProbeType;
  task_id: string | null;
  skipped: string | null;
}

/** A `diagnoses` row (0069_more_probe_types.sql). */
export interface DiagnoseRow {
  id: string;
  target: string;
  sections: StoredSection[];
  requester_user_id: string | null;
  created_at: Date;
}

/** Store a diagnose run. */
export async function insertDiagnose(sql: Sql, row: Omit<DiagnoseRow, 'created_at'>): Promise<DiagnoseRow> {
  const [created] = await sql<DiagnoseRow[]>`
    INSERT INTO diagnoses (id, target, sections, requester_user_id)
    VALUES (${row.id}, ${row.target}, ${sql.json(row.sections as never)}, ${row.requester_user_id})
    RETURNING id, target, sections, requester_user_id, created_at`;
  return created!;
}

/** A diagnose run by id, or null. */
export async function getDiagnose(sql: Sql, id: string): Promise<DiagnoseRow | null> {
  const [row] = await sql<DiagnoseRow[]>`SELECT id, target, sections, requester_user_id, created_at FROM diagnoses WHERE id = ${id}`;
  return row ?? null;
}
