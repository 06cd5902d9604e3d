import Table from 'cli-table3';
import { AssignmentStore } from '../assignments/store.js';
import type { StateDb } from '../state/db.js';
import { getMeta } from '../state/meta.js';
import { readIdentity } from '../state/identity.js';

/** What `node-agent status` shows, read from the state DB only (no network). */
export interface StatusReport {
  state_dir: string;
  node_id: string | null;
  control_plane_url: string | null;
  enrolled_at: string | null;
  last_connected_at: string | null;
  outbox_pending: number;
  outbox_dropped_total: number;
  outbox_oldest_pending_at: string | null;
  assignments_version: number;
  assignments: number;
}

/** Gather the status report. Never includes the credential. */
export function readStatus(db: StateDb, state_dir: string): StatusReport {
  const identity = readIdentity(db);
  const outbox = db.prepare('SELECT count(*) AS n, min(created_at_ms) AS oldest FROM outbox').get() as { n: number; oldest: number | null };
  const store = new AssignmentStore(db);
  return {
    state_dir,
    node_id: identity?.node_id ?? null,
    control_plane_url: identity?.control_plane_url ?? null,
    enrolled_at: identity?.enrolled_at ?? null,
    last_connected_at: getMeta(db, 'last_connected_at'),
    outbox_pending: outbox.n,
    outbox_dropped_total: Number(getMeta(db, 'outbox_dropped_total') ?? 0),
    outbox_oldest_pending_at: outbox.oldest === null ? null : new Date(outbox.oldest).toISOString(),
    assignments_version: store.version,
    assignments: store.list().length,
  };
}

/** The report as a two-column table (cli-table3). */
export function formatStatus(s: StatusReport): string {
  const table = new Table({ head: ['field', 'value'], style: { head: [], border: [] } });
  const rows: Array<[string, string]> = [
    ['node id', s.node_id ?? '(not enrolled)'],
    ['control plane', s.control_plane_url ?? '-'],
    ['enrolled at', s.enrolled_at ?? '-'],
    ['last connected', s.last_connected_at ?? 'never'],
    ['outbox pending', String(s.outbox_pending)],
    ['outbox oldest pending', s.outbox_oldest_pending_at ?? '-'],
    ['outbox dropped (total)', String(s.outbox_dropped_total)],
    ['assignment version', String(s.assignments_version)],
    ['assignments held', String(s.assignments)],
    ['state dir', s.state_dir],
  ];
  table.push(...rows);
  return table.toString();
}
