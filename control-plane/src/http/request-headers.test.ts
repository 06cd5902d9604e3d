import t from 'tap';
import { enrollNode, makeToken } from '../hub/test-harness.js';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * The request header rule (docs/api/conventions.md "Request headers") on every route that takes
 * headers to send: ad-hoc HTTP probes, monitor create, PATCH and import, SMS alert channels. A bad
 * header is 400 naming `…headers.<name>`, and nothing is stored or sent to a node.
 */

const { app, sql, url } = await testApp(t, { config: { probe_allow_cidrs: ['198.18.0.0/15'], plan: 'business' } });
const user = await registerUser(app);
const api = (method: string, path: string, body?: unknown) => call(app, method, path, { token: user.access_token, body });
const { node } = await enrollNode(url, await makeToken(sql, { country_code: 'DE', user_id: user.user_id }), 'probe-de');
t.teardown(() => node.close());
const counts = async () => (await sql<{ n: string }[]>`
  SELECT (SELECT count(*) FROM probe_tasks) || '/' || (SELECT count(*) FROM monitors) || '/' || (SELECT count(*) FROM alert_channels) AS n`)[0]!.n;

// [case, headers, field name, message]
const BAD: Array<[string, Record<string, string>, string, RegExp]> = [
  ['CR/LF in a value', { 'X-Foo': 'a\r\nInjected: 1' }, 'X-Foo', /CR or LF/],
  ['a space and a colon in a name', { 'X Foo:': 'a' }, 'X Foo:', /not an HTTP header name/],
  ['Host is set by the sender', { Host: 'internal.example' }, 'Host', /set by the sender/],
  ['non-Latin-1 value', { 'X-Foo': '中文' }, 'X-Foo', /ASCII or Latin-1/],
];

t.test('HTTP probes: 400 naming params.headers.<name>, no task stored, nothing sent', async (t) => {
  for (const [name, headers, field, message] of BAD) {
    const before = await counts();
    const r = await api('POST', '/v1/probe/http', { target: 'http://198.18.1.10/', params: { headers } });
    t.equal(r.status, 400, name);
    t.match(r.body.error, { code: 'VALIDATION_FAILED', details: { fields: [{ path: `params.headers.${field}`, message }] } }, name);
    t.equal(await counts(), before, `${name}: nothing stored`);
  }
  const ok = await api('POST', '/v1/probe/http', { target: 'http://198.18.1.10/', params: { headers: { 'X-Foo': 'a', Authorization: 'Bearer x' } } });
  t.equal(ok.status, 202, 'valid headers are accepted');
  const run = await node.next('task.run');
  t.equal(run.task_id, ok.body.data.task_id, 'the first task the node gets is the valid one');
});

t.test('monitors: create, PATCH and import refuse the same headers naming config.headers.<name>', async (t) => {
  const created = await api('POST', '/v1/monitors', { name: 'kept', type: 'http', target: 'http://198.18.1.10/', config: { headers: { 'X-Foo': 'a' } } });
  t.equal(created.status, 201);
  for (const [name, headers, field, message] of BAD) {
    const before = await counts();
    const fields = [{ path: `config.headers.${field}`, message }];
    for (const type of ['http', 'keyword', 'llm_endpoint']) {
      const config = { headers, ...(type === 'keyword' ? { keyword: 'ok' } : {}) };
      const r = await api('POST', '/v1/monitors', { name: `${name} ${type}`, type, target: 'http://198.18.1.10/', config });
      t.equal(r.status, 400, `${name}: create ${type}`);
      t.match(r.body.error, { code: 'VALIDATION_FAILED', details: { fields } }, `${name}: create ${type} names the header`);
    }
    const patched = await api('PATCH', `/v1/monitors/${created.body.data.id}`, { config: { headers } });
    t.match(patched, { status: 400, body: { error: { code: 'VALIDATION_FAILED', details: { fields } } } }, `${name}: PATCH`);
    const imported = await api('POST', '/v1/monitors/import', { monitors: [{ name: `${name} import`, type: 'http', target: 'http://198.18.1.10/', config: { headers } }] });
    t.match(imported.body.data, { created: 0, items: [{ status: 'failed', error: { code: 'VALIDATION_FAILED', details: { fields } } }] }, `${name}: import`);
    t.equal(await counts(), before, `${name}: nothing stored`);
  }
  const [row] = await sql<{ headers: unknown }[]>`SELECT config->'headers' AS headers FROM monitors WHERE id = ${created.body.data.id}`;
  t.same(Object.keys(row!.headers as object), ['X-Foo'], 'the monitor PATCHed with bad headers kept its own');
});

t.test('SMS alert channels: the same rule, 400 ALERT_CHANNEL_INVALID naming config.headers.<name>', async (t) => {
  for (const [name, headers, field, message] of BAD) {
    const before = await counts();
    const r = await api('POST', '/v1/alert-channels', { name: 'gateway', type: 'sms', config: { url: 'http://198.18.1.10/send', phone_numbers: ['+8613800000000'], headers } });
    t.equal(r.status, 400, name);
    t.match(r.body.error, { code: 'ALERT_CHANNEL_INVALID', details: { fields: [{ path: `config.headers.${field}`, message }] } }, name);
    t.equal(await counts(), before, `${name}: nothing stored`);
  }
});
