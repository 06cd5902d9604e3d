import { writeFile } from 'node:fs/promises';
import t from 'tap';
import { applyFiles, exportAccount, planFiles, renderPlan } from '@vantage/node-agent/as-code';
import { call, testApp } from '../test-support/app.js';
import { asCodeFixtures } from '../test-support/as-code.js';

/*
 * Monitoring as code against a real control plane on loopback: plan output for each kind of
 * change, apply in dependency order and idempotently, prune limits, a file with one invalid
 * resource changing nothing, and the export round trip.
 */

const { app, url } = await testApp(t, { config: { delivery_allow_cidrs: ['127.0.0.0/8'] } });
const { account, file } = await asCodeFixtures(t, app, url);
const env = { OPS_HOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwAAAAAAAAAA==' };

const BASE = `version: 1
x-defaults: &http
  type: https
  interval_s: 60
  tags: [prod]
  group: Production
monitor_groups:
  Production: { sort_order: 10 }
alert_channels:
  Ops hook:
    type: webhook
    config:
      url: http://127.0.0.1:9/hook
      secret: { env: OPS_HOOK_SECRET }
monitors:
  Checkout:
    <<: *http
    target: https://1.1.1.1/health
  Landing:
    <<: *http
    target: https://1.1.1.1/
    config: { expected_status: "200-299" }
alert_policies:
  Checkout down:
    monitor: Checkout
    channels: [Ops hook]
    recovery_n: 2
    escalation_levels:
      - { level_index: 1, after_seconds: 300, channels: [Ops hook] }
`;

t.test('plan shows creations, apply makes them in order, a second apply changes nothing', async (t) => {
  const { api } = await account();
  const f = await file('base.yaml', BASE);
  const planned = await planFiles(api, [f], { env, prune: false });
  t.same(planned.issues, []);
  const text = renderPlan(planned.plan!);
  t.match(text, `+ monitor_group "Production" will be created (${f})`);
  t.match(text, '+ monitor "Checkout" will be created');
  t.match(text, '    + interval_s: 60');
  t.match(text, '    + group: "Production"');
  t.match(text, '+ alert_policy "Checkout down" will be created');
  t.match(text, '    + config.secret: "****AA=="', 'a secret only masked');
  t.notMatch(text, env.OPS_HOOK_SECRET);
  t.match(text, 'Plan: 5 to create, 0 to change, 0 to delete.');
  t.same(planned.plan!.changes.map((c) => c.kind), ['monitor_group', 'alert_channel', 'monitor', 'monitor', 'alert_policy'], 'dependency order');

  const applied = await applyFiles(api, [f], { env, prune: false });
  t.same(applied.results.filter((r) => r.status !== 'done'), [], 'every change done');
  const policies = await api.get<{ items: Array<{ name: string; monitor_id: string; recovery_n: number; escalation_levels: unknown[] }> }>('/v1/alert-policies');
  t.match(policies.items, [{ name: 'Checkout down', recovery_n: 2, escalation_levels: [{ level_index: 1, after_seconds: 300 }] }]);
  const marks = await api.get<{ items: Array<{ kind: string; key: string; source_file: string }> }>('/v1/as-code/marks');
  t.equal(marks.items.length, 5, 'every resource marked');
  t.ok(marks.items.every((m) => m.source_file === f));

  const again = await planFiles(api, [f], { env, prune: true });
  t.same(again.plan!.changes, [], 'idempotent');
  t.match(renderPlan(again.plan!), 'No changes.');
});

t.test('plan shows each kind of change: a field changed, a resource added, one pruned; prune keeps the unmarked and other files', async (t) => {
  const { api, token } = await account();
  const f = await file('change.yaml', BASE);
  const other = await file('other.yaml', 'version: 1\nmonitor_groups:\n  Staging: {}\n');
  await applyFiles(api, [f], { env, prune: false });
  await applyFiles(api, [other], { env, prune: false });
  // Made in the console: not from a file, never pruned.
  const manual = await call(app, 'POST', '/v1/monitors', { token, body: { name: 'Manual', type: 'ping', target: '8.8.8.8' } });
  t.equal(manual.status, 201);

  const changed = BASE.replace('  Landing:\n    <<: *http\n    target: https://1.1.1.1/\n    config: { expected_status: "200-299" }\n', '')
    .replace('recovery_n: 2', 'recovery_n: 3')
    .replace('monitors:\n', 'monitors:\n  DNS:\n    type: dns\n    target: example.com\n    config: { record_type: MX, server: "1.1.1.1:53" }\n');
  await writeFile(f, changed);
  const planned = await planFiles(api, [f], { env, prune: true });
  t.same(planned.issues, []);
  const text = renderPlan(planned.plan!);
  t.match(text, '~ alert_policy "Checkout down" will be changed');
  t.match(text, '    ~ recovery_n: 2 -> 3');
  t.match(text, '+ monitor "DNS" will be created');
  t.match(text, '- monitor "Landing" will be deleted');
  t.match(text, 'Plan: 1 to create, 1 to change, 1 to delete.');
  t.notMatch(text, 'Manual', 'an unmarked resource is never pruned');
  t.notMatch(text, 'Staging', 'nor one marked from a file not applied now');

  const withoutPrune = await planFiles(api, [f], { env, prune: false });
  t.equal(withoutPrune.plan!.summary.delete, 0, 'nothing deleted without --prune');

  const applied = await applyFiles(api, [f], { env, prune: true });
  t.same(applied.results.filter((r) => r.status !== 'done'), []);
  const names = (await api.get<{ items: Array<{ name: string }> }>('/v1/monitors')).items.map((m) => m.name).sort();
  t.same(names, ['Checkout', 'DNS', 'Manual']);
  t.same((await planFiles(api, [f, other], { env, prune: true })).plan!.changes, [], 'settled');
});

t.test('a file with one invalid resource changes nothing, and every issue names its resource', async (t) => {
  const { api } = await account();
  const bad = BASE.replace('    target: https://1.1.1.1/health\n', '    target: https://1.1.1.1/health\n    config: { expected_status: 42, nope: true }\n');
  const f = await file('bad.yaml', bad);
  const out = await applyFiles(api, [f], { env, prune: false });
  t.equal(out.plan, null);
  t.ok(out.issues.length >= 1);
  t.ok(out.issues.every((i) => i.name === 'Checkout' && i.path.startsWith('monitors.Checkout.config')), JSON.stringify(out.issues));
  t.same((await api.get<{ items: unknown[] }>('/v1/monitors')).items, [], 'no monitor made');
  t.same(await api.get('/v1/monitor-groups'), [], 'no group made');
  t.same((await api.get<{ items: unknown[] }>('/v1/alert-channels')).items, [], 'no channel made');

  const inline = await file('inline.yaml', BASE.replace('secret: { env: OPS_HOOK_SECRET }', `secret: ${env.OPS_HOOK_SECRET}`));
  const refused = await planFiles(api, [inline], { env, prune: false });
  t.match(refused.issues, [{ name: 'Ops hook', path: 'alert_channels.Ops hook.config.secret', message: /never inline/ }]);
  const missing = await planFiles(api, [f.replace('bad', 'base')], { env: {}, prune: false });
  t.match(missing.issues, [{ name: 'Ops hook', message: /OPS_HOOK_SECRET is not set/ }]);

  // Refused by the API itself (a private target), checked by a dry run before any write.
  const priv = await file('private.yaml', BASE.replace('https://1.1.1.1/health', 'http://10.1.2.3/'));
  const out2 = await applyFiles(api, [priv], { env, prune: false });
  t.equal(out2.plan, null);
  t.match(out2.issues, [{ name: 'Checkout' }]);
  t.same(await api.get('/v1/monitor-groups'), [], 'still nothing made');
});

t.test('export, apply to an empty account, export again: identical', async (t) => {
  const first = await account();
  await applyFiles(first.api, [await file('rt.yaml', BASE)], { env, prune: false });
  const exported = await exportAccount(first.api);
  const doc = JSON.parse(await exportAccount(first.api, 'json')) as { alert_channels: Record<string, { config: { secret: unknown } }> };
  t.same(doc.alert_channels['Ops hook']!.config.secret, { env: 'VANTAGE_SECRET_OPS_HOOK_SECRET' }, 'secrets exported as references');
  const second = await account();
  const f = await file('exported.yaml', exported);
  const applied = await applyFiles(second.api, [f], { env: { VANTAGE_SECRET_OPS_HOOK_SECRET: env.OPS_HOOK_SECRET }, prune: false });
  t.same(applied.issues, []);
  t.same(applied.results.filter((r) => r.status !== 'done'), []);
  t.equal(await exportAccount(second.api), exported, 'identical');
});

t.test('marks: only your own personal resources, another account\'s id is 404', async (t) => {
  const a = await account();
  const b = await account();
  const g = await a.api.post<{ id: string }>('/v1/monitor-groups', { name: 'G' });
  const put = await call(app, 'PUT', `/v1/as-code/marks/monitor_group/${g.id}`, { token: b.token, body: { key: 'G', source_file: 'x.yaml' } });
  t.equal(put.status, 404);
  const bad = await call(app, 'PUT', `/v1/as-code/marks/widget/${g.id}`, { token: a.token, body: { key: 'G', source_file: 'x.yaml' } });
  t.equal(bad.status, 400);
  const ok = await call(app, 'PUT', `/v1/as-code/marks/monitor_group/${g.id}`, { token: a.token, body: { key: 'G', source_file: 'x.yaml' } });
  t.equal(ok.status, 200);
  t.equal((await call(app, 'GET', '/v1/as-code/marks', { token: b.token })).body.data.items.length, 0);
});
