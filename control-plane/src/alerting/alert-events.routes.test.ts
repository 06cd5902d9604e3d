import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';
import { lateOutageListener } from './engine-hook.js';
import { at, seedWorld } from './engine-fixtures.js';

/* /v1/alert-events: list with filters and paging, read, ack and resolve; another account's ids are 404; late outages page nobody. */

t.test('alert events API', async (t) => {
  const ctx = await testApp(t);
  const a = await registerUser(ctx.app);
  const b = await registerUser(ctx.app);
  const req = (who: { access_token: string }, method: string, path: string) => call(ctx.app, method, path, { token: who.access_token });

  const w = await seedWorld(ctx.sql, { levels: [300] }, { user_id: a.user_id });
  await w.round(0, 'down');
  await w.pass(0);
  const [event] = await w.events();

  const listed = await req(a, 'GET', '/v1/alert-events?status=firing&page_size=1');
  t.equal(listed.status, 200);
  t.match(listed.body.data, { total: 1, page: 1, page_size: 1, has_more: false, items: [{ id: event!.id, status: 'firing', monitor_id: w.monitor_id, type: 'down' }] });
  t.equal((await req(a, 'GET', '/v1/alert-events?status=resolved')).body.data.total, 0, 'status filter');
  t.equal((await req(a, 'GET', `/v1/alert-events?from=${at(60).toISOString()}`)).body.data.total, 0, 'from bounds started_at');
  t.equal((await req(a, 'GET', '/v1/alert-events?status=bogus')).status, 400, 'bad filter is 400');

  // Another account sees nothing and cannot act.
  t.equal((await req(b, 'GET', '/v1/alert-events')).body.data.total, 0);
  for (const [method, path] of [['GET', ''], ['POST', '/ack'], ['POST', '/resolve']] as const) {
    const r = await req(b, method, `/v1/alert-events/${event!.id}${path}`);
    t.equal(r.status, 404, `${method} ${path || '/'} of another account's event is 404`);
    t.equal(r.body.error.code, 'NOT_FOUND');
  }
  t.equal((await req(a, 'GET', '/v1/alert-events/ae_nope')).status, 404);

  const acked = await req(a, 'POST', `/v1/alert-events/${event!.id}/ack`);
  t.match(acked.body.data, { status: 'acknowledged', acknowledged_by: a.user_id, next_notification_at: null });
  t.equal((await req(a, 'POST', `/v1/alert-events/${event!.id}/ack`)).status, 200, 'ack again changes nothing');
  const resolved = await req(a, 'POST', `/v1/alert-events/${event!.id}/resolve`);
  t.match(resolved.body.data, { status: 'resolved', resolved_by: a.user_id });
  t.equal((await req(a, 'POST', `/v1/alert-events/${event!.id}/ack`)).status, 409, 'a resolved event cannot be acknowledged');
  const detail = await req(a, 'GET', `/v1/alert-events/${event!.id}`);
  t.same(detail.body.data.notifications.map((n: { level: number; kind: string }) => `${n.level}:${n.kind}`), ['0:firing', '0:acknowledged', '0:resolved']);
});

t.test('an outage learnt late and already over is recorded resolved, nobody paged', async (t) => {
  const ctx = await testApp(t);
  const w = await seedWorld(ctx.sql, {});
  const change = (from: string, to: string, s: number) => ({
    id: '1', monitor_id: w.monitor_id, from_state: from, to_state: to, changed_at: at(s).toISOString(), recorded_at: at(900).toISOString(),
    source: 'verdict', late: true, reason: to === 'down' ? 'timeout on 1 of 1 nodes' : null, failing_nodes: [], round_at: at(s).toISOString(),
  });
  await ctx.sql.begin((tx) => lateOutageListener()([{
    monitor: { id: w.monitor_id, user_id: w.user_id, name: 'm', type: 'http', target: 'https://example.com/' },
    previous_state: 'up', state: 'up', changes: [change('up', 'down', 0), change('down', 'up', 120)] as never,
  }], tx));
  await w.pass(900);
  t.match(await w.events(), [{ status: 'resolved', suppressed: 'late' }]);
  t.same(await w.sent(), [], 'no notification');
});
