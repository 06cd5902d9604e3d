import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { HEARTBEAT_BODIES_KEPT } from '@vantage/shared-protocol';
import { hashHeartbeatToken } from '../monitors/heartbeat.js';
import { findMonitorByHeartbeatHash } from '../monitors/monitors.db.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { recordCheckin, type Checkin } from './heartbeat-checkin.js';
import { sanitisedBody } from './heartbeat-checkin-body.js';

/*
 * Stored check-in bodies are bounded per monitor (the newest HEARTBEAT_BODIES_KEPT), while every
 * check-in still counts; migration 0040 applies the bound to bodies stored before it. Real
 * database, check-ins on a chosen clock.
 */

const MIGRATION = fileURLToPath(new URL('../db/migrations/0040_heartbeat_bodies_kept.sql', import.meta.url));
const T0 = Date.parse('2026-11-20T00:00:00Z');
const at = (i: number) => new Date(T0 + i * 60_000);
const checkin = (text: string | null): Checkin => ({
  kind: 'success', exit_status: null, method: text === null ? 'GET' : 'POST', source_ip: '127.0.0.1', user_agent: null,
  body: text === null ? null : sanitisedBody(Buffer.from(text)),
});

async function setup(t: { teardown(fn: () => unknown): void }) {
  const { app, sql } = await testApp(t);
  const u = await registerUser(app);
  const { body } = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'job', type: 'heartbeat', config: { period_s: 60 } } });
  const m = (await findMonitorByHeartbeatHash(sql, hashHeartbeatToken(body.data.heartbeat.token)))!;
  const checks = () => sql<{ at: Date; body: string | null }[]>`
    SELECT c.scheduled_at AS at, c.output->>'body' AS body FROM checks c JOIN check_series s ON s.id = c.series_id
    WHERE s.monitor_id = ${m.id} ORDER BY c.scheduled_at`;
  return { sql, m, checks };
}

t.test(`the newest ${HEARTBEAT_BODIES_KEPT} bodies of a monitor are kept; every check-in counts`, async (t) => {
  const { sql, m, checks } = await setup(t);
  const extra = 7;
  for (let i = 0; i < HEARTBEAT_BODIES_KEPT + extra; i++) {
    await recordCheckin(sql, m, checkin(`run ${i}`), at(2 * i));
    await recordCheckin(sql, m, checkin(null), at(2 * i + 1)); // a body-less check-in takes no place
  }
  const list = await checks();
  t.equal(list.length, 2 * (HEARTBEAT_BODIES_KEPT + extra), 'every check-in stored');
  const kept = list.filter((c) => c.body !== null);
  t.equal(kept.length, HEARTBEAT_BODIES_KEPT);
  t.same(kept.map((c) => c.body), Array.from({ length: HEARTBEAT_BODIES_KEPT }, (_, i) => `run ${i + extra}`), 'the newest ones, the oldest cleared');
  const [state] = await sql<{ n: number; first: Date }[]>`SELECT cardinality(body_checks) AS n, body_checks[1] AS first FROM heartbeat_state WHERE monitor_id = ${m.id}`;
  t.same([state!.n, state!.first.toISOString()], [HEARTBEAT_BODIES_KEPT, at(2 * extra).toISOString()]);
});

t.test('migration 0040 bounds bodies stored before it', async (t) => {
  const { sql, m, checks } = await setup(t);
  const stored = HEARTBEAT_BODIES_KEPT + 3;
  for (let i = 0; i < stored; i++) await recordCheckin(sql, m, checkin(`old ${i}`), at(i));
  // As before the migration: all bodies kept, nothing listed.
  await sql`UPDATE checks c SET output = jsonb_set(c.output, '{body}', to_jsonb('old ' || (extract(epoch FROM c.scheduled_at - ${at(0)}) / 60)::int))
    FROM check_series s WHERE s.id = c.series_id AND s.monitor_id = ${m.id}`;
  await sql`UPDATE heartbeat_state SET body_checks = '{}' WHERE monitor_id = ${m.id}`;
  t.equal((await checks()).filter((c) => c.body !== null).length, stored);
  const backfill = readFileSync(MIGRATION, 'utf8').split(/^ALTER TABLE .*$/m)[1]!;
  await sql.unsafe(backfill);
  const kept = (await checks()).filter((c) => c.body !== null);
  t.same(kept.map((c) => c.body), Array.from({ length: HEARTBEAT_BODIES_KEPT }, (_, i) => `old ${i + 3}`));
  await recordCheckin(sql, m, checkin('new'), at(stored));
  t.same((await checks()).filter((c) => c.body !== null).map((c) => c.body).slice(0, 1), ['old 4'], 'the bound goes on from the listed bodies');
});
