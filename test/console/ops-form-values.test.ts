import t from 'tap';
import {
  agentObsConfigRequestSchema, agentObsConfigSchema, agentObsMonitorSchema, createAgentObsMonitorSchema, createMcpTokenRequestSchema, mcpTokenSchema, patchAgentObsMonitorSchema, updateMcpTokenRequestSchema,
  type AgentObsMonitor,
} from '@vantage/shared-protocol';
import { AGENT_OBS_KINDS } from '../../control-plane/console/src/api/vocabulary.js';
import { configBody, configChanged, createBody, EMPTY_VALUES, endpointConfigOf, FieldProblem, patchBody, valuesOf, type AgentObsValues } from '../../control-plane/console/src/pages/agent-obs-form/values.js';
import { createTokenBody, EMPTY_TOKEN, tokenState, tokenValuesOf, updateTokenBody } from '../../control-plane/console/src/pages/mcp-tokens/token-values.js';

// The agent-obs monitor form and the MCP token form turn their inputs into API bodies: what they
// send is checked here against the API's own request schemas (shared-protocol) for every kind and
// type, a saved monitor or token comes back into the form and out again unchanged, and JSON that
// does not parse is the field's fault (nothing is sent).

/** The form filled for `type` with every setting its kind has. */
function filled(type: AgentObsValues['type']): AgentObsValues {
  return {
    ...EMPTY_VALUES, type, agent_name: `${type} bot`, endpoint_url: 'https://agent.example.com/api', frequency_seconds: '30', latency_ms: '1500',
    status_codes: '200,204', budget_per_check_usd: '0.01', budget_monthly_usd: '25', step_name: 'answer',
    model: 'gpt-4o-mini', prompt: 'Say pong', max_tokens: '16', method: 'POST', body: '{"city": "Oslo"}', expected_json: '{"ok": true}',
    query: 'refund policy', expected_document_ids: 'doc-7\ndoc-9', expected_text: 'within 30 days',
    headers: 'Authorization: Bearer sk-test\nX-Trace: on', timeout_ms: '5000', notification_channels: ['ach_01jd3k6w9z4q8r2t7v5x1y3b6c'],
  };
}

t.test('every kind the form offers makes a body the create and patch schemas accept', async (t) => {
  for (const type of AGENT_OBS_KINDS) {
    const v = filled(type);
    const body = createBody(v);
    const parsed = createAgentObsMonitorSchema.safeParse(body);
    t.ok(parsed.success, `${type}: create body passes`, { issues: parsed.error?.issues });
    const config = endpointConfigOf(v);
    if (type === 'llm') t.same(config, { api_style: 'openai', model: 'gpt-4o-mini', prompt: 'Say pong', max_tokens: 16, headers: { Authorization: 'Bearer sk-test', 'X-Trace': 'on' }, timeout_ms: 5000 });
    if (type === 'rag') t.same(config, { query: 'refund policy', expected_document_ids: ['doc-7', 'doc-9'], expected_text: 'within 30 days', headers: { Authorization: 'Bearer sk-test', 'X-Trace': 'on' }, timeout_ms: 5000 });
    if (type === 'tool' || type === 'other') t.same(config, { method: 'POST', body: { city: 'Oslo' }, expected_json: { ok: true }, headers: { Authorization: 'Bearer sk-test', 'X-Trace': 'on' }, timeout_ms: 5000 });

    // Saved as the API shows it, read into the form, sent back as a PATCH: the same settings.
    const saved: AgentObsMonitor = agentObsMonitorSchema.parse({
      ...parsed.data, id: 'aom_01jd3k6w9z4q8r2t7v5x1y3b6c', owner_id: 'u_1', budget_per_check_usd: 0.01, budget_monthly_usd: 25, step_name: 'answer',
      failure_threshold: { ...parsed.data!.failure_threshold, payload_assertions: [{ type: 'json_path', path: '$.ok', op: 'eq', value: true }] },
      endpoint_config: config, notification_channels: v.notification_channels, status: 'active', paused_at: null, total_cost_this_month_usd: 0,
      check_monitor_id: 'm_1', created_at: '2026-11-29T00:00:00Z', updated_at: '2026-11-29T00:00:00Z',
    });
    const patch = patchBody(valuesOf(saved));
    t.ok(patchAgentObsMonitorSchema.safeParse(patch).success, `${type}: patch body passes`, { issues: patchAgentObsMonitorSchema.safeParse(patch).error?.issues });
    t.same(patch.endpoint_config, config, `${type}: the settings come back unchanged`);
    t.same(patch.failure_threshold, saved.failure_threshold, `${type}: the threshold, payload assertions kept`);
    t.same([patch.budget_monthly_usd, patch.step_name], [25, 'answer']);
  }
});

t.test('the minimal form: defaults left to the API; a cleared budget is sent as none on edit', async (t) => {
  const v = { ...EMPTY_VALUES, type: 'tool' as const, agent_name: 'tool', endpoint_url: 'https://tool.example.com/' };
  t.same(createBody(v), { agent_name: 'tool', type: 'tool', endpoint_url: 'https://tool.example.com/', frequency_seconds: 60, failure_threshold: {}, endpoint_config: {} });
  t.notOk(createAgentObsMonitorSchema.safeParse({ ...createBody({ ...v, type: 'llm' }) }).success, 'an llm monitor needs the cost of one check, as the API says');
  const saved = agentObsMonitorSchema.parse({
    id: 'aom_1', owner_id: 'u_1', agent_name: 'tool', type: 'tool', endpoint_url: 'https://tool.example.com/', frequency_seconds: 60, failure_threshold: {},
    budget_per_check_usd: null, budget_monthly_usd: 9, step_name: 'x', endpoint_config: {}, notification_channels: [], status: 'active', paused_at: null,
    total_cost_this_month_usd: 0, check_monitor_id: 'm_1', created_at: '2026-11-29T00:00:00Z', updated_at: '2026-11-29T00:00:00Z',
  });
  const patch = patchBody({ ...valuesOf(saved), budget_monthly_usd: '', step_name: '' });
  t.same([patch.budget_monthly_usd, patch.step_name], [null, null]);
});

t.test('payload assertions, template and token limit: what the API validates, a saved config round-trips', async (t) => {
  const v = filled('llm');
  const row = (o: Record<string, string>) => ({ type: '', op: '', value: '', path: '', header: '', ...o });
  const withPayload: AgentObsValues = {
    ...v, payload_template: '{"model": "{{model_name}}", "messages": [{"role": "user", "content": "ping"}]}', expected_tokens_max: '500',
    payload_assertions: [row({ type: 'json_path', op: 'eq', path: '$.choices[0].message.content', value: 'pong' }), row({ type: 'status_code', op: 'in', value: '[200, 201]' })],
  };
  const body = createBody(withPayload);
  t.ok(createAgentObsMonitorSchema.safeParse(body).success, 'create body with assertions passes', { issues: createAgentObsMonitorSchema.safeParse(body).error?.issues });
  t.same(body.failure_threshold.payload_assertions, [
    { type: 'json_path', op: 'eq', path: '$.choices[0].message.content', value: 'pong' }, { type: 'status_code', op: 'in', value: [200, 201] },
  ], 'rows as assertions: JSON values parsed, text kept as text, empty fields left out');
  const config = configBody(withPayload);
  t.same(config, {
    obs_type: 'llm_endpoint', endpoint_url: 'https://agent.example.com/api', check_interval_s: 30, latency_sla_ms: 1500, expected_tokens_max: 500, model_name: 'gpt-4o-mini',
    payload_template: { model: '{{model_name}}', messages: [{ role: 'user', content: 'ping' }] },
  });
  t.ok(agentObsConfigRequestSchema.safeParse(config).success, 'config body passes');
  t.ok(configChanged(config, null), 'a new monitor with a template needs the config call');
  t.notOk(configChanged(configBody(v), null), 'a new monitor without one does not');
  t.notOk(agentObsConfigRequestSchema.safeParse(configBody({ ...v, payload_template: '[1]' })).success, 'a template that is no object is the schema\'s refusal');
  t.match((() => { try { configBody({ ...v, payload_template: '{' }); } catch (err) { return err; } return null; })(), { field: 'payload_template' }, 'a template that is not JSON is the field\'s fault');
  t.notOk(createAgentObsMonitorSchema.safeParse(createBody({ ...v, payload_assertions: [row({ type: 'json_path', op: 'eq', value: '1' })] })).success, 'a json_path row without a path is refused by the schema');

  // Saved (the monitor and its config as the API shows them), into the form and out again unchanged.
  const saved = agentObsMonitorSchema.parse({
    ...body, id: 'aom_1', owner_id: 'u_1', budget_per_check_usd: 0.01, budget_monthly_usd: 25, step_name: 'answer', endpoint_config: endpointConfigOf(v),
    notification_channels: [], status: 'active', paused_at: null, total_cost_this_month_usd: 0, check_monitor_id: 'm_1', created_at: '2026-11-29T00:00:00Z', updated_at: '2026-11-29T00:00:00Z',
  });
  const savedConfig = agentObsConfigSchema.parse({ ...config, monitor_id: 'aom_1', model_name: 'gpt-4o', created_at: '2026-11-29T00:00:00Z', updated_at: '2026-11-29T00:00:00Z' });
  const again = valuesOf(saved, savedConfig);
  t.same(patchBody(again).failure_threshold, body.failure_threshold, 'the saved assertions are kept');
  t.equal(again.model, 'gpt-4o', 'the Model field is the model checks use (the config\'s override)');
  t.same(configBody(again), { ...config, model_name: 'gpt-4o' }, 'the config comes back, its model override kept');
  t.equal(patchBody(again).endpoint_config?.model, 'gpt-4o', 'and the endpoint config follows it');
  t.notOk(configChanged(configBody(again), savedConfig), 'untouched: no config call');
  t.ok(configChanged(configBody({ ...again, expected_tokens_max: '' }), savedConfig), 'a cleared token limit is a change');
  t.ok(configChanged(configBody({ ...again, model: 'gpt-5' }), savedConfig), 'so is another model (the override would win over the endpoint config)');
  const tool = { ...filled('tool'), model_name: 'kept-model' };
  t.equal(configBody(tool).model_name, 'kept-model', 'another kind keeps its saved model');
});

t.test('a body or expected answer that is not JSON is the field\'s fault', async (t) => {
  const v = filled('tool');
  const fault = (values: AgentObsValues): unknown => { try { createBody(values); } catch (err) { return err; } return null; };
  const body = fault({ ...v, body: '{city: Oslo' });
  t.ok(body instanceof FieldProblem, 'a FieldProblem');
  t.match(body, { field: 'body' }, 'of the body');
  t.match(fault({ ...v, expected_json: '[' }), { field: 'expected_json' }, 'of the expected answer');
  t.doesNotThrow(() => createBody({ ...filled('llm'), body: '{not json' }), 'an llm monitor does not send the tool body');
});

t.test('MCP token form: every type makes a body the schemas accept; a saved token round-trips', async (t) => {
  for (const type of ['personal', 'workspace', 'service'] as const) {
    const v = { ...EMPTY_TOKEN, type, name: `${type} token`, ip_whitelist: '203.0.113.0/24\n2001:db8::/32', tools: 'probe_http, list_monitors', regions: 'eu-west' };
    const body = createTokenBody(v);
    t.ok(createMcpTokenRequestSchema.safeParse(body).success, `${type}: create body passes`);
    t.equal('auto_renew' in body, type !== 'personal', `${type}: auto_renew sent only where it applies`);
    const saved = mcpTokenSchema.parse({
      id: 'mcpt_1', owner_id: 'u_1', type, name: v.name, token_display: 'svc_mcp_abcd…wxyz', scope: body.scope, ip_whitelist: body.ip_whitelist, auto_renew: type !== 'personal',
      store_failed_payloads: false, expires_at: '2026-12-20T10:30:00.000Z', last_used_at: null, last_renewed_at: null, revoked: false, revoke_reason: null, created_at: '2026-11-29T00:00:00Z',
    });
    const patch = updateTokenBody(tokenValuesOf(saved), saved);
    t.ok(updateMcpTokenRequestSchema.safeParse(patch).success, `${type}: patch body passes`);
    t.notOk('expires_at' in patch, `${type}: an untouched expiry is not sent`);
    t.same([patch.ip_whitelist, patch.scope], [saved.ip_whitelist, saved.scope], `${type}: lists come back unchanged`);
    t.equal(tokenState(saved, Date.parse('2026-12-01T00:00:00Z')), 'live');
    t.equal(tokenState(saved, Date.parse('2026-12-21T00:00:00Z')), 'expired');
    t.equal(tokenState({ ...saved, revoked: true }), 'revoked');
  }
});
