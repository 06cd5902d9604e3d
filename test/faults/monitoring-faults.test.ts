import t, { type Test } from 'tap';
import { roundPhaseMs } from '@vantage/shared-protocol';
import { allChecks, ROUND_S, startMonitoringNetwork, until, webhookSecret, type MonitoringNetwork } from '../e2e/monitoring.js';
import { dedupe } from '../e2e/receivers.js';
import { startOwnPostgres } from './postgres.js';

/**
 * Monitoring under faults on the e2e test network (four installed agents, monitors on three of
 * them; the control plane on a Postgres of the test's own, which the last fault restarts), each
 * fault ending with its count: rounds expected from the schedule vs rounds stored,
 * notifications expected vs received, duplicates. docs/architecture/faults.md "Monitoring".
 *
 * Shortened for the suite's time budget (documented there): the control plane stays down 60 s
 * (VANTAGE_FAULT_CP_DOWN_S, default 60; the scenario's 3 minutes with 180) and the receiver 45 s
 * (VANTAGE_FAULT_RECEIVER_DOWN_S) instead of 10 minutes; delivery retries come every few seconds
 * (VANTAGE_DELIVERY_RETRY_DELAYS_MS) so the retry after the outage is not hours away.
 */

const CP_DOWN_S = Number(process.env.VANTAGE_FAULT_CP_DOWN_S ?? 60);
const RECEIVER_DOWN_S = Number(process.env.VANTAGE_FAULT_RECEIVER_DOWN_S ?? 45);
const POSTGRES_DOWN_S = 15;
// Longer than the control plane's outage plus the agents' reconnect backoff (at most 60 s), so
// the outage itself moves nothing; the node-lost fault waits it out.
const GRACE_S = CP_DOWN_S + 90;

if (process.getuid?.() !== 0) {
  t.plan(0, 'monitoring fault tests need root (network namespaces, agents installed as nobody)');
} else {
  t.setTimeout(1_500_000);
  // One parent test holds the network: setup awaits between subtests cannot let tap end it early.
  t.test('monitoring faults on the e2e test network', { timeout: 1_450_000 }, (t) => run(t));
}

type Monitor = { id: string; name: string; node_ids: string[]; state: string };

async function run(t: Test): Promise<void> {
  // Postgres of the test's own (the fifth fault restarts it; the shared one serves everyone).
  const pg = await startOwnPostgres();
  t.teardown(() => pg.destroy());
  const m: MonitoringNetwork = await startMonitoringNetwork(t, {
    VANTAGE_PLACEMENT_GRACE_MS: String(GRACE_S * 1000),
    VANTAGE_DELIVERY_RETRY_DELAYS_MS: '1000,2000,3000,5000,5000,5000,5000,5000,5000,5000,5000,5000,5000,5000,5000,5000,5000,5000,5000,5000',
    // No rebalancing onto the spare node: only a lost node may move a monitor.
    VANTAGE_PLACEMENT_REBALANCE_INTERVAL_MS: '0',
  }, { agent_count: 4, admin_url: pg.url });
  const { net, api } = m;
  const T = net.targets;
  const spare = net.nodes[3]!;
  const placed = net.nodes.slice(0, 3).map((n) => n.id).sort();

  // The channel and endpoint every fault counts on.
  const secret = webhookSecret();
  m.webhook.setSecret('/channel', secret);
  const channel = await api<{ id: string }>('POST', '/v1/alert-channels', { name: 'hook', type: 'webhook', config: { url: `${m.webhook.origin}/channel`, secret } });
  const endpoint = await api<{ endpoint: { id: string }; secret: string }>('POST', '/v1/webhook-endpoints', { url: `${m.webhook.origin}/endpoint`, events: ['monitor.down', 'monitor.up', 'alert.firing', 'alert.resolved'] });
  m.webhook.setSecret('/endpoint', endpoint.secret);

  // Monitors on a0-a2 only: placed (node_count 3) while the spare a3's agent is stopped; with
  // rebalancing off, only a lost node can move them there later.
  await net.killAgent(3);
  await net.waitStatus('offline', [spare.id]);
  const create = (name: string, type: string, target: string, config: object = {}) =>
    api<Monitor>('POST', '/v1/monitors', { name, type, target, interval_s: ROUND_S, node_count: 3, config });
  const monitors: Monitor[] = [
    await create('f-tcp', 'tcp', T.tcp_open, { timeout_ms: 2000 }),
    await create('f-dns', 'dns', T.same.name, { server: T.dns_server, timeout_ms: 2000 }),
    await create('f-web', 'http', `${T.http_origin}/`, { timeout_ms: 2000 }),
  ];
  for (const x of monitors) t.same([...x.node_ids].sort(), placed, `${x.name} on a0-a2`);
  await net.startAgent(3);
  await net.waitOnline([spare.id]);
  await Promise.all(monitors.map((x) => until(`${x.name} up`, async () => (await api<Monitor>('GET', `/v1/monitors/${x.id}`)).state === 'up')));
  const web = monitors[2]!;
  await api('POST', '/v1/alert-policies', { name: 'f-web pages', monitor_id: web.id, channel_ids: [channel.id], delay_s: 0, recovery_n: 1 });

  /** Rounds of `monitor_id` whose start is in [from_ms, to_ms), per the schedule. */
  const scheduled = (monitor_id: string, from_ms: number, to_ms: number) => {
    const phase = roundPhaseMs(monitor_id, ROUND_S);
    const step = ROUND_S * 1000;
    const out: number[] = [];
    for (let k = Math.ceil((from_ms - phase) / step); phase + k * step < to_ms; k++) out.push(phase + k * step);
    return out;
  };
  /** Expected (monitor, node, round) triples vs the checks stored, over [from_ms, to_ms). */
  const countRounds = async (from_ms: number, to_ms: number, node_ids: string[]) => {
    let expected = 0;
    let stored = 0;
    let duplicates = 0;
    const missing: string[] = [];
    for (const x of monitors) {
      const checks = (await allChecks(m, x.id, new Date(from_ms - 1000).toISOString(), new Date(to_ms + 60_000).toISOString()))
        .filter((c) => Date.parse(c.scheduled_at) >= from_ms && Date.parse(c.scheduled_at) < to_ms);
      const seen = new Map<string, number>();
      for (const c of checks) seen.set(`${c.node_id}@${c.scheduled_at}`, (seen.get(`${c.node_id}@${c.scheduled_at}`) ?? 0) + 1);
      for (const round of scheduled(x.id, from_ms, to_ms)) {
        for (const node of node_ids) {
          expected++;
          const n = seen.get(`${node}@${new Date(round).toISOString()}`) ?? 0;
          if (n === 0) missing.push(`${x.name} ${node} ${new Date(round).toISOString()}`);
          stored += Math.min(n, 1);
          duplicates += Math.max(0, n - 1);
        }
      }
    }
    return { expected, stored, duplicates, missing };
  };

  await t.test(`control plane down ${CP_DOWN_S} s while monitors run: every round of every node stored, no stale pages`, async (t) => {
    const pages_before = m.webhook.calls.filter((c) => c.path === '/channel').length;
    const from_ms = Date.now();
    await net.stopControlPlane();
    const stopped_ms = Date.now();
    // An outage that begins and ends while the control plane is away: the nodes see it, nobody must be paged for it.
    await net.switchTarget('/http/stop');
    await new Promise((r) => setTimeout(r, Math.min(30, CP_DOWN_S / 2) * 1000));
    await net.switchTarget('/http/start');
    await new Promise((r) => setTimeout(r, Math.max(0, stopped_ms + CP_DOWN_S * 1000 - Date.now())));
    await net.startControlPlane();
    const restarted_ms = Date.now();
    const to_ms = restarted_ms + 2 * ROUND_S * 1000;
    const count = await until('every scheduled round stored', async () => {
      if (Date.now() < to_ms + 15_000) return null;
      const c = await countRounds(from_ms, to_ms, placed);
      return c.missing.length === 0 ? c : null;
    }, 240_000, 2000).catch(async () => countRounds(from_ms, to_ms, placed));
    t.comment(`rounds: expected ${count.expected}, stored ${count.stored}, duplicates ${count.duplicates}`);
    t.equal(count.stored, count.expected, `every round of every node stored (missing: ${count.missing.slice(0, 5).join('; ')})`);
    t.equal(count.duplicates, 0, 'no round stored twice');
    const late_down = (await api<{ items: Array<{ to_state: string; late: boolean }> }>('GET', `/v1/monitors/${web.id}/state-changes?from=-10m`)).items.filter((c) => c.to_state === 'down');
    t.ok(late_down.length >= 1 && late_down.every((c) => c.late), 'the outage is in the history, marked late');
    await new Promise((r) => setTimeout(r, 5000));
    const pages = m.webhook.calls.filter((c) => c.path === '/channel').length - pages_before;
    t.comment(`notifications: expected 0 (the outage was over before anyone could be told), received ${pages}`);
    t.equal(pages, 0, 'no burst of stale notifications');
  });

  await t.test('kill -9 of the control plane while notifications are sent: none lost, each webhook-id once after de-duplication', async (t) => {
    const since = m.webhook.calls.length;
    const since_iso = new Date().toISOString();
    m.webhook.setDelay(1500); // sends stay in flight long enough to be cut
    await net.switchTarget('/http/stop');
    await until('the first page to be under way', () => m.webhook.calls.slice(since).some((c) => c.path === '/channel'), 120_000, 100);
    await net.stopControlPlane('SIGKILL');
    m.webhook.setDelay(0);
    await net.startControlPlane();
    await net.switchTarget('/http/start');
    await until('f-web up', async () => (await api<Monitor>('GET', `/v1/monitors/${web.id}`)).state === 'up');
    const event = await until('its alert event resolved', async () => (await api<{ items: Array<{ id: string; status: string }> }>('GET', `/v1/alert-events?monitor_id=${web.id}&status=resolved&from=${encodeURIComponent(since_iso)}`)).items[0] ?? null);
    // Expected: what the control plane says it queued (the event's notifications and the endpoint's deliveries), each seen by the receiver.
    const detail = await api<{ notifications: Array<{ delivery_id: string | null; suppressed: string | null }> }>('GET', `/v1/alert-events/${event.id}`);
    const paged = detail.notifications.filter((n) => n.delivery_id && !n.suppressed).length;
    const channel_calls = await until('every page received', () => {
      const calls = m.webhook.calls.slice(since).filter((c) => c.path === '/channel');
      return dedupe(calls).unique.length >= paged ? calls : null;
    }, 120_000).catch(() => m.webhook.calls.slice(since).filter((c) => c.path === '/channel'));
    const deliveries = await until('endpoint deliveries settled', async () => {
      const d = await api<{ items: Array<{ status: string; message_id?: string }> }>('GET', `/v1/webhook-endpoints/${endpoint.endpoint.id}/deliveries?page_size=200`);
      return d.items.every((x) => x.status === 'succeeded') ? d.items : null;
    }, 120_000);
    const endpoint_calls = m.webhook.calls.filter((c) => c.path === '/endpoint');
    const ch = dedupe(channel_calls);
    const ep = dedupe(endpoint_calls);
    t.comment(`channel: expected ${paged}, received ${channel_calls.length}, distinct ${ch.unique.length}, duplicates ${ch.repeats}`);
    t.comment(`endpoint: expected ${deliveries.length}, received ${endpoint_calls.length}, distinct ${ep.unique.length}, duplicates ${ep.repeats}`);
    t.equal(ch.unique.length, paged, 'every page of the event arrived (trigger and resolve)');
    t.ok(paged >= 2, 'trigger and resolve were paged');
    t.equal(ep.unique.length, deliveries.length, 'every endpoint event arrived');
    t.ok([...channel_calls, ...endpoint_calls].every((c) => c.accepted), 'every delivery verified (standardwebhooks)');
  });

  await t.test(`a receiver down ${RECEIVER_DOWN_S} s then back: everything delivered`, async (t) => {
    const since = m.webhook.calls.length;
    await m.webhook.stop();
    const before = (await api<{ items: unknown[] }>('GET', `/v1/alert-events?monitor_id=${web.id}&page_size=200`)).items.length;
    await net.switchTarget('/http/stop');
    await until('f-web down', async () => (await api<Monitor>('GET', `/v1/monitors/${web.id}`)).state === 'down');
    await new Promise((r) => setTimeout(r, RECEIVER_DOWN_S * 500));
    await net.switchTarget('/http/start');
    await until('f-web up', async () => (await api<Monitor>('GET', `/v1/monitors/${web.id}`)).state === 'up');
    await new Promise((r) => setTimeout(r, RECEIVER_DOWN_S * 500));
    t.equal(m.webhook.calls.length, since, 'nothing reached the receiver while it was down');
    await m.webhook.start();
    const events = (await api<{ items: Array<{ id: string; status: string }> }>('GET', `/v1/alert-events?monitor_id=${web.id}&page_size=200`)).items;
    t.equal(events.length, before + 1, 'one new alert event');
    const detail = await api<{ notifications: Array<{ delivery_id: string | null; suppressed: string | null }> }>('GET', `/v1/alert-events/${events[0]!.id}`);
    const paged = detail.notifications.filter((n) => n.delivery_id && !n.suppressed).length;
    const calls = await until('every page delivered after the outage', () => {
      const c = m.webhook.calls.slice(since).filter((x) => x.path === '/channel');
      return dedupe(c).unique.length >= paged ? c : null;
    }, 120_000).catch(() => m.webhook.calls.slice(since).filter((x) => x.path === '/channel'));
    const endpoint_expected = ['monitor.down', 'monitor.up', 'alert.firing', 'alert.resolved'];
    const got = await until('the endpoint events delivered after the outage', () => {
      const c = m.webhook.calls.slice(since).filter((x) => x.path === '/endpoint');
      return endpoint_expected.every((type) => c.some((x) => x.json?.type === type && (x.json.data?.monitor?.id ?? x.json.data?.alert_event?.monitor_id) === web.id)) ? c : null;
    }, 120_000).catch(() => m.webhook.calls.slice(since).filter((x) => x.path === '/endpoint'));
    t.comment(`channel: expected ${paged}, received ${calls.length}, distinct ${dedupe(calls).unique.length}, duplicates ${dedupe(calls).repeats}`);
    t.comment(`endpoint: expected ${endpoint_expected.length} event types for f-web, received ${got.length} deliveries, duplicates ${dedupe(got).repeats}`);
    t.equal(dedupe(calls).unique.length, paged, 'every page delivered once the receiver was back');
    t.ok(endpoint_expected.every((type) => got.some((x) => x.json?.type === type)), 'every endpoint event delivered');
  });

  await t.test('a node lost for good: its monitors are re-placed within the grace', async (t) => {
    const lost = net.nodes[0]!;
    await net.killAgent(0);
    const lost_ms = Date.now();
    const moved = await until('the monitors to leave the lost node', async () => {
      const now = await Promise.all(monitors.map((x) => api<Monitor>('GET', `/v1/monitors/${x.id}`)));
      return now.every((x) => !x.node_ids.includes(lost.id) && x.node_ids.length === 3) ? now : null;
    }, (GRACE_S + 120) * 1000, 2000);
    const took_s = (Date.now() - lost_ms) / 1000;
    t.comment(`re-placed ${took_s.toFixed(0)} s after the node was lost (grace ${GRACE_S} s)`);
    // Kept through the grace (a node that comes back keeps its monitors), moved soon after it.
    t.ok(took_s >= GRACE_S - 5 && took_s <= GRACE_S + 60, `moved after the grace and within a minute of its end (${took_s.toFixed(0)} s)`);
    for (const x of moved) t.ok(x.node_ids.includes(spare.id), `${x.name} now runs on the spare node`);
    const from = new Date().toISOString();
    await until('checks from the spare node', async () => {
      const got = await Promise.all(monitors.map((x) => allChecks(m, x.id, from)));
      return got.every((cs) => cs.some((c) => c.node_id === spare.id && c.success));
    }, 120_000);
    t.pass('the spare node stores checks for every moved monitor');
  });

  await t.test(`Postgres restarted (down ${POSTGRES_DOWN_S} s) while monitors run: every round of every node stored once`, async (t) => {
    const now_placed = (await api<Monitor>('GET', `/v1/monitors/${web.id}`)).node_ids;
    const from_ms = Date.now();
    await pg.stop();
    await new Promise((r) => setTimeout(r, POSTGRES_DOWN_S * 1000));
    await pg.start();
    const to_ms = Date.now() + 2 * ROUND_S * 1000;
    await until('the API to answer again', async () => (await api<Monitor>('GET', `/v1/monitors/${web.id}`)).id === web.id, 120_000, 1000);
    const count = await until('every scheduled round stored', async () => {
      if (Date.now() < to_ms + 15_000) return null;
      const c = await countRounds(from_ms, to_ms, now_placed);
      return c.missing.length === 0 ? c : null;
    }, 240_000, 2000).catch(async () => countRounds(from_ms, to_ms, now_placed));
    t.comment(`rounds: expected ${count.expected}, stored ${count.stored}, duplicates ${count.duplicates}`);
    t.equal(count.stored, count.expected, `every round of every node stored (missing: ${count.missing.slice(0, 5).join('; ')})`);
    t.equal(count.duplicates, 0, 'no round stored twice');
    t.same((await Promise.all(monitors.map((x) => api<Monitor>('GET', `/v1/monitors/${x.id}`)))).map((x) => x.state), ['up', 'up', 'up'], 'every monitor up (the outage was the database, not the targets)');
  });
}
