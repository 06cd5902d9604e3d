import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';
import { addNode } from '../probes/test-support.js';
import type { Sql } from '../db/sql.js';
import { DEPRECATED_SINCE, deprecatedFieldRules } from './deprecated-fields.js';

const VERSIONING = readFileSync(new URL('../../../docs/api/versioning.md', import.meta.url), 'utf8');
const HTTPS = { name: 'Checkout', type: 'https', target: 'https://1.1.1.1/health' };
const DEPRECATION = `@${Math.floor(DEPRECATED_SINCE.getTime() / 1000)}`;

/** Rows in `table` (a fixed name from this file). */
async function rows(sql: Sql, table: 'probe_tasks' | 'monitors'): Promise<number> {
  const [row] = await sql<Array<{ n: number }>>`SELECT count(*)::int AS n FROM ${sql(table)}`;
  return row!.n;
}

/** The two RFC 9745 headers of a request that used an old name; `url` the app's base. */
function deprecated(t: Test, r: { headers: Headers }, url: string, what: string): void {
  t.equal(r.headers.get('deprecation'), DEPRECATION, `${what}: Deprecation @<unix seconds>`);
  t.equal(r.headers.get('link'), `<${url}/docs/api/versioning.md>; rel="deprecation"; type="text/markdown"`, `${what}: Link rel=deprecation`);
}

function current(t: Test, r: { headers: Headers }, what: string): void {
  t.equal(r.headers.get('deprecation'), null, `${what}: no Deprecation with the current names`);
  t.equal(r.headers.get('link'), null, `${what}: no Link`);
}

t.test('probes: url / host / domain are read as target', async (t) => {
  const { app, sql, url } = await testApp(t);
  await addNode(sql, { country: 'DE' });
  const cases: Array<[string, string, string]> = [['http', 'url', 'https://1.1.1.1/'], ['ping', 'host', '1.1.1.1'], ['tcp', 'host', '1.1.1.1:443'], ['traceroute', 'host', '1.1.1.1'], ['dns', 'domain', 'example.com']];
  for (const [type, old, target] of cases) {
    const now = await call(app, 'POST', `/v1/probe/${type}`, { body: { target } });
    t.equal(now.status, 202, `${type} with target`, { body: now.body });
    current(t, now, type);
    const before = await call(app, 'POST', `/v1/probe/${type}`, { body: { [old]: target } });
    t.equal(before.status, 202, `${type} with ${old}: accepted like target`);
    deprecated(t, before, url, `${type} ${old}`);
    const task = await call(app, 'GET', `/v1/probe/tasks/${before.body.data.task_id}`);
    t.equal(task.body.data.target, target, `${type}: the task's target is the ${old} given`);
    t.equal(task.headers.get('deprecation'), null, 'reading the task uses no old name');

    const same = await call(app, 'POST', `/v1/probe/${type}`, { body: { [old]: target, target } });
    t.equal(same.status, 202, `${type}: ${old} and target with one value`);
    deprecated(t, same, url, `${type} both, equal`);
  }

  const tasks = await rows(sql, 'probe_tasks');
  const clash = await call(app, 'POST', '/v1/probe/ping', { body: { host: '1.1.1.1', target: '8.8.8.8' } });
  t.equal(clash.status, 400, 'both names with different values');
  t.equal(clash.body.error.code, 'VALIDATION_FAILED');
  t.same(clash.body.error.details.fields.map((f: { path: string }) => f.path), ['host']);
  deprecated(t, clash, url, 'the refusal');
  const after = await rows(sql, 'probe_tasks');
  t.equal(after, tasks, 'the refused request created no task');

  // An old name is read only where it existed: `url` on ping stays an unknown field.
  const wrong = await call(app, 'POST', '/v1/probe/ping', { body: { url: '1.1.1.1' } });
  t.equal(wrong.status, 400);
  t.equal(wrong.body.error.code, 'VALIDATION_FAILED');
  current(t, wrong, 'url on ping');
  // A refusal of the renamed request is the current name's refusal, with the headers.
  const bad = await call(app, 'POST', '/v1/probe/http', { body: { url: '' } });
  t.equal(bad.status, 400);
  t.same(bad.body.error.details.fields.map((f: { path: string }) => f.path), ['target'], 'the error names the current field');
  deprecated(t, bad, url, 'a refused renamed request');
});

t.test('monitors: interval is read as interval_s on create and update', async (t) => {
  const { app, sql, url } = await testApp(t);
  const u = await registerUser(app);
  const auth = { token: u.access_token };
  const created = await call(app, 'POST', '/v1/monitors', { ...auth, body: { ...HTTPS, interval: 60 } });
  t.equal(created.status, 201);
  t.equal(created.body.data.interval_s, 60, 'interval became interval_s');
  deprecated(t, created, url, 'create');

  const patched = await call(app, 'PATCH', `/v1/monitors/${created.body.data.id}`, { ...auth, body: { interval: 1800 } });
  t.equal(patched.status, 200);
  t.equal(patched.body.data.interval_s, 1800);
  deprecated(t, patched, url, 'update');

  const invalid = await call(app, 'PATCH', `/v1/monitors/${created.body.data.id}`, { ...auth, body: { interval: 61 } });
  const invalidNow = await call(app, 'PATCH', `/v1/monitors/${created.body.data.id}`, { ...auth, body: { interval_s: 61 } });
  t.equal(invalid.status, invalidNow.status, 'a bad interval is refused exactly as a bad interval_s');
  t.equal(invalid.body.error.code, invalidNow.body.error.code);
  t.equal(invalid.body.error.message, invalidNow.body.error.message);

  const before = await rows(sql, 'monitors');
  const clash = await call(app, 'POST', '/v1/monitors', { ...auth, body: { ...HTTPS, name: 'other', interval: 60, interval_s: 300 } });
  t.equal(clash.status, 400);
  t.equal(clash.body.error.code, 'VALIDATION_FAILED');
  t.equal(clash.body.error.details.fields[0].path, 'interval');
  const after = await rows(sql, 'monitors');
  t.equal(after, before, 'nothing created');
  const patchClash = await call(app, 'PATCH', `/v1/monitors/${created.body.data.id}`, { ...auth, body: { interval: 60, interval_s: 300 } });
  t.equal(patchClash.status, 400);
  const still = await call(app, 'GET', `/v1/monitors/${created.body.data.id}`, auth);
  t.equal(still.body.data.interval_s, 1800, 'nothing changed');

  const same = await call(app, 'POST', '/v1/monitors', { ...auth, body: { ...HTTPS, name: 'same', interval: 300, interval_s: 300 } });
  t.equal(same.status, 201, 'both names with one value');
  t.equal(same.body.data.interval_s, 300);

  const plain = await call(app, 'POST', '/v1/monitors', { ...auth, body: { ...HTTPS, name: 'plain', interval_s: 60 } });
  t.equal(plain.status, 201);
  current(t, plain, 'create with interval_s');

  // Malformed JSON is left to the route (REQUEST_BODY_INVALID), not to the alias reader.
  const broken = await call(app, 'POST', '/v1/monitors', { ...auth, body: '{"interval": 60,' });
  t.equal(broken.status, 400);
  t.equal(broken.body.error.code, 'REQUEST_BODY_INVALID');
});

t.test('lists: per_page is read as page_size (or limit on monitors)', async (t) => {
  const { app, sql, url } = await testApp(t);
  const u = await registerUser(app);
  const auth = { token: u.access_token };
  for (const name of ['a', 'b', 'c']) t.equal((await call(app, 'POST', '/v1/monitors', { ...auth, body: { ...HTTPS, name } })).status, 201);
  for (let i = 0; i < 3; i++) await addNode(sql, { country: 'DE' });

  const monitors = await call(app, 'GET', '/v1/monitors?per_page=2&page=2', auth);
  t.equal(monitors.status, 200);
  t.equal(monitors.body.data.limit, 2, 'monitors: per_page became limit');
  t.equal(monitors.body.data.items.length, 1, 'page 2 of 2');
  deprecated(t, monitors, url, 'monitor list');

  const nodes = await call(app, 'GET', '/v1/nodes?per_page=2');
  t.equal(nodes.status, 200);
  t.equal(nodes.body.data.page_size, 2, 'nodes: per_page became page_size');
  t.equal(nodes.body.data.items.length, 2);
  deprecated(t, nodes, url, 'node list');

  const head = await app.request('/v1/nodes?per_page=2', { method: 'HEAD' });
  t.equal(head.status, 200, 'HEAD reads the GET route\'s names');
  deprecated(t, head, url, 'HEAD');

  const same = await call(app, 'GET', '/v1/nodes?per_page=2&page_size=2');
  t.equal(same.status, 200);
  const clash = await call(app, 'GET', '/v1/nodes?per_page=2&page_size=3');
  t.equal(clash.status, 400);
  t.equal(clash.body.error.code, 'VALIDATION_FAILED');
  t.same(clash.body.error.details, { fields: [{ path: 'per_page', message: 'per_page is the former name of page_size and differs from it: send page_size only' }], in: 'query' });
  const tooBig = await call(app, 'GET', '/v1/nodes?per_page=100000');
  t.equal(tooBig.status, 400, 'bounds of page_size apply to per_page');
  t.equal(tooBig.body.error.details.fields[0].path, 'page_size');

  const plain = await call(app, 'GET', '/v1/nodes?page_size=2');
  current(t, plain, 'page_size');
});

t.test('docs/api/versioning.md lists every old name of every operation', async (t) => {
  const { app } = await testApp(t);
  const rules = deprecatedFieldRules(app);
  t.ok(rules.length >= 10, `${rules.length} operations`);
  for (const rule of rules) {
    for (const a of rule.aliases) {
      const row = `| \`${rule.method} ${rule.path}\` | ${rule.in === 'json' ? 'body' : 'query'} | \`${a.old}\` | \`${a.current}\` |`;
      t.ok(VERSIONING.includes(row), `versioning.md has ${row}`);
    }
  }
  const rows = VERSIONING.split('\n').filter((l) => /^\| `(GET|POST|PATCH|PUT|DELETE) /.test(l));
  t.equal(rows.length, rules.reduce((n, r) => n + r.aliases.length, 0), 'and no row for an alias that does not exist');
  t.match(VERSIONING, DEPRECATION, 'the page gives the Deprecation value');
});
