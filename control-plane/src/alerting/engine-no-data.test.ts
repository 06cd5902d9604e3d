import t from 'tap';
import { loadConfig } from '../config/index.js';
import { createLogger } from '../log.js';
import { createResultSink } from '../probes/sink.js';
import { testDatabase } from '../test-support/db.js';
import { decidePass } from '../checks/decide.js';
import { sweepSilentRounds } from '../checks/decide-silent.js';
import { createCheckStore } from '../checks/ingest.js';
import { httpResult, roundAt } from '../checks/test-support.js';
import { alertEnginePass } from './engine.js';
import { seedWorld } from './engine-fixtures.js';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * A monitor no node reports any more: real rounds swept empty and judged no_data, then the
 * engine's pass on the wall clock. Policies notify on no_data unless `notify_on_no_data` is off.
 */

t.test('no_data fires an event of type no_data (policy option, on by default) and resolves when a round reports again', async (t) => {
  const { sql } = await testDatabase(t);
  const grace_ms = 1000;
  const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: grace_ms });
  const sink = createResultSink({ sql, log: createLogger('silent'), config, checks: createCheckStore({ config }) });
  const on = await seedWorld(sql);
  const off = await seedWorld(sql, {}, { user_id: on.user_id, first: on.first });
  await sql`UPDATE alert_policies SET notify_on_no_data = false WHERE id = ${off.policy_id}`;
  t.same((await sql`SELECT notify_on_no_data FROM alert_policies WHERE id = ${on.policy_id}`)[0], { notify_on_no_data: true }, 'on by default');

  // Neither monitor's node reports: the last hour's rounds are swept empty and judged.
  await sweepSilentRounds(sql, null, grace_ms);
  while ((await decidePass({ sql })).monitors > 0);
  for (const w of [on, off]) t.equal((await sql`SELECT state FROM monitors WHERE id = ${w.monitor_id}`)[0]!.state, 'no_data');

  await alertEnginePass(on.deps, new Date());
  const events = await sql`SELECT policy_id, type, status, metadata FROM alert_events WHERE user_id = ${on.user_id}`;
  t.match(events, [{ policy_id: on.policy_id, type: 'no_data', status: 'firing', metadata: { reason: /^no node reported for 2 rounds in a row/ } }], 'only the policy that notifies on no_data fires');
  t.match(await on.sent(), ['0:first:firing'], 'its channel is paged');

  // The node reports again: the first round with a report leaves no_data and the event resolves.
  const m = { monitor_id: on.monitor_id, interval_s: 60 };
  const node = (await sql`SELECT node_id FROM monitor_placements WHERE monitor_id = ${on.monitor_id}`)[0]!.node_id as string;
  await sink.ingest(node, [httpResult(on.monitor_id, roundAt(m, 0))]);
  await sql`UPDATE check_rounds SET deadline_at = now() - interval '1 second' WHERE monitor_id = ${on.monitor_id} AND dirty`;
  while ((await decidePass({ sql })).monitors > 0);
  t.equal((await sql`SELECT state FROM monitors WHERE id = ${on.monitor_id}`)[0]!.state, 'up');
  await alertEnginePass(on.deps, new Date());
  t.match(await sql`SELECT type, status FROM alert_events WHERE policy_id = ${on.policy_id}`, [{ type: 'no_data', status: 'resolved' }]);
  t.match(await on.sent(), ['0:first:firing', '0:first:resolved']);
});

t.test('no_data then a failing report: the no_data event resolves and the outage pages on its own', async (t) => {
  const { sql } = await testDatabase(t);
  const grace_ms = 1000;
  const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: grace_ms });
  const sink = createResultSink({ sql, log: createLogger('silent'), config, checks: createCheckStore({ config }) });
  const w = await seedWorld(sql);
  await sweepSilentRounds(sql, null, grace_ms);
  while ((await decidePass({ sql })).monitors > 0);
  await alertEnginePass(w.deps, new Date());
  t.match(await sql`SELECT type, status FROM alert_events WHERE policy_id = ${w.policy_id}`, [{ type: 'no_data', status: 'firing' }]);

  // The node reports again, and its check fails: the monitor is down, not without data.
  const node = (await sql`SELECT node_id FROM monitor_placements WHERE monitor_id = ${w.monitor_id}`)[0]!.node_id as string;
  await sink.ingest(node, [httpResult(w.monitor_id, roundAt({ monitor_id: w.monitor_id, interval_s: 60 }, 0), { success: false })]);
  await sql`UPDATE check_rounds SET deadline_at = now() - interval '1 second' WHERE monitor_id = ${w.monitor_id} AND dirty`;
  while ((await decidePass({ sql })).monitors > 0);
  t.equal((await sql`SELECT state FROM monitors WHERE id = ${w.monitor_id}`)[0]!.state, 'down');
  // One pass: the no_data event resolves and the outage's event opens and pages in it (not a pass,
  // up to an interval, later: no NOTIFY comes between the two).
  await alertEnginePass(w.deps, new Date());
  t.match(await sql`SELECT type, status FROM alert_events WHERE policy_id = ${w.policy_id} ORDER BY fired_at`,
    [{ type: 'no_data', status: 'resolved' }, { type: 'down', status: 'firing' }], 'the outage is not hidden behind the no_data event');
  t.match(await w.sent(), ['0:first:firing', '0:first:resolved', '0:first:firing']);
});

t.test('policy API: notify_on_no_data defaults to true, is patched and read back; a bad value changes nothing', async (t) => {
  const ctx = await testApp(t);
  const a = await registerUser(ctx.app);
  const req = (method: string, path: string, body?: unknown) => call(ctx.app, method, path, { token: a.access_token, body });
  const m = await req('POST', '/v1/monitors', { name: 'Nightly backup', type: 'heartbeat', config: { cron: '0 3 * * *', timezone: 'Europe/Paris', grace_s: 900 } });
  t.equal(m.status, 201, JSON.stringify(m.body));
  const created = await req('POST', '/v1/alert-policies', { name: 'silence', monitor_id: m.body.data.id });
  t.equal(created.status, 201, JSON.stringify(created.body));
  t.equal(created.body.data.notify_on_no_data, true, 'on by default');
  const id = created.body.data.id as string;
  const bad = await req('PATCH', `/v1/alert-policies/${id}`, { notify_on_no_data: 'no' });
  t.match(bad, { status: 400, body: { error: { code: 'VALIDATION_FAILED', details: { fields: [{ path: 'notify_on_no_data' }] } } } });
  t.equal((await req('GET', `/v1/alert-policies/${id}`)).body.data.notify_on_no_data, true, 'a bad value changed nothing');
  const off = await req('PATCH', `/v1/alert-policies/${id}`, { notify_on_no_data: false });
  t.equal(off.body.data.notify_on_no_data, false, 'patched');
  t.equal((await req('GET', `/v1/alert-policies/${id}`)).body.data.notify_on_no_data, false, 'read back');
  t.equal((await ctx.sql`SELECT notify_on_no_data FROM alert_policies WHERE id = ${id}`)[0]!.notify_on_no_data, false, 'stored');
});
