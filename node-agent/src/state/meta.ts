import type { StateDb } from './db.js';

/** Keys of the meta table (state/migrations.ts). */
export type MetaKey =
  | 'node_id' | 'credential' | 'control_plane_url' | 'enrolled_at' | 'last_connected_at'
  | 'outbox_dropped_total' | 'assignments_version';

/** Read one meta value, or null when unset. */
export function getMeta(db: StateDb, key: MetaKey): string | null {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  return row?.value ?? null;
}

/** Set one meta value (insert or replace); runs inside the caller's transaction if there is one. */
export function setMeta(db: StateDb, key: MetaKey, value: string): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
}
