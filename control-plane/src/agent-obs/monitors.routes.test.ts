import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * /v1/agent-obs/monitors: create and validation, the backing monitor, another tenant's id (404),
 * PATCH, pause/resume, the config request, delete; secret headers sealed and read back masked.
 */

const LOOPBACK = ['127.0.0.0/8'];

t.test('agent-obs monitors', async (t) => {
  const { app, sql } = await testApp(t, { config: { probe_allow_cidrs: LOOPBACK, plan: 'business' } });
  const u = await registerUser(app);
  const other = await registerUser(app);
  const api = (method: string, path: string, body?: unknown, token = u.access_token) => call(app, method, path, { token, body });
  const llm = {
    agent_name: 'support bot', type: 'llm', endpoint_url: 'http://127.0.0.1:9/v1/chat/completions', frequency_seconds: 15,
    failure_threshold: { latency: 4000, status_codes: [200], payload_assertions: [{ type: 'json_path', path: '$.choices[0].finish_reason', op: 'eq', value: 'stop' }] },
    budget_per_check_usd: 0.002, budget_monthly_usd: 5, step_name: 'answer',
    endpoint_config: { model: 'gpt-4o-mini', prompt: 'Say pong', max_tokens: 8, headers: { authorization: 'Bearer sk-very-secret-1234' } },
  };

  t.test('validation: the spec\'s envelope and nothing stored', async (t) => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...llm, frequency_seconds: 9 }, 'frequency_seconds'],
      [{ ...llm, budget_per_check_usd: undefined }, 'budget_per_check_usd'],
      [{ ...llm, type: 'chatbot' }, 'type'],
      [{ ...llm, endpoint_url: 'ftp://127.0.0.1/' }, 'endpoint_url'],
      [{ ...llm, endpoint_config: { prompt: 'x' } }, 'endpoint_config.model'],
      [{ ...llm, surprise: 1 }, ''],
      [{ ...llm, notification_channels: ['ach_nope'] }, 'notification_channels'],
      [{ type: 'rag', agent_name: 'r', endpoint_url: 'http://127.0.0.1:9/q', frequency_seconds: 10, failure_threshold: {} }, 'endpoint_config.query'],
    ];
    for (const [body, field] of cases) {
      const r = await api('POST', '/v1/agent-obs/monitors', body);
      t.equal(r.status, 400, `${field}: ${JSON.stringify(r.body)}`);
      t.equal(r.body.error.code, 'VALIDATION_FAILED');
      t.ok(r.body.request_id && r.body.error.request_id, 'request ids');
      if (field) t.match(JSON.stringify(r.body.error), field);
    }
    const [n] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM agent_obs_monitors`;
    t.equal(n!.n, 0);
    const [mons] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM monitors`;
    t.equal(mons!.n, 0, 'no backing monitor left behind');
  });

  t.test('create, read, list, another tenant, PATCH, config, pause/resume, delete', async (t) => {
    const created = await api('POST', '/v1/agent-obs/monitors', llm);
    t.equal(created.status, 201, JSON.stringify(created.body));
    const m = created.body.data;
    t.match(m.id, /^aom_/);
    t.match(m, { owner_id: u.user_id, status: 'active', paused_at: null, total_cost_this_month_usd: 0, frequency_seconds: 15, step_name: 'answer' });
    t.match(m.endpoint_config.headers.authorization, /^•+1234$/, 'secret header masked');
    const [backing] = await sql<{ type: string; interval_s: number; config: any; target: string }[]>`SELECT type, interval_s, config, target FROM monitors WHERE id = ${m.check_monitor_id}`;
    t.match(backing, { type: 'llm_endpoint', interval_s: 15, target: llm.endpoint_url });
    t.notMatch(JSON.stringify(backing!.config), /sk-very-secret/, 'the secret is sealed in the backing monitor');
    t.equal(backing!.config.latency_sla_ms, 4000);
    t.equal(backing!.config.expected_status, '200');
    t.same(JSON.parse(backing!.config.body), { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say pong' }], max_tokens: 8 });
    const [stored] = await sql<{ endpoint_config: any }[]>`SELECT endpoint_config FROM agent_obs_monitors WHERE id = ${m.id}`;
    t.equal(stored!.endpoint_config.headers, undefined, 'no headers kept on the agent-obs row');

    const list = await api('GET', '/v1/agent-obs/monitors');
    t.equal(list.status, 200);
    t.ok(Array.isArray(list.body.data), 'a plain array');
    t.equal(list.body.data.length, 1);
    t.same((await api('GET', '/v1/agent-obs/monitors', undefined, other.access_token)).body.data, []);
    for (const [method, path] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/pause'], ['GET', '/config'], ['GET', '/checks']] as const) {
      const r = await api(method, `/v1/agent-obs/monitors/${m.id}${path}`, method === 'PATCH' ? { agent_name: 'x' } : undefined, other.access_token);
      t.equal(r.status, 404, `${method} ${path} of another account`);
      t.equal(r.body.error.code, 'NOT_FOUND');
    }
    t.equal((await api('GET', '/v1/agent-obs/monitors/aom_nope')).status, 404);
    const foreign = await api('GET', `/v1/agent-obs/events/stream?monitor_id=${m.id}`, undefined, other.access_token);
    t.equal(foreign.status, 404, 'another account cannot stream a monitor');

    const patched = await api('PATCH', `/v1/agent-obs/monitors/${m.id}`, { agent_name: 'support bot v2', frequency_seconds: 30 });
    t.equal(patched.status, 200, JSON.stringify(patched.body));
    t.match(patched.body.data, { agent_name: 'support bot v2', frequency_seconds: 30 });
    const [after] = await sql<{ interval_s: number; config: any }[]>`SELECT interval_s, config FROM monitors WHERE id = ${m.check_monitor_id}`;
    t.equal(after!.interval_s, 30);
    t.equal(after!.config.headers.authorization, backing!.config.headers.authorization, 'the sealed secret is kept through a PATCH');
    t.equal((await api('PATCH', `/v1/agent-obs/monitors/${m.id}`, { budget_per_check_usd: null })).status, 400, 'llm keeps a per-check budget');

    const cfg = await api('GET', `/v1/agent-obs/monitors/${m.id}/config`);
    t.match(cfg.body.data, { monitor_id: m.id, obs_type: 'llm_endpoint', endpoint_url: llm.endpoint_url, check_interval_s: 30, latency_sla_ms: 4000, model_name: 'gpt-4o-mini', expected_tokens_max: null });
    const put = await api('PUT', `/v1/agent-obs/monitors/${m.id}/config`, {
      obs_type: 'llm_endpoint', endpoint_url: 'http://127.0.0.1:9/v2/chat', check_interval_s: 20, latency_sla_ms: 2500, expected_tokens_max: 64,
      model_name: 'gpt-4o', payload_template: { model: '{{model_name}}', messages: [{ role: 'user', content: 'ping {{monitor_id}}' }] },
    });
    t.equal(put.status, 200, JSON.stringify(put.body));
    t.match(put.body.data, { check_interval_s: 20, latency_sla_ms: 2500, expected_tokens_max: 64, model_name: 'gpt-4o', endpoint_url: 'http://127.0.0.1:9/v2/chat' });
    const [cfgd] = await sql<{ interval_s: number; target: string; config: any }[]>`SELECT interval_s, target, config FROM monitors WHERE id = ${m.check_monitor_id}`;
    t.match(cfgd, { interval_s: 20, target: 'http://127.0.0.1:9/v2/chat' });
    t.match(cfgd!.config, { expected_tokens_max: 64, model_name: 'gpt-4o', latency_sla_ms: 2500 });
    t.ok(cfgd!.config.payload_template, 'the template replaces the body');
    const wrongType = await api('PUT', `/v1/agent-obs/monitors/${m.id}/config`, { obs_type: 'rag', endpoint_url: llm.endpoint_url, check_interval_s: 20 });
    t.equal(wrongType.status, 400);
    const badTemplate = await api('PUT', `/v1/agent-obs/monitors/${m.id}/config`, { obs_type: 'llm_endpoint', endpoint_url: llm.endpoint_url, check_interval_s: 20, payload_template: { x: '{{nope}}' } });
    t.equal(badTemplate.status, 400, 'an unknown template variable is refused');

    const paused = await api('POST', `/v1/agent-obs/monitors/${m.id}/pause`);
    t.equal(paused.status, 200);
    t.equal(paused.body.data.status, 'paused');
    t.ok(paused.body.data.paused_at);
    t.equal((await api('POST', `/v1/agent-obs/monitors/${m.id}/pause`)).status, 409);
    const [bp] = await sql<{ status: string }[]>`SELECT status FROM monitors WHERE id = ${m.check_monitor_id}`;
    t.equal(bp!.status, 'paused');
    const resumed = await api('POST', `/v1/agent-obs/monitors/${m.id}/resume`);
    t.equal(resumed.status, 200);
    t.match(resumed.body.data, { status: 'active', paused_at: null });
    t.equal((await api('POST', `/v1/agent-obs/monitors/${m.id}/resume`)).status, 409);

    t.equal((await api('DELETE', `/v1/agent-obs/monitors/${m.id}`)).status, 200);
    t.equal((await api('GET', `/v1/agent-obs/monitors/${m.id}`)).status, 404);
    const [gone] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM monitors WHERE id = ${m.check_monitor_id}`;
    t.equal(gone!.n, 0, 'the backing monitor goes too');
  });

  t.test('tool and rag configs become assertions', async (t) => {
    const tool = await api('POST', '/v1/agent-obs/monitors', {
      agent_name: 'weather tool', type: 'tool', endpoint_url: 'http://127.0.0.1:9/tool', frequency_seconds: 10, failure_threshold: {},
      endpoint_config: { method: 'POST', body: { city: 'Oslo' }, expected_json: { ok: true, 'unit name': 'C' } },
    });
    t.equal(tool.status, 201, JSON.stringify(tool.body));
    const [tc] = await sql<{ config: any }[]>`SELECT config FROM monitors WHERE id = ${tool.body.data.check_monitor_id}`;
    t.same(JSON.parse(tc!.config.body), { city: 'Oslo' });
    t.same(tc!.config.assertions.map((a: any) => [a.path, a.value]), [['$.ok', true], ["$['unit name']", 'C']]);
    const rag = await api('POST', '/v1/agent-obs/monitors', {
      agent_name: 'kb', type: 'rag', endpoint_url: 'http://127.0.0.1:9/search', frequency_seconds: 10, failure_threshold: {},
      endpoint_config: { query: 'refund policy', expected_document_ids: ['doc-7'], expected_text: 'within 30 days' },
    });
    t.equal(rag.status, 201, JSON.stringify(rag.body));
    const [rc] = await sql<{ config: any; type: string }[]>`SELECT config, type FROM monitors WHERE id = ${rag.body.data.check_monitor_id}`;
    t.equal(rc!.type, 'rag');
    t.same(rc!.config.assertions.map((a: any) => a.value), ['doc-7', 'within 30 days']);
  });
});

t.test('every agent-obs route is in the generated OpenAPI document', async (t) => {
  const { app } = await testApp(t);
  const doc = await (await app.request('/v1/openapi.json')).json() as { paths: Record<string, Record<string, unknown>> };
  const want: Array<[string, string[]]> = [
    ['/v1/agent-obs/monitors', ['get', 'post']], ['/v1/agent-obs/monitors/{id}', ['get', 'patch', 'delete']],
    ['/v1/agent-obs/monitors/{id}/pause', ['post']], ['/v1/agent-obs/monitors/{id}/resume', ['post']],
    ['/v1/agent-obs/monitors/{id}/config', ['get', 'put']], ['/v1/agent-obs/monitors/{id}/checks', ['get']],
    ['/v1/agent-obs/events', ['get']], ['/v1/agent-obs/events/stream', ['get']],
  ];
  for (const [path, methods] of want) for (const m of methods) t.ok(doc.paths[path]?.[m], `${m.toUpperCase()} ${path}`);
});
