import type { PendingQuery, Row } from 'postgres';
import { decodeEntries, entriesWithDetails, type EntryRow } from './entries.db.js';
import type { CheckRow } from './history.db.js';
import { decodeOutput } from './output-codec.js';
import { newId, roundPhaseMs, type MonitorResultEnvelope } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';

/*
 * Fixtures of the check history's tests and benchmark: accounts, nodes, monitors and placements
 * written straight into the database (as placement would leave them), and monitor results shaped
 * as nodes send them.
 */

/** A monitor with `nodes` placed nodes, written directly (no API, no placement job). */
export interface SeededMonitor {
  user_id: string;
  monitor_id: string;
  node_ids: string[];
  interval_s: number;
}

/** An account (returns its id) for monitors seeded without the API. */
export async function seedUser(sql: SqlExecutor): Promise<string> {
  const id = newId('user');
  await sql`INSERT INTO users (id, email, password_hash) VALUES (${id}, ${`${id}@example.test`}, 'x')`;
  return id;
}

/** `count` online nodes in `countries` (cycled), ids returned. */
export async function seedNodes(sql: SqlExecutor, count: number, countries: string[] = ['DE', 'US', 'JP', 'BR', 'AU']): Promise<string[]> {
  const ids = Array.from({ length: count }, () => newId('node'));
  await sql`
    INSERT INTO nodes (id, name, status, country, last_seen_at)
    SELECT id, 'node-' || id, 'online', c, now() FROM unnest(${ids}::text[], ${ids.map((_, i) => countries[i % countries.length]!)}::text[]) AS u(id, c)`;
  return ids;
}

/** How long ago seeded monitors were created and placed by default, ms: the rounds tests report lie within their life. */
const SEEDED_AGE_MS = 7 * 86_400_000;

/**
 * A monitor of `type` (default http) placed on `node_ids` (new nodes when a number), with
 * `config` merged over a 1 s timeout (so rounds' deadlines come soon after their start), created
 * and placed `age_ms` ago (default {@link SEEDED_AGE_MS}): ingest accepts only rounds the monitor
 * had while the node was placed on it.
 */
export async function seedMonitor(sql: SqlExecutor, opts: {
  user_id?: string; nodes: number | string[]; type?: string; interval_s?: number; config?: Record<string, unknown>; state?: string; age_ms?: number;
}): Promise<SeededMonitor> {
  const user_id = opts.user_id ?? await seedUser(sql);
  const node_ids = typeof opts.nodes === 'number' ? await seedNodes(sql, opts.nodes) : opts.nodes;
  const monitor_id = newId('monitor');
  const interval_s = opts.interval_s ?? 60;
  const type = opts.type ?? 'http';
  const since = new Date(Date.now() - (opts.age_ms ?? SEEDED_AGE_MS));
  await sql`
    INSERT INTO monitors (id, user_id, name, type, target, config, interval_s, node_count, state, created_at)
    VALUES (${monitor_id}, ${user_id}, ${`monitor ${monitor_id}`}, ${type}, 'https://example.com/', ${sql.json({ timeout_ms: 1000, ...opts.config } as never)},
      ${interval_s}, ${node_ids.length}, ${opts.state ?? 'pending'}, ${since})`;
  if (node_ids.length > 0) {
    await sql`
      INSERT INTO monitor_placements (monitor_id, node_id, revision, placed_at) SELECT ${monitor_id}, n, 1, ${since} FROM unnest(${node_ids}::text[]) AS n`;
  }
  return { user_id, monitor_id, node_ids, interval_s };
}

/** The start of round k of a monitor (rounds.ts): `k` 0 = the round running now, negative = earlier. */
export function roundAt(m: { monitor_id: string; interval_s: number }, k = 0, now = Date.now()): string {
  const phase = roundPhaseMs(m.monitor_id, m.interval_s);
  const current = Math.floor((now - phase) / (m.interval_s * 1000));
  return new Date(phase + (current + k) * m.interval_s * 1000).toISOString();
}

/**
 * An http monitor result as a node sends it: success with `response_ms`, or failed with `error`
 * (class target, no response).
 */
export function httpResult(monitor_id: string, scheduled_at: string, opts: { success?: boolean; response_ms?: number; error?: string; result_id?: string } = {}): MonitorResultEnvelope {
  const success = opts.success ?? true;
  const start = Date.parse(scheduled_at) + 2;
  const ms = opts.response_ms ?? 80;
  return {
    result_id: opts.result_id ?? newId('result'), task_id: null, monitor_id, type: 'http', scheduled_at,
    started_at: new Date(start).toISOString(), finished_at: new Date(start + ms).toISOString(),
    success, error: success ? null : opts.error ?? 'connection refused', error_class: success ? null : 'refused', assertions: [],
    output: success ? {
      final_url: 'https://example.com/', status_code: 200, response_ms: ms, response_size: 1256, headers: { 'content-type': 'text/html' },
      timing: { dns_ms: 1, tcp_ms: 10, tls_ms: 20, ttfb_ms: ms - 35, download_ms: 4 }, tls: { cipher: 'TLS_AES_128_GCM_SHA256', version: 'TLSv1.3' },
      certificate: null, redirects: [], resolved_address: '198.18.1.10', body_truncated: false, certificate_error: null,
    } : null,
  } as MonitorResultEnvelope;
}

/** A ping monitor result as a node sends it (4 echo requests, `rtt_ms` each). */
export function pingResult(monitor_id: string, scheduled_at: string, rtt_ms = 12.5): MonitorResultEnvelope {
  const start = Date.parse(scheduled_at) + 1;
  const rtts = [rtt_ms, rtt_ms * 1.05, rtt_ms * 0.97, rtt_ms * 1.1].map((x) => Math.round(x * 1000) / 1000);
  const avg = rtts.reduce((a, b) => a + b, 0) / 4;
  return {
    result_id: newId('result'), task_id: null, monitor_id, type: 'ping', scheduled_at,
    started_at: new Date(start).toISOString(), finished_at: new Date(start + 3050).toISOString(),
    success: true, error: null, error_class: null, assertions: [],
    output: {
      resolved_address: '198.18.1.10', packets_sent: 4, packets_received: 4, packet_loss: 0,
      rtt_min_ms: Math.min(...rtts), rtt_avg_ms: Math.round(avg * 1000) / 1000, rtt_max_ms: Math.max(...rtts), rtt_stddev_ms: 0.52,
      packets: rtts.map((rtt, seq) => ({ seq, rtt_ms: rtt, ttl: 57 })),
    },
  } as MonitorResultEnvelope;
}

/** Move every waiting round of `monitor_id` past its deadline, as if its time had run out. */
export async function expireRounds(sql: SqlExecutor, monitor_id: string): Promise<void> {
  await sql`UPDATE check_rounds SET deadline_at = now() - interval '1 second' WHERE monitor_id = ${monitor_id} AND dirty`;
}

/** A stored check as tests read it: the check (details decoded) and its series' monitor and node. */
export type StoredCheck = Omit<CheckRow, 'output_z'> & { monitor_id: string; node_id: string | null };

/**
 * Every stored check (rows and batches, hidden ones left out, as readers see them) of the series
 * `where` picks (a condition on check_series `s`; default: all), by scheduled_at, then node.
 */
export async function storedChecks(sql: SqlExecutor, where: PendingQuery<Row[]> = sql`true`): Promise<StoredCheck[]> {
  const rows = decodeEntries(await entriesWithDetails<EntryRow & { monitor_id: string; node_id: string | null }>(sql, sql`
    SELECT e.*, s.monitor_id, s.node_id FROM check_series s
    CROSS JOIN LATERAL check_entries(ARRAY[s.id], '-infinity', 'infinity') e WHERE ${where}`,
  sql`e.scheduled_at, e.node_id NULLS FIRST`, sql`, e.monitor_id, e.node_id`));
  return rows.map(({ output_z, ...r }) => ({ ...r, output: output_z ? decodeOutput(output_z) as CheckRow['output'] : r.output }));
}
