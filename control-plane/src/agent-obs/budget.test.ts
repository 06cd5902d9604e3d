import t from 'tap';
import { startSmtpServer } from '../email/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { startReceiver } from '../delivery/test-support.js';
import { llmResult, placeBacking, roundOf, roundsFrom } from './test-support.js';

/*
 * Cost and budget (docs/api/agent-obs.md "Cost and budget"): results of several nodes ingested in
 * parallel charge the month's total under the monitor's row lock; the check that crosses the
 * budget moves the monitor to exceeded_budget, pauses its backing monitor and sends one e-mail;
 * later results charge nothing (failure_class budget); resuming needs a higher budget first.
 */

const FAST = { delivery_poll_interval_ms: 50, delivery_retry_delays_ms: [50, 50, 50] };
const LOOPBACK = ['127.0.0.0/8'];

t.test('parallel results never overshoot the budget by more than one check; one e-mail; manual resume', async (t) => {
  const smtp = await startSmtpServer(t);
  const { app, sql, deps } = await testApp(t, {
    config: { ...FAST, smtp_url: smtp.smtp_url, probe_allow_cidrs: LOOPBACK, plan: 'business', agent_obs_prices: { 'priced-model': { input_per_mtok_usd: 1000, output_per_mtok_usd: 2000 } } },
    delivery: true,
  });
  const u = await registerUser(app);
  const api = (method: string, path: string, body?: unknown) => call(app, method, path, { token: u.access_token, body });
  const created = await api('POST', '/v1/agent-obs/monitors', {
    agent_name: 'support bot', type: 'llm', endpoint_url: 'http://127.0.0.1:9/v1/chat/completions', frequency_seconds: 10,
    failure_threshold: { latency: 5000 }, budget_per_check_usd: 0.01, budget_monthly_usd: 0.05,
    endpoint_config: { model: 'house-model', prompt: 'ping', max_tokens: 8 },
  });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const m = created.body.data;
  const nodes = await placeBacking(sql, m.check_monitor_id, 6);

  // 6 nodes × 4 rounds, every node's batch at once: 24 checks of 0.01 USD each against 0.05.
  const batches = nodes.map((n) => [0, -1, -2, -3].map((k) => llmResult(m.check_monitor_id, roundOf(m.check_monitor_id, 10, k))));
  const outcomes = await Promise.all(nodes.map((n, i) => deps.results.ingest(n, batches[i]!)));
  for (const o of outcomes) t.same(o.rejected, [], 'every result accepted');

  const after = (await api('GET', `/v1/agent-obs/monitors/${m.id}`)).body.data;
  t.equal(after.status, 'exceeded_budget');
  t.ok(after.paused_at, 'paused_at set');
  t.ok(after.total_cost_this_month_usd > 0.05, `total ${after.total_cost_this_month_usd} is over the budget`);
  t.ok(after.total_cost_this_month_usd <= 0.05 + 0.01 + 1e-9, `total ${after.total_cost_this_month_usd} overshoots by at most one check`);
  const events = (await api('GET', `/v1/agent-obs/events?monitor_id=${m.id}&limit=200`)).body.data;
  t.equal(events.total, 24, 'one event per check');
  const counted = events.items.filter((e: any) => e.failure_class !== 'budget');
  const refused = events.items.filter((e: any) => e.failure_class === 'budget');
  t.equal(counted.length, 6, 'six checks counted (0.06 USD)');
  t.equal(refused.length, 18);
  t.ok(refused.every((e: any) => e.cost_usd === null && e.success === false), 'checks past the budget charge nothing');
  const sum = counted.reduce((s: number, e: any) => s + e.cost_usd, 0);
  t.ok(Math.abs(sum - after.total_cost_this_month_usd) < 1e-9, 'the total is the sum of counted costs');
  t.ok(new Set(events.items.map((e: any) => e.region)).size >= 1, 'region set from the node');

  const [backing] = await sql<{ status: string }[]>`SELECT status FROM monitors WHERE id = ${m.check_monitor_id}`;
  t.equal(backing!.status, 'paused', 'the backing monitor stops running');
  const budgetMails = () => smtp.messages.filter((x) => /budget exceeded/.test(x.parsed.subject ?? ''));
  await smtp.waitFor(2); // the address verification of registration, and the budget e-mail
  t.equal(budgetMails().length, 1, 'one budget e-mail');
  t.match(budgetMails()[0]!.parsed.subject, /support bot.*budget exceeded/);
  t.same(budgetMails()[0]!.to, [u.email]);

  // The same batches again (a node re-sends after a lost ack): nothing new.
  await Promise.all(nodes.map((n, i) => deps.results.ingest(n, batches[i]!)));
  t.equal((await api('GET', `/v1/agent-obs/events?monitor_id=${m.id}`)).body.data.total, 24, 're-sent results record nothing');

  const early = await api('POST', `/v1/agent-obs/monitors/${m.id}/resume`);
  t.equal(early.status, 409, 'no resume while the month is over budget');
  t.equal(early.body.error.code, 'CONFLICT');
  t.equal((await api('PATCH', `/v1/agent-obs/monitors/${m.id}`, { budget_monthly_usd: 1 })).status, 200);
  t.equal((await api('GET', `/v1/agent-obs/monitors/${m.id}`)).body.data.status, 'exceeded_budget', 'a budget change alone does not resume');
  const resumed = await api('POST', `/v1/agent-obs/monitors/${m.id}/resume`);
  t.equal(resumed.status, 200, JSON.stringify(resumed.body));
  t.equal(resumed.body.data.status, 'active');
  t.equal(resumed.body.data.paused_at, null);
  const [again] = await sql<{ status: string }[]>`SELECT status FROM monitors WHERE id = ${m.check_monitor_id}`;
  t.equal(again!.status, 'active');

  // Cost from reported tokens × the price table: 100 prompt + 50 completion tokens of priced-model.
  const late = await deps.results.ingest(nodes[0]!, [llmResult(m.check_monitor_id, roundOf(m.check_monitor_id, 10, -300), { model: 'priced-model', tokens: [100, 50] })]);
  t.same(late.rejected, [], 'an earlier round, reported late, is accepted');
  const priced = (await api('GET', `/v1/agent-obs/events?monitor_id=${m.id}&limit=1`)).body.data.items[0];
  t.equal(priced.failure_class, null, JSON.stringify(priced));
  t.equal(priced.cost_usd, (100 * 1000 + 50 * 2000) / 1e6, 'tokens × price per million');
  t.equal(budgetMails().length, 1, 'still one budget e-mail');
});

t.test('failure classes and the checks list (offset and cursor modes)', async (t) => {
  const { app, sql, deps } = await testApp(t, { config: { probe_allow_cidrs: LOOPBACK, plan: 'business' } });
  const u = await registerUser(app);
  const api = (method: string, path: string, body?: unknown) => call(app, method, path, { token: u.access_token, body });
  const m = (await api('POST', '/v1/agent-obs/monitors', {
    agent_name: 'bot', type: 'llm', endpoint_url: 'http://127.0.0.1:9/v1/messages', frequency_seconds: 10, failure_threshold: {},
    budget_per_check_usd: 0.001, endpoint_config: { api_style: 'anthropic', model: 'claude-3-5-haiku', prompt: 'ping' },
  })).body.data;
  const [node] = await placeBacking(sql, m.check_monitor_id, 1);
  const id = m.check_monitor_id;
  await deps.results.ingest(node!, [
    llmResult(id, roundOf(id, 10, -1), { status_code: 503 }),
    llmResult(id, roundOf(id, 10, -2), { status_code: 429 }),
    llmResult(id, roundOf(id, 10, -3), { error: 'timed out after 30000 ms', error_class: 'timeout', status_code: 200 }),
    llmResult(id, roundOf(id, 10, -4)),
    llmResult(id, roundOf(id, 10, -5), { model: 'claude-3-5-haiku', tokens: [1000, 1000] }),
  ]);
  const all = (await api('GET', `/v1/agent-obs/monitors/${m.id}/checks?offset=0&limit=10`)).body.data;
  t.equal(all.total, 5);
  t.equal(all.next_cursor, undefined, 'offset mode has no cursor');
  t.same(all.items.map((c: any) => c.error_code), ['5XX', '4XX', 'TIMEOUT', null, null], 'newest round first');
  t.same(all.items.map((c: any) => c.status), ['down', 'down', 'down', 'up', 'up']);
  t.equal(all.items[0].obs_type, 'llm_endpoint');
  const ev = (await api('GET', `/v1/agent-obs/events?monitor_id=${m.id}&success=true`)).body.data;
  t.equal(ev.total, 2);
  t.equal(ev.items.find((e: any) => e.cost_usd !== 0.001).cost_usd, (1000 * 0.8 + 1000 * 4) / 1e6, 'anthropic-priced model');

  const first = (await api('GET', `/v1/agent-obs/monitors/${m.id}/checks?limit=2`)).body.data;
  t.equal(first.items.length, 2);
  t.type(first.next_cursor, 'string');
  const second = (await api('GET', `/v1/agent-obs/monitors/${m.id}/checks?limit=2&cursor=${first.next_cursor}`)).body.data;
  const third = (await api('GET', `/v1/agent-obs/monitors/${m.id}/checks?limit=2&cursor=${second.next_cursor}`)).body.data;
  t.same([...first.items, ...second.items, ...third.items].map((c: any) => c.id), all.items.map((c: any) => c.id), 'keyset pages cover the list once');
  t.equal(third.next_cursor, undefined);
  const bad = await api('GET', `/v1/agent-obs/monitors/${m.id}/checks?cursor=nonsense`);
  t.equal(bad.status, 400);
  t.equal(bad.body.error.code, 'VALIDATION_FAILED');
});

t.test('a failing check notifies the monitor\'s alert channels through the delivery engine', async (t) => {
  const rx = await startReceiver(t);
  const { app, sql, deps } = await testApp(t, { config: { ...FAST, probe_allow_cidrs: LOOPBACK, delivery_allow_cidrs: LOOPBACK, plan: 'business' }, delivery: true });
  const u = await registerUser(app);
  const api = (method: string, path: string, body?: unknown) => call(app, method, path, { token: u.access_token, body });
  const ch = await api('POST', '/v1/alert-channels', { name: 'hook', type: 'webhook', config: { url: rx.url } });
  t.equal(ch.status, 201, JSON.stringify(ch.body));
  const channel_id = ch.body.data.id;
  const m = (await api('POST', '/v1/agent-obs/monitors', {
    agent_name: 'notifying bot', type: 'tool', endpoint_url: 'http://127.0.0.1:9/tool', frequency_seconds: 10, failure_threshold: {}, notification_channels: [channel_id],
  })).body.data;
  t.same(m.notification_channels, [channel_id]);
  const [node] = await placeBacking(sql, m.check_monitor_id, 1);
  const next = roundsFrom(m.check_monitor_id, 10, -50);
  await deps.results.ingest(node!, [
    llmResult(m.check_monitor_id, next(), { type: 'tool_api' }),
    llmResult(m.check_monitor_id, next(), { type: 'tool_api', status_code: 502 }),
  ]);
  const got = await rx.waitFor(1, 60_000);
  const body = JSON.parse(got[0]!.body);
  const failed = (await api('GET', `/v1/agent-obs/events?monitor_id=${m.id}&success=false`)).body.data.items[0];
  t.match(JSON.stringify(body), failed.id, 'the notification names the failing event');
  t.match(JSON.stringify(body), /notifying bot/);
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.equal(rx.received.length, 1, 'only the failing check notifies');
});
