import t, { type Test } from 'tap';
import { ApiError, call } from './client.js';
import { allChecks, byRound, ROUND_S, routingKey, shortenBrowserRounds, startMonitoringNetwork, until, webhookSecret, type MonitoringNetwork } from './monitoring.js';
import { dedupe, type ReceivedCall } from './receivers.js';

/**
 * Monitoring end to end, through the public API only (10 s rounds through the operator setting
 * VANTAGE_MONITOR_EXTRA_INTERVALS_S; the browser monitor's 30 s rounds through shortenBrowserRounds): monitors of every type nodes run, on the three installed agents of the e2e network;
 * targets broken and mended with the targets host's switches; alerts paged to real receivers (a
 * Standard Webhooks receiver, a Slack-style and a PagerDuty-style endpoint, an SMTP server).
 * docs/api/monitors.md (verdicts), docs/api/alerting.md (events, escalation, suppression),
 * docs/api/webhooks.md (signatures). One network is shared by every subtest, which run in order.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

if (process.getuid?.() !== 0) {
  t.plan(0, 'the monitoring e2e test needs root (network namespaces, agents installed as nobody)');
} else {
  t.setTimeout(900_000);
  // One parent test holds the network: setup awaits between subtests cannot let tap end it early.
  t.test('monitoring on the e2e test network', { timeout: 880_000 }, (t) => run(t));
}

type Monitor = { id: string; name: string; type: string; state: string; node_ids: string[] };
type StateChange = { to_state: string; from_state: string; changed_at: string; round_at: string | null; failing_nodes: Array<{ node_id: string; error: string }> };
type AlertEvent = { id: string; status: string; fired_at: string | null; started_at: string; acknowledged_at: string | null; acknowledged_by: string | null; resolved_at: string | null; resolved_by: string | null; suppressed: string | null; next_level: number | null; notifications?: Array<{ level: number; channel_id: string; kind: string; suppressed: string | null; delivery_id: string | null }> };

async function run(t: Test): Promise<void> {
  const m: MonitoringNetwork = await startMonitoringNetwork(t);
  const { net, api } = m;
  const T = net.targets;
  const ids = net.nodes.map((n) => n.id).sort();
  const failed = (err: unknown) => (err instanceof ApiError ? err : null);

  // Channels and a webhook endpoint, all pointing at the receivers.
  const channel_secret = webhookSecret();
  m.webhook.setSecret('/channel', channel_secret);
  const slackPath = (name: string) => `/services/T0E2E/B0E2E/${name}`;
  const channel = (name: string, type: string, config: object) => api<{ id: string }>('POST', '/v1/alert-channels', { name, type, config });
  const ch = {
    webhook: await channel('on-call webhook', 'webhook', { url: `${m.webhook.origin}/channel`, secret: channel_secret }),
    slack: await channel('team slack', 'slack', { webhook_url: `${m.slack.origin}${slackPath('first')}` }),
    slack_late: await channel('managers slack', 'slack', { webhook_url: `${m.slack.origin}${slackPath('level3')}` }),
    slack_silenced: await channel('silenced slack', 'slack', { webhook_url: `${m.slack.origin}${slackPath('silenced')}` }),
    slack_maint: await channel('maintenance slack', 'slack', { webhook_url: `${m.slack.origin}${slackPath('maintenance')}` }),
    pagerduty: await channel('pagerduty', 'pagerduty', { routing_key: routingKey(), api_url: `${m.pagerduty.origin}/v2/enqueue` }),
    email: await channel('on-call mail', 'email', { to: ['oncall@vantage.test'] }),
  };
  // The on-call address gets pages only once it confirms through its opt-in e-mail (docs/api/alerting.md "E-mail recipients").
  const opt_in = await until('the on-call opt-in e-mail', () => m.smtp.messages.find((x) => x.to.includes('oncall@vantage.test')) ?? null, 60_000, 100);
  const confirm_link = new URL(/https?:\/\/\S+\/v1\/alert-channels\/recipients\/confirm\?token=\S+/.exec(opt_in.parsed.text ?? '')![0]);
  t.match(await call(net.api_url, 'POST', `${confirm_link.pathname}${confirm_link.search}`), { state: 'confirmed' }, 'the on-call address confirmed');
  const endpoint = await api<{ endpoint: { id: string }; secret: string }>('POST', '/v1/webhook-endpoints', {
    url: `${m.webhook.origin}/endpoint`, events: ['monitor.down', 'monitor.up', 'monitor.degraded', 'alert.firing', 'alert.acknowledged', 'alert.resolved'],
  });
  m.webhook.setSecret('/endpoint', endpoint.secret);

  // Monitors of every type nodes run. Plain HTTP :80 is what the alerting test breaks, so the
  // other HTTP-like monitors use HTTPS :443 (the agents trust the test CA).
  const https = T.https_origin;
  const completion = { expected_fields: ['$.choices[0].message.content'], timeout_ms: 5000 };
  const specs: Array<{ name: string; type: string; target: string; config?: object }> = [
    { name: 'web', type: 'http', target: `${T.http_origin}/`, config: { timeout_ms: 3000, down_quorum: 2 } },
    { name: 'secure', type: 'https', target: `https://${T.tls_switch}/`, config: { timeout_ms: 3000 } },
    { name: 'cert', type: 'ssl_expiry', target: T.tls_switch, config: { timeout_ms: 3000 } },
    { name: 'keyword', type: 'keyword', target: `${https}/page`, config: { keyword: 'operational', timeout_ms: 3000 } },
    { name: 'ping', type: 'ping', target: T.v4, config: { count: 2, interval_ms: 200, timeout_ms: 1000 } },
    { name: 'tcp', type: 'tcp', target: T.tcp_open, config: { timeout_ms: 2000 } },
    { name: 'dns', type: 'dns', target: T.mutable.name, config: { server: T.dns_server, expected_values: [T.mutable.answer], timeout_ms: 2000 } },
    { name: 'traceroute', type: 'traceroute', target: T.v4, config: { max_hops: 6, timeout_ms: 1000 } },
    { name: 'rbl', type: 'rbl', target: '198.19.1.66', config: { zones: [T.dnsbl_zone], server: T.dns_server, timeout_ms: 2000 } },
    { name: 'llm', type: 'llm_endpoint', target: `${https}/llm`, config: { ...completion, model_name: 'e2e-model', payload_template: { model: '{{model_name}}', messages: [{ role: 'user', content: 'ping' }] }, expected_tokens_max: 100 } },
    { name: 'tool', type: 'tool_api', target: `${https}/llm`, config: { expected_fields: ['$.model'], timeout_ms: 5000 } },
    { name: 'rag', type: 'rag', target: `${https}/llm`, config: completion },
  ];
  const nodes = await api<{ items: Array<{ id: string; capabilities: string[] }> }>('GET', '/v1/nodes?page_size=200');
  const browser_nodes = nodes.items.filter((n) => n.capabilities.includes('browser')).length;
  const monitors = new Map<string, Monitor>();
  const shortened_ms = Date.now();
  for (const spec of specs) monitors.set(spec.name, await api<Monitor>('POST', '/v1/monitors', { ...spec, interval_s: ROUND_S, node_count: 3 }));
  if (browser_nodes > 0) {
    // Plain HTTP: Chromium does not read NODE_EXTRA_CA_CERTS, so it cannot trust the test CA.
    monitors.set('browser', await api<Monitor>('POST', '/v1/monitors', { name: 'browser', type: 'browser', target: `${T.http_origin}/page`, interval_s: 300, node_count: 3, config: { assertions: [{ kind: 'element_present', selector: '#status' }] } }));
    await shortenBrowserRounds(m.sql, [monitors.get('browser')!.id], 30);
  }
  const mon = (name: string) => monitors.get(name)!;

  const oncall = () => m.smtp.messages.filter((x) => x.to.includes('oncall@vantage.test') && x !== opt_in);
  const get = (id: string) => api<Monitor>('GET', `/v1/monitors/${id}`);
  const waitState = (name: string, state: string, timeout_ms = 120_000) => until(`${name} ${state}`, async () => ((await get(mon(name).id)).state === state ? true : null), timeout_ms);
  const changes = (name: string) => api<{ items: StateChange[] }>('GET', `/v1/monitors/${mon(name).id}/state-changes?from=-1h&page_size=200`).then((r) => r.items);
  const events = (name: string) => api<{ items: AlertEvent[] }>('GET', `/v1/alert-events?monitor_id=${mon(name).id}&page_size=200`).then((r) => r.items);

  await t.test('the delivery address check stays on: loopback outside the operator list is refused', async (t) => {
    const err = await api('POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.2:9/hook', events: ['monitor.down'] }).catch(failed);
    t.match(err, { status: 422, code: 'WEBHOOK_URL_NOT_ALLOWED' }, '127.0.0.2 is not in VANTAGE_DELIVERY_ALLOW_CIDRS');
    const refused = await api('POST', '/v1/alert-channels', { name: 'elsewhere', type: 'slack', config: { webhook_url: 'http://127.0.0.2:9/x' } }).catch(failed);
    t.match(refused, { status: 400, code: 'ALERT_CHANNEL_INVALID' }, 'nor as a channel URL');
  });

  await t.test('every type nodes run: placed on the three agents, up, each node checking', async (t) => {
    for (const x of monitors.values()) t.same([...x.node_ids].sort(), ids, `${x.name} (${x.type}) placed on the three nodes`);
    await Promise.all([...monitors.keys()].map((name) => waitState(name, 'up', 180_000)));
    for (const x of monitors.values()) {
      const checks = await allChecks(m, x.id, new Date(shortened_ms).toISOString());
      const ok_nodes = new Set(checks.filter((c) => c.success).map((c) => c.node_id));
      t.same([...ok_nodes].sort(), ids, `${x.name}: every node stored a successful check`);
    }
    if (browser_nodes === 0) t.comment('no node advertises browser (Chromium did not start under the agent): the browser type is not covered here');
  });

  await t.test('an expired certificate takes https and ssl_expiry down; the valid one brings them back', async (t) => {
    await net.switchTarget('/tls/expired');
    await Promise.all([waitState('secure', 'down'), waitState('cert', 'down')]);
    const [cert_down] = (await changes('cert')).filter((c) => c.to_state === 'down');
    t.equal(cert_down?.failing_nodes.length, 3, 'every node saw the expired certificate');
    await net.switchTarget('/tls/valid');
    await Promise.all([waitState('secure', 'up'), waitState('cert', 'up')]);
    t.pass('both up again');
  });

  let web_from_ms = 0;
  const marks: Record<string, number> = {};
  await t.test('degraded, down with the quorum, fire after recovery_n, page after delay_s, escalate, acknowledge, resolve', async (t) => {
    const web = mon('web');
    const policy = await api<{ id: string }>('POST', '/v1/alert-policies', {
      name: 'web pages', monitor_id: web.id, channel_ids: [ch.webhook.id, ch.slack.id], delay_s: 5, recovery_n: 2,
      escalation_levels: [
        { level_index: 1, after_seconds: 10, channel_ids: [ch.pagerduty.id] },
        { level_index: 2, after_seconds: 15, channel_ids: [ch.email.id] },
        { level_index: 3, after_seconds: 30, channel_ids: [ch.slack_late.id] },
      ],
    });
    web_from_ms = Date.now();

    // One node's requests get 503: fewer than the quorum (2) failing is degraded, and pages nobody.
    marks.deny = Date.now();
    await net.switchTarget('/http/deny', { cidr: net.plan.agents[2]!.subnet_v4 });
    await waitState('web', 'degraded');
    const degraded = (await changes('web')).find((c) => c.to_state === 'degraded')!;
    t.same(degraded.failing_nodes.map((n) => n.node_id), [net.nodes[2]!.id], 'degraded: the denied node failed');
    // It stays degraded: a second whole round with the one node failing.
    await until('a second degraded round', async () => {
      const rs = [...byRound(await allChecks(m, web.id, new Date(marks.deny! + 1000).toISOString())).values()];
      return rs.filter((cs) => cs.length === 3 && cs.filter((c) => !c.success).length === 1).length >= 2;
    });

    // Everyone refused: down.
    marks.stop = Date.now();
    await net.switchTarget('/http/stop');
    await waitState('web', 'down');
    const down = (await changes('web')).find((c) => c.to_state === 'down')!;
    t.equal(down.failing_nodes.length, 3, 'down: all three failed (quorum 2)');
    t.equal(down.from_state, 'degraded', 'straight from degraded');

    const event = await until('the alert event to fire', async () => (await events('web')).find((e) => e.status === 'firing' && e.fired_at) ?? null);
    const fired_ms = Date.parse(event.fired_at!);
    const down_round_ms = Date.parse(down.round_at ?? down.changed_at);
    t.ok(fired_ms >= down_round_ms + (2 - 1) * ROUND_S * 1000, `fired after the second down round (${fired_ms - down_round_ms} ms after the first began)`);
    t.equal((await events('web')).length, 1, 'one event for the outage (degraded did not fire)');

    // Level 0 after delay_s (5 s), level 1 (PagerDuty) 10 s later, level 2 (e-mail) 15 s after that,
    // level 3 30 s after that (each level counts from the previous one's due time).
    const first_due_ms = fired_ms + 5000;
    const trigger = await until('the first page', () => m.webhook.accepted('/channel').find((c) => c.json?.type === 'alert.trigger') ?? null);
    const slack_first = await until('the first Slack page', () => m.slack.accepted(slackPath('first'))[0] ?? null);
    t.ok(trigger.at_ms >= first_due_ms - 50, `webhook channel paged ${trigger.at_ms - fired_ms} ms after firing (delay_s 5)`);
    t.ok(slack_first.at_ms >= first_due_ms - 50, `Slack paged ${slack_first.at_ms - fired_ms} ms after firing`);
    t.match(trigger.json, { type: 'alert.trigger', data: { event_action: 'trigger', event_id: event.id, monitor: { id: web.id, name: 'web' } } });
    const pd_trigger = await until('the level 1 page (PagerDuty)', () => m.pagerduty.accepted().find((c) => c.json.event_action === 'trigger') ?? null, 120_000);
    t.ok(pd_trigger.at_ms >= first_due_ms + 10_000 - 50, `level 1 ${pd_trigger.at_ms - first_due_ms} ms after the first page was due`);
    t.equal(pd_trigger.json.dedup_key, event.id, 'dedup_key = the event id');
    // The SMTP server also gets the owner's own mail (address verification): count the on-call address's.
    const mail = await until('the level 2 page (e-mail)', () => { const got = oncall(); return got.length >= 1 ? got : null; }, 120_000, 100);
    const mail_ms = Date.now();
    t.ok(mail_ms >= first_due_ms + 25_000 - 50, `level 2 (e-mail) ${mail_ms - first_due_ms} ms after the first page was due`);
    t.same(mail[0]!.to, ['oncall@vantage.test']);
    t.match(mail[0]!.parsed.subject, /web/, 'the mail names the monitor');

    // Acknowledged through the API: no level 3, acknowledgements to every channel paged.
    const acked = await api<AlertEvent>('POST', `/v1/alert-events/${event.id}/ack`);
    t.match(acked, { status: 'acknowledged', acknowledged_by: String, acknowledged_at: String });
    await until('acknowledgements on every paged channel', () =>
      m.webhook.accepted('/channel').some((c) => c.json?.type === 'alert.acknowledge')
      && m.slack.accepted(slackPath('first')).length >= 2
      && m.pagerduty.accepted().some((c) => c.json.event_action === 'acknowledge')
      && oncall().length >= 2);
    const level3_due_ms = first_due_ms + 55_000;
    await sleep(Math.max(0, level3_due_ms + 10_000 - Date.now()));
    t.equal(m.slack.calls.filter((c) => c.path === slackPath('level3')).length, 0, 'level 3 was never paged');
    const detail = await api<AlertEvent>('GET', `/v1/alert-events/${event.id}`);
    t.equal(detail.next_level, null, 'no step left');
    t.notOk(detail.notifications!.some((n) => n.level === 3), 'no level 3 notification recorded');

    // Mended: up, the event resolves, every paged channel hears it.
    marks.start = Date.now();
    await net.switchTarget('/http/allow');
    await net.switchTarget('/http/start');
    await waitState('web', 'up');
    marks.up = Date.now();
    const resolved = await until('the event to resolve', async () => {
      const e = await api<AlertEvent>('GET', `/v1/alert-events/${event.id}`);
      return e.status === 'resolved' ? e : null;
    });
    t.equal(resolved.resolved_by, null, 'resolved by the monitor, not a person');
    await until('resolutions on every paged channel', () =>
      m.webhook.accepted('/channel').some((c) => c.json?.type === 'alert.resolve')
      && m.slack.accepted(slackPath('first')).length >= 3
      && m.pagerduty.accepted().some((c) => c.json.event_action === 'resolve')
      && oncall().length >= 3);
    const pd = m.pagerduty.accepted().map((c) => c.json);
    t.same(pd.map((j) => j.event_action), ['trigger', 'acknowledge', 'resolve'], 'PagerDuty: trigger, acknowledge, resolve');
    t.ok(pd.every((j) => j.dedup_key === event.id), 'one dedup_key for the whole alert');
    t.same(m.webhook.accepted('/channel').map((c) => c.json.type), ['alert.trigger', 'alert.acknowledge', 'alert.resolve'], 'webhook channel: trigger, acknowledge, resolve');
    t.equal(m.slack.calls.filter((c) => !c.accepted).length + m.pagerduty.calls.filter((c) => !c.accepted).length, 0, 'every Slack and PagerDuty payload met the contract');

    // The webhook endpoint: the monitor's state events and the alert's, each signed with the endpoint secret.
    await until('endpoint events', () => {
      const types = m.webhook.accepted('/endpoint').map((c) => c.json.type);
      return ['monitor.degraded', 'monitor.down', 'monitor.up', 'alert.firing', 'alert.acknowledged', 'alert.resolved'].every((x) => types.includes(x));
    });
    const endpoint_calls = m.webhook.calls.filter((c) => c.path === '/endpoint');
    t.equal(endpoint_calls.filter((c) => !c.accepted).length, 0, 'every endpoint delivery verified with the endpoint secret (standardwebhooks)');
    t.equal(m.webhook.calls.filter((c) => c.path === '/channel' && !c.accepted).length, 0, 'every channel delivery verified with the channel secret');
    const web_events = endpoint_calls.filter((c) => c.json?.data?.monitor?.id === web.id || c.json?.data?.alert_event?.monitor_id === web.id);
    t.equal(dedupe(web_events).repeats, 0, 'no webhook-id twice');
    t.ok(web_events.every((c) => c.json.id === c.headers['webhook-id']), 'body id = webhook-id header');
    void policy;
  });

  await t.test('uptime and checks agree with what the test did to web', async (t) => {
    const web = mon('web');
    const checks = await allChecks(m, web.id, new Date(web_from_ms - 60_000).toISOString());
    const rounds = [...byRound(checks).entries()].filter(([k, cs]) => k >= web_from_ms && cs.length === 3);
    const verdict = (cs: typeof checks) => {
      const bad = cs.filter((c) => !c.success).length;
      return bad >= 2 ? 'down' : bad === 1 ? 'degraded' : 'up';
    };
    // Rounds that began within a phase of the test show that phase (checks run at the round's
    // start and the targets answer or refuse at once; a round within 1 s of a switch may show either).
    const inside = (from: number, to: number) => rounds.filter(([k]) => k >= from + 1000 && k < to - 1000).map(([, cs]) => verdict(cs));
    const denied = inside(marks.deny!, marks.stop!);
    const stopped = inside(marks.stop!, marks.start!);
    t.ok(denied.length >= 1 && denied.every((v) => v === 'degraded'), `rounds while one node was denied: ${denied.join(', ')}`);
    t.ok(stopped.length >= 4 && stopped.every((v) => v === 'down'), `rounds while HTTP was stopped: ${stopped.length} down`);
    const stopped_checks = rounds.filter(([k]) => k >= marks.stop! + 1000 && k < marks.start! - 1000).flatMap(([, cs]) => cs);
    t.ok(stopped_checks.every((c) => !c.success && c.error), `each of the ${stopped_checks.length} failed checks carries its error`);

    // Uptime over whole rounds [first, last) must count exactly these rounds.
    const judged = rounds.filter(([k]) => k + ROUND_S * 1000 + 10_000 < Date.now());
    const from_ms = judged[0]![0];
    const to_ms = judged.at(-1)![0];
    const counted = judged.filter(([k]) => k < to_ms).map(([, cs]) => verdict(cs));
    const want = { up: counted.filter((v) => v === 'up').length, degraded: counted.filter((v) => v === 'degraded').length, down: counted.filter((v) => v === 'down').length,
      // every round of the window had reports (the rounds above come from the checks)
      no_data: 0 };
    // A round judged at its deadline without a slow node is judged again when that node's result
    // arrives: give such a re-judgement a moment, then compare.
    const read = () => api<any>('GET', `/v1/monitors/${web.id}/uptime?from=${new Date(from_ms).toISOString()}&to=${new Date(to_ms).toISOString()}`);
    const same = (u: any) => u.rounds.up === want.up && u.rounds.degraded === want.degraded && u.rounds.down === want.down && u.rounds.no_data === 0;
    const uptime = await until('uptime to count the rounds the checks show', async () => { const u = await read(); return same(u) ? u : null; }, 30_000, 1000).catch(read);
    t.same(uptime.rounds, want, `uptime counts the rounds the checks show (${JSON.stringify(want)})`);
    t.equal(uptime.downtime_s, want.down * ROUND_S, 'downtime = down rounds x interval');
    t.equal(uptime.degraded_s, want.degraded * ROUND_S, 'degraded time likewise');
    t.equal(uptime.incidents, 1, 'one down spell');
    const ratio = (want.up + want.degraded) / counted.length;
    t.ok(Math.abs(uptime.uptime - ratio) < 1e-6, `uptime ${uptime.uptime} = (up + degraded) / rounds`);
  });

  await t.test('a silence holds the pages back and keeps the history', async (t) => {
    const dns = mon('dns');
    await api('POST', '/v1/alert-policies', { name: 'dns pages', monitor_id: dns.id, channel_ids: [ch.slack_silenced.id], delay_s: 0, recovery_n: 1 });
    const silence = await api<{ id: string; status: string }>('POST', '/v1/alert-silences', { monitor_id: dns.id, reason: 'DNS migration', starts_at: new Date(Date.now() - 1000).toISOString(), ends_at: new Date(Date.now() + 3_600_000).toISOString() });
    t.equal(silence.status, 'active');
    await net.switchTarget('/dns', { name: T.mutable.name, type: 'A', answer: '198.19.1.99' });
    await waitState('dns', 'down');
    const event = await until('the silenced event', async () => (await events('dns'))[0] ?? null);
    t.equal(event.suppressed, 'silence', 'the event says a silence held it back');
    await net.switchTarget('/dns', { name: T.mutable.name, type: 'A', answer: T.mutable.answer });
    await waitState('dns', 'up');
    const detail = await until('the event to resolve', async () => {
      const e = await api<AlertEvent>('GET', `/v1/alert-events/${event.id}`);
      return e.status === 'resolved' ? e : null;
    });
    t.ok(detail.notifications!.length >= 1 && detail.notifications!.every((n) => n.suppressed === 'silence' && n.delivery_id === null), 'its pages are recorded as suppressed, with no delivery');
    await sleep(3000);
    t.equal(m.slack.calls.filter((c) => c.path === slackPath('silenced')).length, 0, 'the channel got nothing');
    const history = await changes('dns');
    t.ok(history.some((c) => c.to_state === 'down') && history[0]!.to_state === 'up', 'state history kept: down, then up');
    const checks = await allChecks(m, dns.id, '-10m');
    t.ok(checks.filter((c) => !c.success).length >= 3, 'the failed checks are stored');
    const ended = await api<{ status: string }>('PATCH', `/v1/alert-silences/${silence.id}`, { ends_at: new Date().toISOString() });
    t.equal(ended.status, 'expired', 'ended by setting ends_at to now');
  });

  await t.test('a maintenance window holds the pages back and keeps the history', async (t) => {
    const rbl = mon('rbl');
    await api('POST', '/v1/alert-policies', { name: 'rbl pages', monitor_id: rbl.id, channel_ids: [ch.slack_maint.id], delay_s: 0, recovery_n: 1 });
    const window = await api<{ id: string }>('POST', '/v1/maintenance-windows', { title: 'mail relay move', scope_type: 'monitor', scope_ids: [rbl.id], starts_at: new Date(Date.now() - 1000).toISOString(), ends_at: new Date(Date.now() + 3_600_000).toISOString() });
    await waitState('rbl', 'maintenance');
    const listed_ms = Date.now();
    await net.switchTarget('/dnsbl/list', { address: '198.19.1.66' });
    const listed = await until('failed rbl checks from every node', async () => {
      const cs = (await allChecks(m, rbl.id, new Date(listed_ms).toISOString())).filter((c) => !c.success);
      return new Set(cs.map((c) => c.node_id)).size === 3 ? cs : null;
    });
    t.match(listed[0]!.error, /listed: 198\.19\.1\.66 in bl\.e2e\.test/, 'the listing is the error');
    t.equal((await get(rbl.id)).state, 'maintenance', 'the state stays maintenance');
    await net.switchTarget('/dnsbl/unlist', { address: '198.19.1.66' });
    const clean_ms = Date.now();
    await until('a clean round', async () => (await allChecks(m, rbl.id, new Date(clean_ms + ROUND_S * 1000).toISOString())).filter((c) => c.success).length >= 3);
    await api('PATCH', `/v1/maintenance-windows/${window.id}`, { ends_at: new Date().toISOString() });
    await waitState('rbl', 'up');
    await sleep(3000);
    t.equal(m.slack.calls.filter((c) => c.path === slackPath('maintenance')).length, 0, 'the channel got nothing');
    const evs = await events('rbl');
    t.ok(evs.every((e) => e.suppressed === 'maintenance'), `no page left the building (${evs.length} event(s), suppressed: ${evs.map((e) => e.suppressed).join(', ')})`);
    const history = await changes('rbl');
    t.ok(history.some((c) => c.to_state === 'maintenance' && c.from_state === 'up'), 'the window is in the state history');
  });

  await t.test('an alert group collapses several monitors into one message', async (t) => {
    const edge_name = 'edge.e2e.test';
    await net.switchTarget('/dns', { name: edge_name, type: 'A', answer: T.mutable.answer });
    const channel_edge = await channel('edge slack', 'slack', { webhook_url: `${m.slack.origin}${slackPath('edge')}` });
    // The three monitors' rounds have different phases, so they fail within one interval of each other: the wait covers it.
    const group = await api<{ id: string }>('POST', '/v1/alert-groups', { name: 'edge', group_by: 'monitor_prefix', group_value: 'edge-', wait_seconds: 2 * ROUND_S });
    const names = ['edge-a', 'edge-b', 'edge-c'];
    for (const name of names) {
      const x = await api<Monitor>('POST', '/v1/monitors', { name, type: 'dns', target: edge_name, interval_s: ROUND_S, node_count: 3, config: { server: T.dns_server, expected_values: [T.mutable.answer], timeout_ms: 2000 } });
      monitors.set(name, x);
      await api('POST', '/v1/alert-policies', { name: `${name} pages`, monitor_id: x.id, channel_ids: [channel_edge.id], delay_s: 0, recovery_n: 1 });
    }
    await Promise.all(names.map((name) => waitState(name, 'up')));
    await net.switchTarget('/dns', { name: edge_name, type: 'A', answer: '198.19.1.99' });
    await Promise.all(names.map((name) => waitState(name, 'down')));
    const firing = await until('an event per monitor', async () => {
      const all = await Promise.all(names.map((name) => events(name)));
      return all.every((e) => e.some((x) => x.fired_at)) ? all.map((e) => e[0]!) : null;
    });
    const first = await until('the collapsed page', () => m.slack.accepted(slackPath('edge'))[0] ?? null, 120_000);
    // Anything else would come by the end of the wait after the last event fired.
    const last_fired_ms = Math.max(...firing.map((e) => Date.parse(e.fired_at!)));
    await sleep(Math.max(0, last_fired_ms + 2 * ROUND_S * 1000 + 5000 - Date.now()));
    const pages = m.slack.accepted(slackPath('edge'));
    t.equal(pages.length, 1, `one message for ${names.length} monitors (${firing.length} alert events)`);
    for (const name of names) t.ok(first.body.includes(name), `it names ${name}`);
    await net.switchTarget('/dns', { name: edge_name, type: 'A', answer: T.mutable.answer });
    await Promise.all(names.map((name) => waitState(name, 'up')));
    void group;
  });

  await t.test('every webhook delivery verified; no receiver saw a message id twice', async (t) => {
    for (const path of ['/endpoint', '/channel']) {
      const calls = m.webhook.calls.filter((c: ReceivedCall) => c.path === path);
      t.equal(calls.filter((c) => !c.accepted).length, 0, `${path}: all ${calls.length} verified`);
      t.equal(dedupe(calls).repeats, 0, `${path}: ${dedupe(calls).unique.length} distinct webhook-ids, no repeat`);
    }
    const mail_ids = m.smtp.messages.map((x) => x.parsed.messageId);
    t.equal(new Set(mail_ids).size, mail_ids.length, 'e-mails: distinct Message-IDs');
  });
}
