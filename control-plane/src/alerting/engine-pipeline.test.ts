import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { roundAt } from '../checks/test-support.js';
import { eventually, type Received } from '../delivery/test-support.js';
import { alertEnginePass } from './engine.js';
import { startAlertPipeline, WEBHOOK_SECRET } from './pipeline-fixtures.js';

/*
 * The alert path end to end with nothing written by hand: nodes' results handed to the result
 * sink, the verdict job judging rounds and moving monitor state, the alert engine opening and
 * resolving events, the delivery worker posting signed webhooks to a real receiver on loopback.
 * Policies are made through the API.
 */

const body = (r: Received) => JSON.parse(r.body) as { type: string; data: { monitor: { id: string } | null; severity: string; event_id: string; body: string } };
const of = (rx: Received[], monitor_id: string, type: string) => rx.filter((r) => { const b = body(r); return b.type === type && b.data.monitor?.id === monitor_id; });

t.test('results → verdict job → monitor state → alert engine → delivery → receiver', async (t) => {
  const p = await startAlertPipeline(t, { config: { checks_decide_interval_ms: 100, checks_round_grace_ms: 600_000, delivery_poll_interval_ms: 100 }, engine_interval_ms: 200 });
  const a = await p.monitor({ nodes: 1, name: 'checkout API', policy: { recovery_n: 2 } });
  const [r1, r2, r3] = [roundAt(a, -2), roundAt(a, -1), roundAt(a, 0)];
  const state = async (id: string) => (await p.ctx.sql`SELECT state FROM monitors WHERE id = ${id}`)[0]!.state as string;
  const events = (id: string) => p.ctx.sql`SELECT id, status, type, metadata FROM alert_events WHERE monitor_id = ${id}`;

  await p.report(a, r1, 1);
  await eventually('first round judged down', async () => (await state(a.monitor_id)) === 'down' || null);
  await alertEnginePass({ sql: p.ctx.sql, config: p.ctx.deps.config }, new Date());
  t.equal((await events(a.monitor_id)).length, 0, 'one failed round of recovery_n 2: no event');

  await p.report(a, r2, 1);
  const [trigger] = await eventually('the page', () => { const x = of(p.receiver.received, a.monitor_id, 'alert.trigger'); return x.length ? x : null; });
  const verified = new Webhook(WEBHOOK_SECRET).verify(trigger!.body, trigger!.headers as Record<string, string>) as ReturnType<typeof body>;
  t.equal(verified.type, 'alert.trigger', 'signed per Standard Webhooks');
  t.equal(verified.data.severity, 'critical');
  t.match(verified.data.body, /checkout API/);
  t.match(verified.data.body, /connection refused/, 'the reason the verdict job recorded');
  const [event] = await events(a.monitor_id);
  t.match(event, { status: 'firing', type: 'down', id: verified.data.event_id });

  await p.report(a, r3, 0);
  const [resolve] = await eventually('the resolution', () => { const x = of(p.receiver.received, a.monitor_id, 'alert.resolve'); return x.length ? x : null; });
  t.equal(body(resolve!).data.event_id, event!.id);
  t.equal((await events(a.monitor_id))[0]!.status, 'resolved');
  t.equal(of(p.receiver.received, a.monitor_id, 'alert.trigger').length, 1, 'paged once');
});

t.test('a degraded round pages only where the policy fires on degraded', async (t) => {
  const p = await startAlertPipeline(t, { config: { checks_decide_interval_ms: 100, checks_round_grace_ms: 600_000, delivery_poll_interval_ms: 100 }, engine_interval_ms: 200 });
  const nodes = await p.nodes(2);
  const fires = await p.monitor({ nodes, name: 'fires on degraded', policy: { fire_on_degraded: true } });
  const quiet = await p.monitor({ nodes, name: 'down only' });
  // One of two nodes fails: under the default quorum (2 of 2) the round is degraded.
  await p.report(fires, roundAt(fires, -1), 1);
  await p.report(quiet, roundAt(quiet, -1), 1);
  const [page] = await eventually('the degraded page', () => { const x = of(p.receiver.received, fires.monitor_id, 'alert.trigger'); return x.length ? x : null; });
  t.equal(body(page!).data.severity, 'warning');
  await eventually('the other monitor degraded too', async () => (await p.ctx.sql`SELECT state FROM monitors WHERE id = ${quiet.monitor_id}`)[0]!.state === 'degraded' || null);
  await alertEnginePass({ sql: p.ctx.sql, config: p.ctx.deps.config }, new Date());
  t.match(await p.ctx.sql`SELECT type, status FROM alert_events WHERE monitor_id = ${fires.monitor_id}`, [{ type: 'degraded', status: 'firing' }]);
  t.equal((await p.ctx.sql`SELECT 1 FROM alert_events WHERE monitor_id = ${quiet.monitor_id}`).length, 0, 'fire_on_degraded false: no event');
  t.equal(of(p.receiver.received, quiet.monitor_id, 'alert.trigger').length, 0, 'and no page');
});

t.test('a monitor going down wakes the engine: the page does not wait for its next tick', async (t) => {
  // After its first pass at start the engine would next run in 10 minutes: only the wake can page in time.
  const p = await startAlertPipeline(t, { config: { checks_decide_interval_ms: 100, checks_round_grace_ms: 600_000, delivery_poll_interval_ms: 100 }, engine_interval_ms: 600_000 });
  const m = await p.monitor({ nodes: 1, name: 'woken' });
  await p.report(m, roundAt(m, -1), 1);
  await eventually('the page', () => of(p.receiver.received, m.monitor_id, 'alert.trigger').length || null, 60_000);
  await p.report(m, roundAt(m, 0), 0);
  await eventually('the resolution', () => of(p.receiver.received, m.monitor_id, 'alert.resolve').length || null, 60_000);
  t.pass('paged and resolved on wake-ups');
});

t.test('an alert group\'s message goes out when its wait ends, not at the engine\'s next tick', async (t) => {
  // The engine's interval is 10 minutes: the wake opens the event and joins the batch; only the
  // pass planned for the batch's flush_at (engine.ts startAlertEngine) can send it within the bound.
  const p = await startAlertPipeline(t, { config: { checks_decide_interval_ms: 100, checks_round_grace_ms: 600_000, delivery_poll_interval_ms: 100 }, engine_interval_ms: 600_000 });
  await p.api('POST', '/v1/alert-groups', { name: 'edge', group_by: 'monitor_prefix', group_value: 'edge-', wait_seconds: 2 });
  const nodes = await p.nodes(1);
  const ms = [await p.monitor({ nodes, name: 'edge-1' }), await p.monitor({ nodes, name: 'edge-2' })];
  for (const m of ms) await p.report(m, roundAt(m, -1), 1);
  const [message] = await eventually('the grouped message', () => (p.receiver.received.length ? p.receiver.received : null), 60_000);
  const [batch] = await p.ctx.sql<Array<{ flush_at: Date; flushed_at: Date; monitors: number }>>`SELECT flush_at, flushed_at, monitors FROM alert_group_batches ORDER BY flushed_at NULLS LAST, id LIMIT 1`;
  t.ok(batch!.flushed_at.getTime() - batch!.flush_at.getTime() < 30_000, `flushed ${batch!.flushed_at.getTime() - batch!.flush_at.getTime()} ms after its wait ended`);
  t.equal((JSON.parse(message!.body) as { data: { group: { monitors: unknown[] } } }).data.group.monitors.length, batch!.monitors, 'the message lists the batch\'s monitors');
});
