import { mkdirSync } from 'node:fs';
import t from 'tap';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { check, DIST, ensureBuilt, LOOPBACK, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// An agent-obs monitor's payload template, token limit and payload assertions on its form, in
// Chromium against a real control plane on real Postgres: a json_path assertion without a path
// refused in the browser at its field (nothing made); the monitor made with a template, a token
// limit and the assertion (the monitor and its config read back through the API); the edit form
// filled with them; a second assertion added and the limit changed (the first assertion and the
// template kept); a template that is no JSON object refused at its field, nothing changed; the
// limit cleared. axe on the form, also dark and in Chinese.

t.setTimeout(300_000);

t.test('console in Chromium: agent-obs payload template, token limit and assertions', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const { app, url } = await testApp(t, { config: { console_dir: DIST, probe_allow_cidrs: LOOPBACK, plan: 'business' } });
  const user = await registerUser(app);
  const get = async (path: string) => (await call(app, 'GET', path, { token: user.access_token })).body.data;
  const template = { model: '{{model_name}}', messages: [{ role: 'user', content: 'ping at {{timestamp}}' }] };

  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, user.email, user.password);
  await page.goto(`${url}/agent-obs/new`);
  await page.getByLabel('Agent name').fill('payload bot');
  await page.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/v1/chat/completions');
  await page.getByLabel('Check every (s)').fill('60');
  await page.getByLabel('Cost of one check (USD)').fill('0.01');
  await page.getByLabel('Model').fill('gpt-4o-mini');
  // The create request has no template (it is the config's), so an llm monitor still needs a prompt.
  await page.getByLabel('Prompt').fill('Say pong');
  await page.getByLabel('Payload template (JSON object)').fill(JSON.stringify(template, null, 2));
  await page.getByLabel('Token limit').fill('500');
  await page.getByRole('button', { name: 'Add to Payload assertions' }).click();
  const first = page.getByRole('group', { name: 'Payload assertions 1' });
  await first.getByLabel('Check').selectOption('json_path');
  await first.getByLabel('Operator').selectOption('eq');
  await first.getByLabel('Value (JSON or text)').fill('"pong"');
  await check(t, page, 'agent-obs-payload-new');

  // No path for a json_path assertion: the API's own schema refuses it here, at the row's field.
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await first.getByText('json_path needs a path ($.field)').waitFor({ timeout: 30_000 });
  t.equal(await first.getByLabel('JSONPath').getAttribute('aria-invalid'), 'true', 'the field is marked');
  t.same(await get('/v1/agent-obs/monitors'), [], 'nothing made');

  await first.getByLabel('JSONPath').fill('$.choices[0].message.content');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await page.waitForURL(/\/agent-obs\/aom_/, { timeout: 30_000 });
  const [made] = await get('/v1/agent-obs/monitors');
  const assertion = { type: 'json_path', op: 'eq', path: '$.choices[0].message.content', value: 'pong' };
  t.same(made.failure_threshold.payload_assertions, [assertion], 'the assertion as typed');
  t.match(await get(`/v1/agent-obs/monitors/${made.id}/config`), { obs_type: 'llm_endpoint', expected_tokens_max: 500, payload_template: template, model_name: 'gpt-4o-mini' }, 'the config as typed');

  // The edit form holds them; a second assertion and another limit saved, the rest kept.
  await page.getByRole('link', { name: 'Edit', exact: true }).click();
  await page.getByLabel('Token limit').waitFor({ timeout: 30_000 });
  t.equal(await page.getByLabel('Token limit').inputValue(), '500');
  t.same(JSON.parse(await page.getByLabel('Payload template (JSON object)').inputValue()), template, 'the saved template');
  t.equal(await first.getByLabel('JSONPath').inputValue(), '$.choices[0].message.content', 'the saved assertion');
  await page.getByLabel('Token limit').fill('800');
  await page.getByRole('button', { name: 'Add to Payload assertions' }).click();
  const second = page.getByRole('group', { name: 'Payload assertions 2' });
  await second.getByLabel('Check').selectOption('status_code');
  await second.getByLabel('Operator').selectOption('in');
  await second.getByLabel('Value (JSON or text)').fill('[200, 201]');
  await check(t, page, 'agent-obs-payload-edit');
  await page.getByRole('button', { name: 'Save monitor' }).click();
  await page.waitForURL(new RegExp(`/agent-obs/${made.id}$`), { timeout: 30_000 });
  t.same((await get(`/v1/agent-obs/monitors/${made.id}`)).failure_threshold.payload_assertions, [assertion, { type: 'status_code', op: 'in', value: [200, 201] }], 'the first assertion kept, the second added');
  t.match(await get(`/v1/agent-obs/monitors/${made.id}/config`), { expected_tokens_max: 800, payload_template: template }, 'the new limit, the template kept');

  // A template that is no JSON object: refused at its field, nothing sent; then one that is no JSON.
  await page.goto(`${url}/agent-obs/${made.id}/edit`);
  await page.getByLabel('Payload template (JSON object)').fill('[1, 2]');
  await page.getByRole('button', { name: 'Save monitor' }).click();
  await page.locator('#ao-payload_template-error').waitFor({ timeout: 30_000 });
  t.equal(await page.getByLabel('Payload template (JSON object)').getAttribute('aria-invalid'), 'true', 'the field is marked');
  await page.getByLabel('Payload template (JSON object)').fill('{"model": ');
  await page.getByRole('button', { name: 'Save monitor' }).click();
  await page.getByText('Payload template (JSON object) is not JSON', { exact: false }).waitFor({ timeout: 30_000 });
  t.match(await get(`/v1/agent-obs/monitors/${made.id}/config`), { expected_tokens_max: 800, payload_template: template }, 'nothing changed');
  await page.getByLabel('Theme').selectOption('dark');
  await check(t, page, 'agent-obs-payload-refused-dark');
  await page.getByLabel('Theme').selectOption('system');

  // The limit and the template cleared (PUT …/config clears what it omits); in Chinese.
  await page.getByLabel('Language').selectOption('cn');
  await page.getByLabel('Token 上限').fill('');
  await page.getByLabel('负载模板（JSON 对象）').fill('');
  await check(t, page, 'agent-obs-payload-cn');
  await page.getByRole('button', { name: '保存监控' }).click();
  await page.waitForURL(new RegExp(`/agent-obs/${made.id}$`), { timeout: 30_000 });
  t.match(await get(`/v1/agent-obs/monitors/${made.id}/config`), { expected_tokens_max: null, payload_template: null }, 'cleared');
  t.equal((await get(`/v1/agent-obs/monitors/${made.id}`)).failure_threshold.payload_assertions.length, 2, 'the assertions stay');
  await page.getByLabel('语言').selectOption('en');
  t.same(problems, [], 'no script error or CSP violation');
});
