import t from 'tap';
import type { Config } from '../config/index.js';
import { loadConfig } from '../config/index.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { addNode, recordingHub } from './test-support.js';

/*
 * Who may create ad-hoc probes: VANTAGE_PUBLIC_PROBES (docs/api/probes.md "Who may probe").
 * anonymous: everyone; accounts (the default): callers with a credential; off: nobody. Errors name
 * the setting; a refused request creates nothing.
 */

const BODY = { target: '198.18.1.10:443' };

async function setup(t: Parameters<typeof testApp>[0], public_probes?: Config['public_probes']) {
  const hub = recordingHub();
  const ctx = await testApp(t, { hub: () => hub, config: { probe_allow_cidrs: ['198.18.0.0/15'], ...(public_probes ? { public_probes } : {}) } });
  await addNode(ctx.sql, { country: 'DE', capabilities: ['tcp'] });
  const user = await registerUser(ctx.app);
  const tasks = async () => (await ctx.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM probe_tasks`)[0]!.n;
  return { ...ctx, hub, user, tasks };
}

t.test('the default is accounts', async (t) => {
  t.equal(loadConfig({}).public_probes, 'accounts');
  t.equal(loadConfig({ VANTAGE_PUBLIC_PROBES: 'off' }).public_probes, 'off');
  t.throws(() => loadConfig({ VANTAGE_PUBLIC_PROBES: 'everyone' }), /VANTAGE_PUBLIC_PROBES/);
});

t.test('accounts: an anonymous caller gets 401 naming the setting; a credential probes', async (t) => {
  const s = await setup(t, 'accounts');
  const anon = await call(s.app, 'POST', '/v1/probe/tcp', { body: BODY });
  t.equal(anon.status, 401);
  t.match(anon.body.error, { code: 'AUTH_REQUIRED', message: /VANTAGE_PUBLIC_PROBES=accounts/, details: { setting: 'VANTAGE_PUBLIC_PROBES', value: 'accounts' } });
  t.equal(await s.tasks(), 0, 'nothing created');
  const signed = await call(s.app, 'POST', '/v1/probe/tcp', { body: BODY, token: s.user.access_token });
  t.equal(signed.status, 202, JSON.stringify(signed.body));
  t.equal(await s.tasks(), 1);
  const poll = await call(s.app, 'GET', `/v1/probe/tasks/${signed.body.data.task_id}`);
  t.equal(poll.status, 200, 'polling a probe needs no credential: the task id is the capability');
});

t.test('off: every caller gets 403 naming the setting, even with a malformed body', async (t) => {
  const s = await setup(t, 'off');
  for (const [what, token, body] of [['anonymous', undefined, BODY], ['with a credential', s.user.access_token, BODY], ['malformed body', s.user.access_token, { nope: 1 }]] as const) {
    const res = await call(s.app, 'POST', '/v1/probe/tcp', { body, token });
    t.equal(res.status, 403, what);
    t.match(res.body.error, { code: 'FORBIDDEN', message: /turned off.*VANTAGE_PUBLIC_PROBES=off/, details: { setting: 'VANTAGE_PUBLIC_PROBES', value: 'off' } }, what);
  }
  t.equal(await s.tasks(), 0, 'nothing created');
  t.equal(s.hub.sent.length, 0, 'nothing sent');
});

t.test('anonymous: anyone probes', async (t) => {
  const s = await setup(t, 'anonymous');
  const anon = await call(s.app, 'POST', '/v1/probe/tcp', { body: BODY });
  t.equal(anon.status, 202, JSON.stringify(anon.body));
});

t.test('the OpenAPI document lists the 401 and 403 of probe creation', async (t) => {
  const s = await setup(t);
  const doc = (await call(s.app, 'GET', '/v1/openapi.json')).body;
  const responses = doc.paths['/v1/probe/tcp'].post.responses;
  t.match(responses['401'].description, /VANTAGE_PUBLIC_PROBES/);
  t.match(responses['403'].description, /VANTAGE_PUBLIC_PROBES/);
});
