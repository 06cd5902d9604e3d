import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { decidePass } from '../checks/decide.js';
import { createCheckHooks } from '../checks/hooks.js';
import { webhookStateEvents } from '../checks/webhook-events.js';
import { startReceiver } from '../delivery/test-support.js';
import { hashHeartbeatToken } from '../monitors/heartbeat.js';
import { findMonitorByHeartbeatHash } from '../monitors/monitors.db.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { recordCheckin } from './heartbeat-checkin.js';
import { detectMissedHeartbeats } from './heartbeat-job.js';

/*
 * A heartbeat monitor has no node: its down verdict must still reach webhook receivers. A real
 * app and delivery worker, a real HTTP receiver on loopback checking the Standard Webhooks
 * signature, the real detector and verdict job on a chosen clock.
 */

t.test('a missed check-in sends monitor.down (no node: node_id null) and the next check-in monitor.up', async (t) => {
  const { app, sql, deps } = await testApp(t, { config: { delivery_allow_cidrs: ['127.0.0.0/8'], delivery_poll_interval_ms: 50 }, delivery: true });
  const u = await registerUser(app);
  const rx = await startReceiver(t);
  const endpoint = await call(app, 'POST', '/v1/webhook-endpoints', { token: u.access_token, body: { url: rx.url, events: ['monitor.down', 'monitor.up'] } });
  t.equal(endpoint.status, 201);
  const created = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'nightly backup', type: 'heartbeat', config: { period_s: 3600, grace_s: 600 } } });
  t.equal(created.status, 201);
  const m = (await findMonitorByHeartbeatHash(sql, hashHeartbeatToken(created.body.data.heartbeat.token)))!;

  const hooks = createCheckHooks();
  hooks.onStatePass(webhookStateEvents(deps.events));
  const t0 = new Date(Date.now() - 3 * 3600_000);
  const ping = { kind: 'success' as const, exit_status: null, method: 'GET' as const, source_ip: '127.0.0.1', user_agent: null, body: null };
  await recordCheckin(sql, m, ping, t0);
  await decidePass({ sql, hooks });
  t.equal(await detectMissedHeartbeats(sql, new Date(t0.getTime() + 3600_000 + 601_000)), 1, 'the missed check-in is stored');
  await decidePass({ sql, hooks });

  const verify = (i: number) => {
    const r = rx.received[i]!;
    return new Webhook(endpoint.body.data.secret).verify(r.body, {
      'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']),
    }) as { type: string; data: any };
  };
  await rx.waitFor(1);
  const down = verify(0);
  t.equal(down.type, 'monitor.down');
  t.match(down.data, { monitor: { id: m.id, type: 'heartbeat', name: 'nightly backup' }, status: 'down', previous_status: 'up' });
  t.same(down.data.failing_nodes, [{ node_id: null, country: null, error: `no check-in since ${t0.toISOString()}: expected at ${new Date(t0.getTime() + 3600_000).toISOString()}, grace 600 s` }],
    'the control plane checked it: no node');

  await recordCheckin(sql, m, ping, new Date(t0.getTime() + 2 * 3600_000));
  await decidePass({ sql, hooks });
  await rx.waitFor(2);
  t.match(verify(1), { type: 'monitor.up', data: { monitor: { id: m.id }, status: 'up', previous_status: 'down', failing_nodes: [] } });
});

t.test('heartbeat.missed: one per missed deadline, sent once however often the detector runs', async (t) => {
  const { app, sql, deps } = await testApp(t, { config: { delivery_allow_cidrs: ['127.0.0.0/8'], delivery_poll_interval_ms: 50 }, delivery: true });
  const u = await registerUser(app);
  const rx = await startReceiver(t);
  const endpoint = await call(app, 'POST', '/v1/webhook-endpoints', { token: u.access_token, body: { url: rx.url, events: ['heartbeat.missed'] } });
  t.equal(endpoint.status, 201);
  const created = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'cron job', type: 'heartbeat', config: { period_s: 3600, grace_s: 600 } } });
  t.equal(created.status, 201);
  const m = (await findMonitorByHeartbeatHash(sql, hashHeartbeatToken(created.body.data.heartbeat.token)))!;
  const verify = (i: number) => {
    const r = rx.received[i]!;
    return new Webhook(endpoint.body.data.secret).verify(r.body, {
      'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']),
    }) as { id: string; type: string; timestamp: string; data: any };
  };
  const queued = async () => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM deliveries WHERE event_type = 'heartbeat.missed'`)[0]!.n;

  const t0 = new Date(Date.now() - 5 * 3600_000);
  const ping = { kind: 'success' as const, exit_status: null, method: 'GET' as const, source_ip: '127.0.0.1', user_agent: null, body: null };
  await recordCheckin(sql, m, ping, t0);
  const late = new Date(t0.getTime() + 3600_000 + 601_000);
  t.equal(await detectMissedHeartbeats(sql, late, deps.events), 1, 'the missed check-in is stored');
  t.equal(await detectMissedHeartbeats(sql, late, deps.events), 0, 'a second pass at the same time stores nothing');
  t.equal(await queued(), 1, 'and queues no second event');
  await rx.waitFor(1);
  const first = verify(0);
  t.match(first, {
    type: 'heartbeat.missed', timestamp: new Date(t0.getTime() + 3600_000 + 600_000).toISOString(),
    data: { monitor: { id: m.id, name: 'cron job', type: 'heartbeat' }, last_ping_at: t0.toISOString(), expected_at: new Date(t0.getTime() + 3600_000).toISOString() },
  }, 'signed, with the last check-in and the expected one; timestamped at the deadline');

  t.equal(await detectMissedHeartbeats(sql, new Date(t0.getTime() + 2 * 3600_000 + 601_000), deps.events), 1, 'the next period is missed too');
  await rx.waitFor(2);
  t.match(verify(1), { type: 'heartbeat.missed', data: { monitor: { id: m.id }, last_ping_at: t0.toISOString(), expected_at: new Date(t0.getTime() + 2 * 3600_000).toISOString() } });
  t.not(verify(1).id, first.id, 'a new event for the new deadline');
  t.equal(await queued(), 2);
});
