import t from 'tap';
import { applyFiles, exportAccount, parseFileText } from '@vantage/node-agent/as-code';
import { call, registerUser, testApp } from '../test-support/app.js';
import { asCodeFixtures } from '../test-support/as-code.js';

/*
 * GET /v1/as-code/export: the same file the CLI's `vantage export` makes (one exporter, run in
 * process with the caller's credential), in YAML or JSON, the caller's resources only; a bad
 * format is 400 and no credential 401.
 */

const { app, url } = await testApp(t, { config: { delivery_allow_cidrs: ['127.0.0.0/8'] } });
const { account, file } = await asCodeFixtures(t, app, url);

const FILE = `version: 1
monitor_groups:
  Production: { sort_order: 10 }
monitors:
  Checkout:
    type: https
    target: https://1.1.1.1/health
    interval_s: 60
    group: Production
  Landing:
    type: https
    target: https://1.1.1.1/
    interval_s: 300
alert_silences:
  Deploy window:
    monitor: Checkout
    starts_at: 2030-01-01T00:00:00.000Z
    ends_at: 2030-01-01T01:00:00.000Z
`;

t.test('the export route answers what the CLI exporter makes, for the caller only', async (t) => {
  const owner = await account();
  const path = await file('prod.yaml', FILE);
  const applied = await applyFiles(owner.api, [path], { env: {}, prune: false });
  t.same(applied.results.filter((r) => r.status !== 'done'), [], 'the file applied');
  const cli = await exportAccount(owner.api, 'yaml');

  const yaml = await app.request('/v1/as-code/export', { headers: { authorization: `Bearer ${owner.token}` } });
  t.equal(yaml.status, 200);
  t.match(yaml.headers.get('content-type'), /^application\/yaml/);
  t.equal(yaml.headers.get('content-disposition'), 'attachment; filename="vantage.yaml"');
  t.equal(yaml.headers.get('cache-control'), 'private, no-store');
  const text = await yaml.text();
  t.equal(text, cli, 'byte for byte the CLI\'s export');
  const declared = (body: string) => parseFileText('export', body);
  t.same(declared(text).resources.filter((r) => r.kind === 'monitor').map((r) => r.name).sort(), ['Checkout', 'Landing']);

  const json = await app.request('/v1/as-code/export?format=json', { headers: { authorization: `Bearer ${owner.token}` } });
  t.equal(json.status, 200);
  t.match(json.headers.get('content-type'), /^application\/json/);
  const json_text = await json.text();
  t.same(declared(json_text).issues, []);
  t.same(declared(json_text).resources, declared(cli).resources, 'the same resources as JSON');

  // Another account sees none of it.
  const other = await registerUser(app);
  const theirs = await app.request('/v1/as-code/export', { headers: { authorization: `Bearer ${other.access_token}` } });
  t.equal(theirs.status, 200);
  t.same(declared(await theirs.text()).resources, [], 'another account exports none of the first\'s resources');

  const bad = await call(app, 'GET', '/v1/as-code/export?format=toml', { token: owner.token });
  t.equal(bad.status, 400);
  t.equal(bad.body.error.code, 'VALIDATION_FAILED');
  const anonymous = await call(app, 'GET', '/v1/as-code/export');
  t.equal(anonymous.status, 401);
});
