import t from 'tap';
import { MONITOR_CONFIGS, newId, parseMonitorConfig, resultEnvelopeSchema, type MonitorResultEnvelope } from '../index.js';
import { CHECK_CAPABILITY, NODE_CHECK_TYPES } from './types.js';
import { CHECK_OUTPUTS } from './outputs.js';

const at = (ms: number) => new Date(Date.now() + ms).toISOString();

t.test('a monitor result envelope: check type, round, assertions, output', async (t) => {
  const base = {
    result_id: newId('result'), task_id: null, monitor_id: newId('monitor'), type: 'keyword', scheduled_at: at(-2000), started_at: at(-1500), finished_at: at(-1000),
    success: false, error: 'body does not contain the keyword "ok"', error_class: 'assertion',
    assertions: [{ type: 'status_code', op: 'eq', expected: 200, actual: 200, ok: true, detail: 'status_code 200 equals 200' }],
    output: {
      final_url: 'https://example.com/', status_code: 200, response_ms: 40, response_size: 5, headers: {}, timing: null, tls: null, certificate: null,
      redirects: [], resolved_address: '198.51.100.7', body_truncated: false, certificate_error: null, keyword_found: false,
    },
  };
  const ok = resultEnvelopeSchema.safeParse(base);
  t.ok(ok.success, ok.success ? '' : JSON.stringify(ok.error.issues));
  t.equal((ok.data as MonitorResultEnvelope).scheduled_at, base.scheduled_at);
  t.notOk(resultEnvelopeSchema.safeParse({ ...base, output: { ...base.output, keyword_found: 'yes' } }).success, 'output checked against the check type');
  t.notOk(resultEnvelopeSchema.safeParse({ ...base, scheduled_at: undefined }).success, 'a monitor result names its round');
  t.notOk(resultEnvelopeSchema.safeParse({ ...base, error_class: 'nonsense' }).success);
  t.notOk(resultEnvelopeSchema.safeParse({ ...base, task_id: newId('probe_task') }).success, 'both owners');
  t.notOk(resultEnvelopeSchema.safeParse({ ...base, monitor_id: null }).success, 'no owner');
  t.ok(resultEnvelopeSchema.safeParse({ ...base, type: 'rbl', output: null, error_class: 'internal' }).success, 'a check that produced nothing');
});

t.test('every node check type has an output schema, a capability and a config', async (t) => {
  for (const type of NODE_CHECK_TYPES) {
    t.ok(CHECK_OUTPUTS[type], type);
    t.ok(CHECK_CAPABILITY[type], type);
    t.ok(MONITOR_CONFIGS[type], type);
  }
});

t.test('config fields the checks read', async (t) => {
  t.match(parseMonitorConfig('ping', {}), { ok: true, config: { max_packet_loss_pct: 50 } });
  t.match(parseMonitorConfig('tcp', {}), { ok: true, config: { expect: 'open' } });
  t.notOk(parseMonitorConfig('tcp', { expect: 'closed', send: 'x' }).ok, 'a banner needs an open port');
  t.match(parseMonitorConfig('dns', {}), { ok: true, config: { expected_match: 'all', expected_rcode: 'NOERROR' } });
  t.ok(parseMonitorConfig('llm_endpoint', { payload_template: { model: '{{model_name}}' }, model_name: 'm', latency_sla_ms: 2000, expected_tokens_max: 500 }).ok);
  t.notOk(parseMonitorConfig('llm_endpoint', { payload_template: { model: '{{model}}' } }).ok, 'unknown template variable');
  t.notOk(parseMonitorConfig('llm_endpoint', { payload_template: {}, body: 'x' }).ok, 'body or template');
  t.notOk(parseMonitorConfig('http', { assertions: [{ type: 'body_regex', op: 'regex', value: '(?<=a)b' }] }).ok, 'not RE2');
  t.notOk(parseMonitorConfig('http', { assertions: [{ type: 'json_path', path: '$[?match(@.a, "x")]', op: 'eq', value: 1 }] }).ok, 'match() refused');
});
