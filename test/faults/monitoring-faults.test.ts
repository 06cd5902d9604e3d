import t, { type Test } from 'tap';
import { roundPhaseMs } from '@vantage/shared-protocol';
import { allChecks, ROUND_S, startMonitoringNetwork, until, webhookSecret, type MonitoringNetwork } from '../e2e/monitoring.js';
import { dedupe, startReceiver } from '../e2e/receivers.js';
import { startOwnPostgres } from './postgres.js';

/**
 * Monitoring under faults on the e2e test network (four installed agents, monitors on three of
 * them; the control plane on a Postgres of the test's own, which the last fault restarts), each
 * fault ending with its count: rounds expected from the schedule vs rounds stored,
 * notifications expected vs received, duplicates. docs/architecture/faults.md "Monitoring".
 *
 * The control plane stays down 3 minutes (VANTAGE_FAULT_CP_DOWN_S). A second receiver is down
 * for 10 minutes (VANTAGE_FAULT_RECEIVER_DOWN_S) while the other faults run, so what is queued for
 * it goes through a crash, a restart and a database restart before it can be delivered; delivery
 * retries (VANTAGE_DELIVERY_RETRY_DELAYS_MS) come every 30 s after the first few instead of hours
 * apart, so the retry after the outage is not hours away.
 */

const CP_DOWN_S = Number(process.env.VANTAGE_FAULT_CP_DOWN_S ?? 180);
const RECEIVER_DOWN_S = Number(process.env.VANTAGE_FAULT_RECEIVER_DOWN_S ?? 600);
const POSTGRES_DOWN_S = 15;
// Longer than the control plane's outage plus the agents' reconnect backoff (at most 60 s), so
// the outage itself moves nothing.
const GRACE_S = CP_DOWN_S + 90;
// The node-lost fault restarts the control plane with this grace rather than wait out GRACE_S.
const LOST_GRACE_S = 60;
// Quick retries first (the kill -9 fault), then every 30 s for well past the receiver's outage
// (at most 50 retries: the setting's limit).
const RETRY_DELAYS_MS = [1000, 2000, 3000, 5000, 10_000, 20_000, ...Array<number>(Math.min(44, Math.ceil((RECEIVER_DOWN_S + 300) / 30))).fill(30_000)];

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
    VANTAGE_DELIVERY_RETRY_DELAYS_MS: RETRY_DELAYS_MS.join(','),
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
  // The receiver that is down through the other faults: a channel and an endpoint of its own.
  const away = await startReceiver(t, 'webhook');
  const away_secret = webhookSecret();
  away.setSecret('/channel', away_secret);
  const away_channel = await api<{ id: string }>('POST', '/v1/alert-channels', { name: 'hook away', type: 'webhook', config: { url: `${away.origin}/channel`, secret: away_secret } });
  const away_endpoint = await api<{ endpoint: { id: string }; secret: string }>('POST', '/v1/webhook-endpoints', { url: `${away.origin}/endpoint`, events: ['monitor.down', 'monitor.up', 'alert.firing', 'alert.resolved'] });
  away.setSecret('/endpoint', away_endpoint.secret);

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
  await api('POST', '/v1/alert-policies', { name: 'f-web pages', monitor_id: web.id, channel_ids: [channel.id, away_channel.id], delay_s: 0, recovery_n: 1 });
  /** Pages of alert event `id` queued for `channel_id` (not suppressed). */
  const pagesQueued = async (id: string, channel_id: string) =>
    (await api<{ notifications: Array<{ channel_id: string; delivery_id: string | null; suppressed: string | null }> }>('GET', `/v1/alert-events/${id}`))
      .notifications.filter((n) => n.channel_id === channel_id && n.delivery_id && !n.suppressed).length;

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

  await away.stop();
  const away_from_ms = Date.now();
  t.comment(`receiver "away" down from now, for ${RECEIVER_DOWN_S} s`);

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
    const paged = await pagesQueued(event.id, channel.id);
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

  await t.test(`a node lost for good: its monitors are re-placed within the grace (${LOST_GRACE_S} s)`, async (t) => {
    const lost = net.nodes[0]!;
    await net.stopControlPlane();
    await net.startControlPlane({ env: { VANTAGE_PLACEMENT_GRACE_MS: String(LOST_GRACE_S * 1000) } });
    await net.killAgent(0);
    const lost_ms = Date.now();
    const moved = await until('the monitors to leave the lost node', async () => {
      const now = await Promise.all(monitors.map((x) => api<Monitor>('GET', `/v1/monitors/${x.id}`)));
      return now.every((x) => !x.node_ids.includes(lost.id) && x.node_ids.length === 3) ? now : null;
    }, (LOST_GRACE_S + 120) * 1000, 2000);
    const took_s = (Date.now() - lost_ms) / 1000;
    t.comment(`re-placed ${took_s.toFixed(0)} s after the node was lost (grace ${LOST_GRACE_S} s)`);
    // Kept through the grace (a node that comes back keeps its monitors), moved soon after it.
    t.ok(took_s >= LOST_GRACE_S - 5 && took_s <= LOST_GRACE_S + 60, `moved after the grace and within a minute of its end (${took_s.toFixed(0)} s)`);
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
  await t.test(`a receiver down ${RECEIVER_DOWN_S} s through the faults above, then back: everything delivered`, async (t) => {
    const wait_ms = away_from_ms + RECEIVER_DOWN_S * 1000 - Date.now();
    t.comment(`receiver "away" down ${((Date.now() - away_from_ms) / 1000).toFixed(0)} s so far; ${Math.max(0, wait_ms / 1000).toFixed(0)} s to go`);
    if (wait_ms > 0) await new Promise((r) => setTimeout(r, wait_ms));
    t.equal(away.calls.length, 0, 'nothing reached it while it was down');
    const down_s = (Date.now() - away_from_ms) / 1000;
    await away.start();
    // Expected: what the control plane queued for it since it went down (pages of every f-web
    // alert event, the endpoint's deliveries), each seen once after de-duplication.
    const events = (await api<{ items: Array<{ id: string; status: string }> }>('GET', `/v1/alert-events?monitor_id=${web.id}&from=${encodeURIComponent(new Date(away_from_ms).toISOString())}&page_size=200`)).items;
    const paged = (await Promise.all(events.map((e) => pagesQueued(e.id, away_channel.id)))).reduce((a, b) => a + b, 0);
    t.ok(events.length >= 1 && paged >= 2, `alert events while it was down: ${events.length}, pages queued for it: ${paged}`);
    const pages = await until('every page delivered after the outage', () => {
      const c = away.calls.filter((x) => x.path === '/channel');
      return dedupe(c).unique.length >= paged ? c : null;
    }, 180_000).catch(() => away.calls.filter((x) => x.path === '/channel'));
    const deliveries = await until('endpoint deliveries settled', async () => {
      const d = await api<{ items: Array<{ status: string }> }>('GET', `/v1/webhook-endpoints/${away_endpoint.endpoint.id}/deliveries?page_size=200`);
      return d.items.length > 0 && d.items.every((x) => x.status === 'succeeded') ? d.items : null;
    }, 180_000).catch(async () => (await api<{ items: Array<{ status: string }> }>('GET', `/v1/webhook-endpoints/${away_endpoint.endpoint.id}/deliveries?page_size=200`)).items);
    const events_in = away.calls.filter((x) => x.path === '/endpoint');
    t.comment(`down ${down_s.toFixed(0)} s; channel: expected ${paged}, received ${pages.length}, distinct ${dedupe(pages).unique.length}, duplicates ${dedupe(pages).repeats}`);
    t.comment(`endpoint: expected ${deliveries.length}, received ${events_in.length}, distinct ${dedupe(events_in).unique.length}, duplicates ${dedupe(events_in).repeats}; statuses ${[...new Set(deliveries.map((d) => d.status))].join(', ')}`);
    t.equal(dedupe(pages).unique.length, paged, 'every page delivered once the receiver was back');
    t.ok(deliveries.every((d) => d.status === 'succeeded'), 'every endpoint delivery succeeded');
    t.equal(dedupe(events_in).unique.length, deliveries.length, 'every endpoint event arrived');
    t.ok([...pages, ...events_in].every((c) => c.accepted), 'every delivery verified (standardwebhooks)');
  });
}
