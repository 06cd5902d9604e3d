import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * The public check-in endpoint against a real app and database: variants, the stored checks,
 * the kept body, unknown and rotated tokens, the per-token limit.
 */

async function heartbeatMonitor(app: Parameters<typeof registerUser>[0], config: Record<string, unknown> = { period_s: 3600, grace_s: 600 }) {
  const u = await registerUser(app);
  const { body } = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'backup', type: 'heartbeat', config } });
  return { user: u, id: body.data.id as string, token: body.data.heartbeat.token as string };
}

const checksOf = (sql: any, id: string) => sql`
  SELECT c.success, c.error, c.error_class, c.output FROM checks c JOIN check_series s ON s.id = c.series_id
  WHERE s.monitor_id = ${id} AND s.node_id IS NULL ORDER BY c.scheduled_at`;

t.test('check-in variants store checks; the body is kept to 10 KB', async (t) => {
  const { app, sql } = await testApp(t);
  const m = await heartbeatMonitor(app);

  let res = await app.request(`/v1/heartbeat/${m.token}`);
  t.equal(res.status, 200);
  t.equal(await res.text(), 'OK');

  res = await app.request(`/v1/heartbeat/${m.token}/start`, { method: 'POST', headers: { accept: 'application/json' } });
  t.same(((await res.json()) as any).data, { ok: true, kind: 'start', ignored: false });
  const big = 'x'.repeat(12_000);
  res = await app.request(`/v1/heartbeat/${m.token}/3`, { method: 'POST', headers: { 'content-type': 'text/plain', 'user-agent': 'cron-job/1' }, body: `log:${big}` });
  t.equal(res.status, 200);
  res = await app.request(`/v1/heartbeat/${m.token}/fail`, { method: 'HEAD' });
  t.equal(res.status, 200);
  res = await app.request(`/v1/heartbeat/${m.token}/0`, { method: 'POST', body: 'done' });
  t.equal(res.status, 200);

  const checks = await checksOf(sql, m.id);
  t.equal(checks.length, 4, 'start stores no check; the other four do');
  t.match(checks[0], { success: true, output: { kind: 'success', method: 'GET', body: null, duration_ms: null } });
  t.match(checks[1], { success: false, error: 'the job exited with status 3', error_class: 'target', output: { kind: 'exit_status', exit_status: 3, method: 'POST', user_agent: 'cron-job/1', body_truncated: true } });
  t.equal(checks[1].output.body.length, 10_240, 'first 10 KB of the body');
  t.ok(checks[1].output.body.startsWith('log:x'));
  t.type(checks[1].output.duration_ms, 'number', 'duration measured from /start');
  t.match(checks[2], { success: false, output: { kind: 'fail', method: 'HEAD' } });
  t.match(checks[3], { success: true, output: { kind: 'success', exit_status: 0, body: 'done', duration_ms: null } });
  const [state] = await sql`SELECT deadline_at, last_checkin_at FROM heartbeat_state WHERE monitor_id = ${m.id}`;
  t.equal(state!.deadline_at.getTime() - state!.last_checkin_at.getTime(), (3600 + 600) * 1000, 'next check-in expected a period after the last one, plus the grace');
});

t.test('a check-in counts whatever its body: NUL, bytes that are not UTF-8, any type, any size; kept sanitised', async (t) => {
  const { app, sql, url } = await testApp(t);
  const m = await heartbeatMonitor(app);
  const post = (path: string, body: Uint8Array | string, type: string) => fetch(`${url}/v1/heartbeat/${m.token}${path}`, { method: 'POST', headers: { 'content-type': type }, body });
  const raw = new Uint8Array([...Buffer.from('ok\0tail '), 0xff, 0xfe, 0xc3, ...Buffer.from(' end')]);
  const sent = [
    await post('', raw, 'text/plain'),
    await post('/1', raw, 'application/octet-stream'),
    await post('/0', '{"log":"a\\u0000b","bad":"\\ud800"}', 'application/json'),
    await post('', raw, 'application/json; charset=utf-8'),
    // Over the 32 KB request limit of other routes, with a NUL and a 3-byte character across the 10 KB cut.
    await post('/fail', Buffer.concat([Buffer.from('x\0'), Buffer.alloc(10_236, 'y'), Buffer.from('€'), Buffer.alloc(40_000, 'z')]), 'text/plain'),
  ];
  t.same(sent.map((r) => r.status), [200, 200, 200, 200, 200], 'every check-in is answered 200');
  t.same(await Promise.all(sent.map((r) => r.text())), ['OK', 'OK', 'OK', 'OK', 'OK']);
  const checks = await checksOf(sql, m.id);
  t.same(checks.map((c: any) => [c.success, c.output.kind]), [[true, 'success'], [false, 'exit_status'], [true, 'success'], [true, 'success'], [false, 'fail']], 'all five counted');
  const sanitised = 'ok\uFFFDtail \uFFFD\uFFFD\uFFFD end';
  t.same(checks.slice(0, 2).map((c: any) => [c.output.body, c.output.body_truncated]), [[sanitised, false], [sanitised, false]], 'NUL and malformed UTF-8 replaced by U+FFFD');
  t.equal(checks[2].output.body, '{"log":"a\\u0000b","bad":"\\ud800"}', 'a JSON body is kept as text, not parsed');
  t.equal(checks[3].output.body, sanitised);
  t.equal(checks[4].output.body, `x\uFFFD${'y'.repeat(10_236)}`, 'the first 10 KB, the character cut at the limit dropped');
  t.equal(checks[4].output.body_truncated, true);
  t.equal((await post('', 'x', 'text/plain')).status, 200);
  t.equal((await fetch(`${url}/v1/heartbeat/${m.token}/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":"\\u0000"}' })).status, 200, '/start with any body');
});

t.test('unknown, malformed and rotated tokens; bad variants', async (t) => {
  const { app, sql } = await testApp(t);
  const m = await heartbeatMonitor(app);
  let res = await app.request('/v1/heartbeat/hb_doesnotexist0000000000000000000');
  t.equal(res.status, 404);
  t.equal(((await res.json()) as any).error.code, 'NOT_FOUND');
  res = await app.request(`/v1/heartbeat/${m.token}/256`);
  t.equal(res.status, 400, 'exit status above 255');
  res = await app.request(`/v1/heartbeat/${m.token}/other`);
  t.equal(res.status, 400);

  const rotated = await call(app, 'POST', `/v1/monitors/${m.id}/heartbeat/rotate`, { token: m.user.access_token });
  t.equal(rotated.status, 200);
  res = await app.request(`/v1/heartbeat/${m.token}`);
  t.equal(res.status, 404, 'the old token stops working at once');
  res = await app.request(`/v1/heartbeat/${rotated.body.data.token}`);
  t.equal(res.status, 200, 'the new one works');
  t.equal((await checksOf(sql, m.id)).length, 1);

  await call(app, 'POST', `/v1/monitors/${m.id}/pause`, { token: m.user.access_token });
  res = await app.request(`/v1/heartbeat/${rotated.body.data.token}`, { headers: { accept: 'application/json' } });
  t.same(((await res.json()) as any).data, { ok: true, kind: 'success', ignored: true }, 'a paused monitor answers but records nothing');
  t.equal((await checksOf(sql, m.id)).length, 1);
});

t.test('per-token limit: 60 a minute, then 429 with Retry-After', async (t) => {
  const { app } = await testApp(t);
  const a = await heartbeatMonitor(app);
  const b = await heartbeatMonitor(app);
  const statuses: number[] = [];
  let last: Response | undefined;
  for (let i = 0; i < 61; i++) {
    last = await app.request(`/v1/heartbeat/${a.token}/start`);
    statuses.push(last.status);
  }
  // The window may roll over between the requests on a slow machine: then all 61 pass.
  if (statuses[60] === 429) {
    t.same(statuses.slice(0, 60), Array(60).fill(200));
    t.equal(((await last!.json()) as any).error.code, 'RATE_LIMIT_EXCEEDED');
    t.ok(Number(last!.headers.get('retry-after')) >= 1);
  } else t.same(statuses.filter((s) => s !== 200), []);
  t.equal((await app.request(`/v1/heartbeat/${b.token}`)).status, 200, 'another token has its own limit');
});
