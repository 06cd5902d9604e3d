import t from 'tap';
import type { Sql } from '../db/sql.js';
import { hashHeartbeatToken } from '../monitors/heartbeat.js';
import { findMonitorByHeartbeatHash } from '../monitors/monitors.db.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { recordCheckin, type Checkin } from './heartbeat-checkin.js';
import { detectMissedHeartbeats } from './heartbeat-job.js';

/*
 * A heartbeat monitor's life on a controlled clock: check-ins and detector passes at chosen
 * instants, against the real database. Cron schedules across both European DST changes of 2026.
 */

const S = 1000;
const at = (iso: string, plus_s = 0) => new Date(Date.parse(iso) + plus_s * S);
const ping: Checkin = { kind: 'success', exit_status: null, method: 'GET', source_ip: '127.0.0.1', user_agent: null, body: null };

async function setup(t: { teardown(fn: () => unknown): void }, config: Record<string, unknown>) {
  const { app, sql } = await testApp(t);
  const u = await registerUser(app);
  const { body } = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'job', type: 'heartbeat', config } });
  const m = (await findMonitorByHeartbeatHash(sql, hashHeartbeatToken(body.data.heartbeat.token)))!;
  const checks = async () => sql<{ scheduled_at: Date; success: boolean; error: string | null; output: any }[]>`
    SELECT c.scheduled_at, c.success, c.error, c.output FROM checks c JOIN check_series s ON s.id = c.series_id
    WHERE s.monitor_id = ${m.id} ORDER BY c.scheduled_at`;
  return { sql: sql as Sql, m, checks };
}

t.test('period + grace: late only past the grace; one check per missed report; idempotent', async (t) => {
  const { sql, m, checks } = await setup(t, { period_s: 3600, grace_s: 600 });
  const c0 = at('2026-11-20T10:00:00Z');
  await recordCheckin(sql, m, ping, c0);
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T11:09:59Z')), 0, 'within period + grace');
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T11:10:01Z')), 1, 'past period + grace');
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T11:10:02Z')), 0, 'reported once');
  // Two more slots pass (12:00 and 13:00, deadlines 12:10 and 13:10): one check for both.
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T13:10:01Z')), 1);
  await recordCheckin(sql, m, ping, at('2026-11-20T13:20:00Z'));
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T14:29:59Z')), 0, 'a check-in restarts the wait');
  const list = await checks();
  t.same(list.map((c) => [c.scheduled_at.toISOString(), c.success, c.output.kind, c.output.missed_count]), [
    ['2026-11-20T10:00:00.000Z', true, 'success', 0],
    ['2026-11-20T11:00:00.000Z', false, 'missed', 1],
    ['2026-11-20T13:00:00.000Z', false, 'missed', 2],
    ['2026-11-20T13:20:00.000Z', true, 'success', 0],
  ]);
  t.equal(list[1]!.error, 'no check-in since 2026-11-20T10:00:00.000Z: expected at 2026-11-20T11:00:00.000Z, grace 600 s');
  t.match(list[1]!.output, { expected_at: '2026-11-20T11:00:00.000Z', deadline_at: '2026-11-20T11:10:00.000Z', last_checkin_at: '2026-11-20T10:00:00.000Z' });
});

t.test('a failure check-in is down at once; /start measures the run', async (t) => {
  const { sql, m, checks } = await setup(t, { period_s: 3600, grace_s: 60 });
  await recordCheckin(sql, m, { ...ping, kind: 'start' }, at('2026-11-20T10:00:00Z'));
  await recordCheckin(sql, m, { ...ping, kind: 'exit_status', exit_status: 2 }, at('2026-11-20T10:00:42Z'));
  await recordCheckin(sql, m, { ...ping, kind: 'start' }, at('2026-11-20T11:00:00Z'));
  await recordCheckin(sql, m, { ...ping, kind: 'exit_status', exit_status: 0 }, at('2026-11-20T11:05:00Z'));
  t.same((await checks()).map((c) => [c.success, c.output.kind, c.output.duration_ms]), [[false, 'exit_status', 42_000], [true, 'success', 300_000]]);
});

t.test('cron across the autumn DST change (Europe/Paris, 25 Oct 2026: 03:00 CEST becomes 02:00 CET)', async (t) => {
  const { sql, m, checks } = await setup(t, { cron: '0 3 * * *', timezone: 'Europe/Paris', grace_s: 900 });
  // 24 Oct 03:00 CEST = 01:00Z. The next firing is 25 Oct 03:00 CET = 02:00Z, 25 h later.
  await recordCheckin(sql, m, ping, at('2026-10-24T01:00:30Z'));
  t.equal(await detectMissedHeartbeats(sql, at('2026-10-25T01:15:01Z')), 0, 'not late 24 h + grace after: the day has 25 h');
  t.equal(await detectMissedHeartbeats(sql, at('2026-10-25T02:14:59Z')), 0);
  t.equal(await detectMissedHeartbeats(sql, at('2026-10-25T02:15:01Z')), 1, 'late past 03:00 CET + 15 min');
  await recordCheckin(sql, m, ping, at('2026-10-26T02:00:10Z'));
  t.equal(await detectMissedHeartbeats(sql, at('2026-10-27T02:14:59Z')), 0, 'CET from then on: due 02:00Z');
  t.equal(await detectMissedHeartbeats(sql, at('2026-10-27T02:15:01Z')), 1);
  t.same((await checks()).filter((c) => !c.success).map((c) => c.output.expected_at), ['2026-10-25T02:00:00.000Z', '2026-10-27T02:00:00.000Z']);
});

t.test('cron across the spring DST change (Europe/Berlin, 29 Mar 2026: 02:30 does not exist)', async (t) => {
  const { sql, m, checks } = await setup(t, { cron: '30 2 * * *', timezone: 'Europe/Berlin', grace_s: 600 });
  // 28 Mar 02:30 CET = 01:30Z. On 29 Mar the clocks jump from 02:00 to 03:00: the firing moves to 03:00 CEST = 01:00Z.
  await recordCheckin(sql, m, ping, at('2026-03-28T01:30:05Z'));
  t.equal(await detectMissedHeartbeats(sql, at('2026-03-29T01:09:59Z')), 0);
  t.equal(await detectMissedHeartbeats(sql, at('2026-03-29T01:10:01Z')), 1, 'the skipped 02:30 fires at 03:00 CEST');
  t.equal(await detectMissedHeartbeats(sql, at('2026-03-30T00:40:01Z')), 1, 'then 02:30 CEST = 00:30Z');
  t.same((await checks()).filter((c) => !c.success).map((c) => c.output.expected_at), ['2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
});

t.test('editing the monitor restarts the wait; a paused monitor is never late', async (t) => {
  const { sql, m } = await setup(t, { period_s: 3600, grace_s: 60 });
  await recordCheckin(sql, m, ping, at('2026-11-20T10:00:00Z'));
  await sql`UPDATE monitors SET status = 'paused', revision = revision + 1 WHERE id = ${m.id}`;
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T15:00:00Z')), 0, 'paused');
  await sql`UPDATE monitors SET status = 'active', revision = revision + 1 WHERE id = ${m.id}`;
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T15:00:00Z')), 0, 'resumed: waits from now');
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T16:00:59Z')), 0);
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T16:01:01Z')), 1);
});

// Healthchecks.io: a job that checked in /start and then sent nothing is down once the grace has
// passed since the start, not only at the next expected check-in.
t.test('/start without a completion is down at start + grace, well before the period deadline', async (t) => {
  const { sql, m, checks } = await setup(t, { period_s: 86_400, grace_s: 600 });
  await recordCheckin(sql, m, ping, at('2026-11-20T00:00:00Z'));
  await recordCheckin(sql, m, { ...ping, kind: 'start' }, at('2026-11-20T03:00:00Z'));
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T03:09:59Z')), 0, 'within the grace of the start');
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T03:10:01Z')), 1, 'past start + grace: unfinished');
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T03:10:02Z')), 0, 'reported once');
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-21T00:09:59Z')), 0, 'the daily wait goes on');
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-21T00:10:01Z')), 1, 'and is missed past its own deadline');
  const list = await checks();
  t.same(list.map((c) => [c.scheduled_at.toISOString(), c.success, c.output.kind]), [
    ['2026-11-20T00:00:00.000Z', true, 'success'],
    ['2026-11-20T03:00:00.000Z', false, 'unfinished'],
    ['2026-11-21T00:00:00.000Z', false, 'missed'],
  ]);
  t.equal(list[1]!.error, 'started at 2026-11-20T03:00:00.000Z (/start check-in) and not finished within the grace of 600 s');
  t.match(list[1]!.output, { expected_at: '2026-11-20T03:00:00.000Z', deadline_at: '2026-11-20T03:10:00.000Z', last_checkin_at: '2026-11-20T00:00:00.000Z' });
});

t.test('a run that ends within the grace of its start is not unfinished; a second /start moves the deadline', async (t) => {
  const { sql, m, checks } = await setup(t, { period_s: 86_400, grace_s: 600 });
  await recordCheckin(sql, m, ping, at('2026-11-20T00:00:00Z'));
  await recordCheckin(sql, m, { ...ping, kind: 'start' }, at('2026-11-20T03:00:00Z'));
  await recordCheckin(sql, m, ping, at('2026-11-20T03:09:00Z'));
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T03:20:00Z')), 0, 'ended in time');
  await recordCheckin(sql, m, { ...ping, kind: 'start' }, at('2026-11-20T04:00:00Z'));
  await recordCheckin(sql, m, { ...ping, kind: 'start' }, at('2026-11-20T04:08:00Z'));
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T04:10:30Z')), 0, 'the later start counts');
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T04:18:01Z')), 1);
  await recordCheckin(sql, m, { ...ping, kind: 'start' }, at('2026-11-20T05:00:00Z'));
  await recordCheckin(sql, m, { ...ping, kind: 'exit_status', exit_status: 0 }, at('2026-11-20T05:04:00Z'));
  t.same((await checks()).map((c) => [c.scheduled_at.toISOString(), c.output.kind, c.output.duration_ms]), [
    ['2026-11-20T00:00:00.000Z', 'success', null],
    ['2026-11-20T03:09:00.000Z', 'success', 540_000],
    ['2026-11-20T04:08:00.000Z', 'unfinished', null],
    ['2026-11-20T05:04:00.000Z', 'success', 240_000],
  ]);
});

t.test('a run started before the monitor was paused is forgotten with its wait; a /start after an edit counts', async (t) => {
  const { sql, m, checks } = await setup(t, { period_s: 86_400, grace_s: 600 });
  await recordCheckin(sql, m, ping, at('2026-11-20T00:00:00Z'));
  await recordCheckin(sql, m, { ...ping, kind: 'start' }, at('2026-11-20T03:00:00Z'));
  await sql`UPDATE monitors SET status = 'paused', revision = revision + 1 WHERE id = ${m.id}`;
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T03:30:00Z')), 0, 'paused');
  await sql`UPDATE monitors SET status = 'active', revision = revision + 1 WHERE id = ${m.id}`;
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T04:00:00Z')), 0, 'resumed: the old run is not reported');
  // Edited (revision bumped) and a run starts before the detector has seen the change.
  await sql`UPDATE monitors SET revision = revision + 1 WHERE id = ${m.id}`;
  const [current] = await sql<{ revision: number }[]>`SELECT revision::int AS revision FROM monitors WHERE id = ${m.id}`;
  await recordCheckin(sql, { ...m, revision: current!.revision }, { ...ping, kind: 'start' }, at('2026-11-20T05:00:00Z'));
  t.equal(await detectMissedHeartbeats(sql, at('2026-11-20T05:10:01Z')), 1, 'that run is unfinished at its start + grace');
  t.same((await checks()).filter((c) => !c.success).map((c) => [c.scheduled_at.toISOString(), c.output.kind]), [['2026-11-20T05:00:00.000Z', 'unfinished']]);
});
