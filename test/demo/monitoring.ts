import type { Api } from './api.js';
import { waitFor } from './processes.js';
import { startWebhookReceiver, type Received, type WebhookReceiver } from './receiver.js';
import { LiveView, readStatus, renderStatus, statusKey, type StatusSnapshot } from './status.js';
import { startSwitchableTarget, type SwitchableTarget } from './switchable-target.js';
import type { Targets } from './targets.js';

/**
 * Round interval of the demo's monitors, s. The API accepts 60, 300 and 1800; the demo's control
 * plane runs with the operator setting VANTAGE_MONITOR_EXTRA_INTERVALS_S=10 (docs/api/monitors.md
 * "Create and update") so that rounds, and the alert, come within seconds.
 */
export const DEMO_INTERVAL_S = 10;

/** What the monitoring part of the demo needs from the rest of it. */
export interface MonitoringContext {
  api: Api;
  node_count: number;
  is_root: boolean;
  targets: Targets;
  say: (line: string) => void;
}

/** The monitoring part's outcome: what it created and what it saw. */
export interface MonitoringDemo {
  web: SwitchableTarget;
  receiver: WebhookReceiver;
  monitor_ids: string[];
  view: LiveView;
  close(): Promise<void>;
}

interface CreatedMonitor { id: string; name: string; type: string; target: string; node_ids: string[] }

/** The monitors the demo creates: one per type against its local targets (ping only as root: raw ICMP). */
function monitorRequests(ctx: MonitoringContext, web: SwitchableTarget): Array<Record<string, unknown>> {
  const { targets } = ctx;
  const common = { interval_s: DEMO_INTERVAL_S, node_count: ctx.node_count };
  const list: Array<Record<string, unknown>> = [
    { name: 'shop web', type: 'http', target: web.url, config: { expected_status: '200', timeout_ms: 3000 }, ...common },
    { name: 'site keyword', type: 'keyword', target: targets.http_url, config: { keyword: 'Vantage demo target', timeout_ms: 3000 }, ...common },
    { name: 'tcp port', type: 'tcp', target: targets.tcp_target, config: { timeout_ms: 3000 }, ...common },
    { name: `dns ${targets.dns.zone}`, type: 'dns', target: targets.dns.zone, config: { server: targets.dns.server, record_type: 'A', expected_values: ['198.18.0.10'], timeout_ms: 3000 }, ...common },
  ];
  if (ctx.is_root) list.push({ name: 'ping loopback', type: 'ping', target: '127.0.0.1', config: { count: 3, interval_ms: 200, timeout_ms: 2000 }, ...common });
  return list;
}

/**
 * Poll the status through the API every second, showing the table live with `what` under it,
 * until `done(snapshot)` is true; throws after `timeout_ms` (naming `what`).
 */
async function watch(ctx: MonitoringContext, view: LiveView, ids: string[], what: string, timeout_ms: number, done: (s: StatusSnapshot) => boolean | Promise<boolean>): Promise<StatusSnapshot> {
  const t0 = Date.now();
  return waitFor(what, timeout_ms, async () => {
    const s = await readStatus(ctx.api, ids);
    view.show(renderStatus(s), statusKey(s), what, (Date.now() - t0) / 1000);
    return (await done(s)) ? s : null;
  }, 1000);
}

/** The alert webhook as the receiver got it, in a few readable lines. */
function describeDelivery(r: Received, since_ms: number, what: string): string {
  const n = r.body?.data ?? {};
  const lines = [
    `  ${what}: ${r.body?.type} received ${((r.at_ms - since_ms) / 1000).toFixed(1)} s after the ${what === 'alert' ? 'target went down' : 'target came back'}`,
    `    webhook-id ${r.webhook_id} · signature ${r.verified ? 'verified ✓ (Standard Webhooks, the channel secret)' : `NOT verified: ${r.error}`}`,
    `    title    ${n.title}`,
    `    severity ${n.severity} · event ${n.event_id} · action ${n.event_action}`,
    ...String(n.body ?? '').split('\n').filter(Boolean).slice(0, 6).map((l) => `    │ ${l}`),
  ];
  return lines.join('\n');
}

/**
 * The uptime answer in one line, every figure as the API gave it (the percent is up + degraded of
 * the monitored seconds shown, docs/api/monitors.md "Uptime"), with singular and plural spelt out.
 */
export function uptimeLine(name: string, u: { uptime_percent: number | null; monitored_s: number; downtime_s: number; no_data_s?: number; incidents: number; rounds: { up: number; degraded: number; down: number; no_data?: number } }): string {
  const n = (k: number, one: string, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;
  const percent = u.uptime_percent === null ? 'no data' : `${u.uptime_percent.toFixed(1)} %`;
  const silent = u.no_data_s ? ` · ${u.no_data_s} s without data` : '';
  return `"${name}" over the last 24 h: uptime ${percent} of ${u.monitored_s} s monitored · ${u.downtime_s} s down${silent} · ${n(u.incidents, 'incident')} · rounds ${u.rounds.up} up / ${u.rounds.degraded} degraded / ${u.rounds.down} down`;
}

/**
 * The monitoring half of the demo, all through the public API: a webhook alert channel pointing
 * at a local receiver (which verifies every signature), one monitor per type on every node with
 * 10 s rounds, an alert policy on the web monitor; waits until all are up (live status table),
 * stops the web target and waits for the alert to arrive at the receiver, starts it again and
 * waits for the resolve notification, then prints the web monitor's uptime.
 * @throws Error naming the step that did not happen within its (generous) bound
 */
export async function runMonitoringDemo(ctx: MonitoringContext): Promise<MonitoringDemo> {
  const { api, say } = ctx;
  const view = new LiveView();
  const web = await startSwitchableTarget('Vantage demo shop');
  const receiver = await startWebhookReceiver();
  const close = async () => { await web.stop(); await receiver.close(); };
  say(`\nMONITORING: monitors of every type on the ${ctx.node_count} nodes, rounds every ${DEMO_INTERVAL_S} s (VANTAGE_MONITOR_EXTRA_INTERVALS_S=${DEMO_INTERVAL_S})`);
  if (!ctx.is_root) say('not root: no ping monitor (raw ICMP sockets)');

  const channel = await api.call<{ id: string }>('POST', '/v1/alert-channels', { name: 'demo receiver', type: 'webhook', config: { url: receiver.url, secret: receiver.secret } });
  const test = await api.call<{ status: string; status_code: number | null }>('POST', `/v1/alert-channels/${channel.id}/test`);
  const test_seen = receiver.received.find((r) => r.body?.type === 'alert.test');
  say(`alert channel ${channel.id}: webhook to ${receiver.url}; test notification ${test.status} (HTTP ${test.status_code}), receiver ${test_seen?.verified ? 'verified its signature ✓' : 'did not verify it'}`);

  const monitors: CreatedMonitor[] = [];
  for (const body of monitorRequests(ctx, web)) {
    const m = await api.call<CreatedMonitor>('POST', '/v1/monitors', body);
    monitors.push(m);
    say(`monitor ${m.id}  ${m.type.padEnd(7)} ${m.target}  on ${m.node_ids.length} nodes`);
  }
  const shop = monitors[0]!;
  const policy = await api.call<{ id: string }>('POST', '/v1/alert-policies', { name: 'page when the shop is down', monitor_id: shop.id, channel_ids: [channel.id], delay_s: 0, recovery_n: 1 });
  say(`alert policy ${policy.id}: "${shop.name}" down → webhook channel, no delay`);
  const ids = monitors.map((m) => m.id);

  const allUp = (s: StatusSnapshot) => s.monitors.length === ids.length && s.monitors.every((m) => m.state === 'up'
    && m.node_ids.length === ctx.node_count && m.node_ids.every((n) => s.latest.get(m.id)?.get(n)?.success === true));
  await watch(ctx, view, ids, 'waiting for the first rounds: every monitor up on every node', 180_000, allUp);
  view.release();

  say(`\ntaking the shop's web server down (${web.url} stops listening)…`);
  const down_at = Date.now();
  await web.stop();
  const trigger: { r?: Received } = {};
  void receiver.waitFor((r) => r.body?.type === 'alert.trigger' && r.body.data.monitor?.id === shop.id).then((r) => { trigger.r = r; });
  await watch(ctx, view, ids, `waiting for "${shop.name}" to go down and its alert to reach the receiver`, 180_000,
    (s) => s.monitors.find((m) => m.id === shop.id)?.state === 'down' && trigger.r !== undefined);
  view.release();
  say(describeDelivery(trigger.r!, down_at, 'alert'));
  const [event] = (await api.call<{ items: Array<{ id: string; status: string; fired_at: string }> }>('GET', `/v1/alert-events?monitor_id=${shop.id}`)).items;
  say(`  alert event ${event?.id}: ${event?.status} (GET /v1/alert-events)`);

  say(`\nmending it (the web server listens again on port ${web.port})…`);
  const up_at = Date.now();
  await web.start();
  const resolved: { r?: Received } = {};
  void receiver.waitFor((r) => r.body?.type === 'alert.resolve' && r.body.data.monitor?.id === shop.id).then((r) => { resolved.r = r; });
  await watch(ctx, view, ids, `waiting for "${shop.name}" to be up again and the resolve notification`, 180_000,
    (s) => s.monitors.find((m) => m.id === shop.id)?.state === 'up' && resolved.r !== undefined);
  view.release();
  say(describeDelivery(resolved.r!, up_at, 'resolve'));
  const uptime = await api.call<{ uptime_percent: number | null; monitored_s: number; up_s: number; degraded_s: number; downtime_s: number; no_data_s: number; incidents: number; rounds: { up: number; degraded: number; down: number; no_data: number } }>('GET', `/v1/monitors/${shop.id}/uptime?period=24h`);
  say(`  ${uptimeLine(shop.name, uptime)} (GET /v1/monitors/${shop.id}/uptime)`);
  const verified = receiver.received.filter((r) => r.verified).length;
  say(`receiver: ${receiver.received.length} deliveries, ${verified} with a valid signature`);
  return { web, receiver, monitor_ids: ids, view, close };
}
