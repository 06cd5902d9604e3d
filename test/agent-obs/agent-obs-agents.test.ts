import t from 'tap';
import type { Agent } from '@vantage/node-agent';
import { startRealAgent } from '../../control-plane/src/probes/real-agents.js';
import { makeToken, waitFor } from '../../control-plane/src/hub/test-harness.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { startEndpoints, type EndpointPath, type Mode } from './endpoints.js';

/*
 * Agent observability end to end: a real agent (the node-agent code and its llm_endpoint,
 * tool_api and rag checks) runs the checks of four agent-obs monitors against real local
 * endpoints (OpenAI-compatible chat, Anthropic-style messages, a tool API, a RAG search); their
 * results reach the control plane by the monitor results path and become events with the cost
 * of the tokens each chat API reported. Then each endpoint is made slow, failing, malformed or
 * wrong, and the events say so (timeout, 5xx, malformed, semantic).
 */

const LOOPBACK = ['127.0.0.0/8'];
const SLOW_MS = 3000;
t.setTimeout(400_000);

const endpoints = await startEndpoints({ slow_ms: SLOW_MS });
t.teardown(() => endpoints.close());
const { app, sql, url } = await testApp(t, { config: { probe_allow_cidrs: LOOPBACK, plan: 'business' } });
const user = await registerUser(app);
const api = (method: string, path: string, body?: unknown) => call(app, method, path, { token: user.access_token, body });

async function startAgent(): Promise<Agent> {
  const token = await makeToken(sql, { country_code: 'DE', user_id: user.user_id });
  return (await startRealAgent(t, { url, token, allow_cidrs: LOOPBACK, capabilities: ['http'] })).agent;
}

/** The newest events of monitor `id`. */
const eventsOf = async (id: string) => (await api('GET', `/v1/agent-obs/events?monitor_id=${id}&limit=200`)).body.data.items as any[];

t.test('four endpoint kinds checked by a real agent; costs from reported tokens; failure classes', async (t) => {
  await startAgent();
  await waitFor(async () => (await sql`SELECT count(*)::int AS n FROM nodes WHERE status = 'online'`)[0]!.n === 1, 60_000);
  const base = { frequency_seconds: 10, budget_per_check_usd: 0.5 };
  const specs: Array<{ key: EndpointPath; body: Record<string, unknown> }> = [
    { key: '/v1/chat/completions', body: { agent_name: 'openai chat', type: 'llm', endpoint_url: `${endpoints.origin}/v1/chat/completions`, failure_threshold: { latency: 2000 },
      endpoint_config: { model: 'gpt-4o-mini', prompt: 'Say pong', max_tokens: 8, headers: { authorization: 'Bearer sk-test-secret-abcd' } } } },
    { key: '/v1/messages', body: { agent_name: 'anthropic messages', type: 'llm', endpoint_url: `${endpoints.origin}/v1/messages`, failure_threshold: { latency: 2000 },
      endpoint_config: { api_style: 'anthropic', model: 'claude-3-5-haiku-20241022', prompt: 'Say pong', headers: { 'x-api-key': 'sk-ant-test-wxyz' } } } },
    { key: '/tool', body: { agent_name: 'weather tool', type: 'tool', endpoint_url: `${endpoints.origin}/tool`, failure_threshold: { latency: 2000 },
      endpoint_config: { body: { city: 'Oslo' }, expected_json: { ok: true } } } },
    { key: '/search', body: { agent_name: 'kb search', type: 'rag', endpoint_url: `${endpoints.origin}/search`, failure_threshold: { latency: 2000 },
      endpoint_config: { query: 'refund policy', expected_document_ids: ['doc-7'], expected_text: 'within 30 days' } } },
  ];
  const monitors = new Map<EndpointPath, any>();
  for (const s of specs) {
    const r = await api('POST', '/v1/agent-obs/monitors', { ...base, ...s.body });
    t.equal(r.status, 201, JSON.stringify(r.body));
    monitors.set(s.key, r.body.data);
  }

  // Every endpoint answers well: a successful event each, costs from the reported usage.
  await waitFor(async () => {
    for (const m of monitors.values()) if (!(await eventsOf(m.id)).some((e) => e.success)) return false;
    return true;
  }, 180_000);
  const ok = async (k: EndpointPath) => (await eventsOf(monitors.get(k).id)).find((e) => e.success);
  const openai = await ok('/v1/chat/completions');
  t.equal(openai.cost_usd, (20 * 0.15 + 5 * 0.6) / 1e6, 'OpenAI usage × the gpt-4o-mini price');
  t.equal(openai.region, 'DE', 'region of the node');
  const anthropic = await ok('/v1/messages');
  t.equal(anthropic.cost_usd, (30 * 0.8 + 10 * 4) / 1e6, 'Anthropic usage × the claude-3-5-haiku family price');
  t.equal((await ok('/tool')).cost_usd, 0.5, 'no tokens: budget_per_check_usd');
  t.equal((await ok('/search')).failure_class, null);
  const sent = endpoints.seen['/v1/messages']!.at(-1)!;
  t.equal(sent.headers['anthropic-version'], '2023-06-01');
  t.equal(sent.headers['x-api-key'], 'sk-ant-test-wxyz', 'the sealed secret header reaches the endpoint');
  t.match(sent.body, { model: 'claude-3-5-haiku-20241022', max_tokens: 256, messages: [{ role: 'user', content: 'Say pong' }] });
  t.same(endpoints.seen['/search']!.at(-1)!.body, { query: 'refund policy' });

  // Then each goes wrong its own way.
  const faults: Array<[EndpointPath, Mode, string]> = [
    ['/v1/chat/completions', 'malformed', 'malformed'], ['/v1/messages', 'slow', 'timeout'], ['/tool', 'fail', '5xx'], ['/search', 'wrong', 'semantic'],
  ];
  for (const [k, mode] of faults) endpoints.modes[k] = mode;
  await waitFor(async () => {
    for (const [k, , cls] of faults) if (!(await eventsOf(monitors.get(k).id)).some((e) => e.failure_class === cls)) return false;
    return true;
  }, 180_000);
  for (const [k, mode, cls] of faults) t.ok((await eventsOf(monitors.get(k).id)).some((e) => e.failure_class === cls && !e.success), `${k} ${mode} → ${cls}`);
  endpoints.modes['/v1/chat/completions'] = 'wrong';
  await waitFor(async () => (await eventsOf(monitors.get('/v1/chat/completions').id)).filter((e) => e.failure_class === 'malformed').length >= 2, 120_000);
  const checks = (await api('GET', `/v1/agent-obs/monitors/${monitors.get('/tool').id}/checks?limit=100`)).body.data;
  t.ok(checks.items.some((c: any) => c.status === 'down' && c.error_code === '5XX'), 'check records carry the error code');
  t.ok(checks.items.some((c: any) => c.status === 'up' && c.latency_ms !== null), 'and latency');
});
