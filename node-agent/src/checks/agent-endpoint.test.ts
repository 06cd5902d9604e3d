/**
 * llm_endpoint, tool_api and rag checks against an OpenAI-shaped HTTP server: the payload
 * template, tokens from `usage`, the response preview, expected fields, the latency SLA and the
 * token limit.
 */
import t from 'tap';
import { checkResultSchema, renderTemplate, templateFault } from '@vantage/shared-protocol';
import { createPatternSandbox } from './assertions/sandbox.js';
import { createChecks } from './registry.js';
import { startOpenAiServer } from './test-support/openai-server.js';
import { runCheckOnce } from './test-support/run.js';

t.test('agent endpoint checks', async (t) => {
  const srv = await startOpenAiServer({ content: 'pong '.repeat(200) });
  const sandbox = createPatternSandbox();
  const checks = createChecks({ sandbox });
  t.teardown(async () => { await srv.close(); await sandbox.close(); });
  const template = { model: '{{model_name}}', messages: [{ role: 'user', content: 'ping from {{monitor_id}} at {{scheduled_at}}' }], max_tokens: 8 };

  t.test('llm_endpoint: the template is rendered, usage read, preview cut at 500 characters', async (t) => {
    const r = await runCheckOnce(checks, 'llm_endpoint', `${srv.origin}/v1/chat/completions`, {
      payload_template: template, model_name: 'tiny-1', headers: { authorization: 'Bearer test' },
      expected_fields: ['$.choices[0].message.content'],
      assertions: [{ type: 'json_path', path: '$.choices[0].finish_reason', op: 'eq', value: 'stop' }],
    });
    checkResultSchema.parse(r);
    t.equal(r.success, true, r.error ?? '');
    const sent = srv.seen.at(-1)!;
    t.equal(sent.headers['content-type'], 'application/json');
    t.equal(sent.headers.authorization, 'Bearer test');
    const body = JSON.parse(sent.body) as { model: string; messages: { content: string }[] };
    t.equal(body.model, 'tiny-1');
    t.match(body.messages[0]!.content, /^ping from m_\w+ at \d{4}-\d\d-\d\dT/);
    t.match(r.output, { status_code: 200, model: 'tiny-1', prompt_tokens: 12, completion_tokens: 7, tokens_used: 19, missing_fields: [] });
    t.equal(r.output!.response_preview!.length, 500);
    t.type(r.output!.latency_ms, 'number');
  });

  t.test('llm_endpoint: more tokens than expected_tokens_max, a missing field, a missed SLA', async (t) => {
    const tokens = await runCheckOnce(checks, 'llm_endpoint', `${srv.origin}/v1/chat/completions`, { payload_template: template, expected_tokens_max: 10 });
    t.equal(tokens.success, false);
    t.equal(tokens.error, '19 tokens used, more than expected_tokens_max 10');
    t.equal(tokens.error_class, 'assertion');
    const field = await runCheckOnce(checks, 'llm_endpoint', `${srv.origin}/v1/chat/completions`, { payload_template: template, expected_fields: ['$.choices[0].message.tool_calls'] });
    t.equal(field.success, false);
    t.equal(field.error, 'response lacks $.choices[0].message.tool_calls');
    t.same(field.output!.missing_fields, ['$.choices[0].message.tool_calls']);
    const slow = await runCheckOnce(checks, 'llm_endpoint', `${srv.origin}/v1/chat/completions?delay_ms=300`, { payload_template: template, latency_sla_ms: 50 });
    t.equal(slow.success, false);
    t.match(slow.error, /^latency \d+ ms exceeds latency_sla_ms 50$/);
  });

  t.test('tool_api and rag: a JSON answer without usage; status rules', async (t) => {
    const tool = await runCheckOnce(checks, 'tool_api', `${srv.origin}/v1/tool`, { body: '{"q":1}', expected_fields: ['$.result.items[2]'] });
    t.equal(tool.success, true, tool.error ?? '');
    t.equal(tool.output!.tokens_used, null);
    t.equal(tool.output!.response_preview, '{"result":{"ok":true,"items":[1,2,3]}}');
    const rag = await runCheckOnce(checks, 'rag', `${srv.origin}/v1/missing`, {});
    t.equal(rag.success, false);
    t.equal(rag.error, 'HTTP status 404 is not in expected_status 200-299');
  });

  t.test('templates substitute a fixed set of variables and nothing else', async (t) => {
    t.equal(templateFault(template), null);
    const vars = { model_name: 'm', monitor_id: 'm_1', scheduled_at: 'then', timestamp: 'now', target: 'u' };
    t.same(renderTemplate({ a: '{{process.env.HOME}}', '{{model_name}}': ['{{target}}', 1, null] }, vars), { a: '{{process.env.HOME}}', m: ['u', 1, null] },
      'no expressions: anything but a known name stays text');
    t.same(renderTemplate({ a: '{{model_name}}' }, { ...vars, model_name: '"},"x":{"' }), { a: '"},"x":{"' }, 'a value never changes the shape');
    t.match(templateFault({ a: '{{ constructor }}' }), /unknown template variable \{\{constructor\}\}/);
  });
});
