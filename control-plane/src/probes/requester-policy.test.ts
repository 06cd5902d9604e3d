import t from 'tap';
import type { TaskRunMessage } from '@vantage/shared-protocol';
import { ApiError } from '../errors.js';
import { registerUser, testApp } from '../test-support/app.js';
import { systemResolver } from './address-policy.js';
import { probeCreator } from './create.js';
import { addNode, recordingHub } from './test-support.js';

// Who a task runs for (docs/api/probes.md "Target safety"): every task.run carries the requester's
// policy, and private targets need the node's owner with a write-capable credential.
const ALLOW_LIST = ['198.18.0.0/15'];

async function setup(t: { teardown(fn: () => unknown): void }) {
  const hub = recordingHub();
  const app = await testApp(t, { hub: () => hub, config: { probe_allow_cidrs: ALLOW_LIST } });
  const post = async (type: string, body: unknown, token?: string) => {
    const res = await app.app.request(`/v1/probe/${type}`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const apiKey = async (token: string, scopes: string[]) => {
    const res = await app.app.request('/v1/account/api-keys', {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ name: `key-${scopes.join('-')}`, scopes }),
    });
    if (res.status !== 201) throw new Error(`api key: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: { key: string } }).data.key;
  };
  /** The policy of the last task.run sent to `node_id`. */
  const policyOn = (node_id: string): TaskRunMessage['policy'] => hub.sent.filter((s) => s.node_id === node_id).at(-1)!.message.policy;
  return { ...app, hub, post, apiKey, policyOn };
}

t.test('a read-only credential cannot unlock private targets; a write-capable one of the owner can', async (t) => {
  const { app, sql, post, apiKey, policyOn } = await setup(t);
  const owner = await registerUser(app);
  const mine = await addNode(sql, { owner_user_id: owner.user_id, allow_private: true });
  const readKey = await apiKey(owner.access_token, ['read']);
  const probeKey = await apiKey(owner.access_token, ['probe']);
  const writeKey = await apiKey(owner.access_token, ['write']);

  const ro = await post('tcp', { target: '10.0.0.5:5432' }, readKey);
  t.equal(ro.status, 403, 'read-only key: creating a probe needs the probe scope (docs/api/scopes.md)');
  t.match(ro.body.error, { code: 'FORBIDDEN', details: { required_scope: 'probe' } });
  const po = await post('tcp', { target: '10.0.0.5:5432' }, probeKey);
  t.equal(po.status, 403, 'probe-only key: public targets only');
  t.match(po.body.error, { code: 'FORBIDDEN', details: { required_scope: 'write', address: '10.0.0.5', range: 'private' } });
  t.equal((await post('tcp', { target: '10.0.0.5:5432', node_id: mine }, probeKey)).status, 403, 'also with the node named');

  const rw = await post('tcp', { target: '10.0.0.5:5432' }, writeKey);
  t.equal(rw.status, 202, 'write key of the owner');
  t.same(policyOn(mine), { allow_private: true, allow_cidrs: ALLOW_LIST });
  t.equal((await post('tcp', { target: '10.0.0.5:5432' }, owner.access_token)).status, 202, 'a session can write');
});

t.test('every task.run carries its requester policy; only the owner\'s write credential opens private addresses, only on its own nodes', async (t) => {
  const { app, sql, post, apiKey, policyOn, deps, hub } = await setup(t);
  const owner = await registerUser(app);
  const mine = await addNode(sql, { owner_user_id: owner.user_id, allow_private: true, country: 'DE' });
  const mineClosed = await addNode(sql, { owner_user_id: owner.user_id, country: 'FR' });
  const theirs = await addNode(sql, { allow_private: true, country: 'US' });
  const nodes = [mine, mineClosed, theirs];
  const PUBLIC = { allow_private: false, allow_cidrs: ALLOW_LIST };

  t.equal((await post('http', { target: 'https://1.1.1.1/', node_ids: nodes })).status, 202);
  for (const n of nodes) t.same(policyOn(n), PUBLIC, 'anonymous: public addresses and the deployment allow-list');

  t.equal((await post('http', { target: 'https://1.1.1.1/', node_ids: nodes }, await apiKey(owner.access_token, ['probe']))).status, 202);
  for (const n of nodes) t.same(policyOn(n), PUBLIC, 'probe-only key: public');

  t.equal((await post('http', { target: 'https://1.1.1.1/', node_ids: nodes }, await apiKey(owner.access_token, ['read', 'write']))).status, 202);
  t.same(policyOn(mine), { allow_private: true, allow_cidrs: ALLOW_LIST }, 'the owner, writing, on a node of theirs that allows private targets');
  t.same(policyOn(mineClosed), PUBLIC, 'their node that does not allow private targets');
  t.same(policyOn(theirs), PUBLIC, "someone else's node");

  t.equal((await post('http', { target: 'https://1.1.1.1/' }, owner.access_token)).status, 202, 'automatic selection');
  t.same(policyOn(mine), { allow_private: true, allow_cidrs: ALLOW_LIST });
  t.same(policyOn(theirs), PUBLIC);

  // A task re-sent at hello (it missed its node) carries the same policy.
  for (const n of nodes) {
    const pending = await deps.results.pendingTasks(n);
    t.equal(pending.length, hub.sent.filter((s) => s.node_id === n).length, 'every queued task is pending');
    for (const m of pending) t.same(m.policy, hub.sent.find((s) => s.message.task_id === m.task_id)!.message.policy, 're-sent with the policy it was first sent with');
  }
  t.equal((await deps.results.pendingTasks(mine)).filter((m) => m.policy.allow_private).length, 2, "the owner's two writing requests");
});

t.test('the control plane fails closed on a name it cannot resolve in time', async (t) => {
  const { sql, deps, hub } = await setup(t);
  const node = await addNode(sql, { country: 'DE' });
  const slowLookup = () => new Promise<{ address: string }[]>((resolve) => setTimeout(() => resolve([{ address: '93.184.216.34' }]), 4000));
  const create = probeCreator({ sql, log: deps.log, config: deps.config, hub, resolve: systemResolver(200, slowLookup) });
  const body = { target: 'http://slow-first-lookup.example/', node_id: node, params: { method: 'GET', timeout_ms: 5000, headers: {}, follow_redirects: true, ip_version: 'auto' } } as const;
  const err = await create('http', body as never, null).then(() => null, (e: unknown) => e);
  t.ok(err instanceof ApiError, 'refused');
  t.match(err, { code: 'PROBE_TARGET_INVALID', message: /cannot be shown to be public: no answer for slow-first-lookup\.example within 200 ms/, details: { address: null, range: 'unresolved' } });
  t.equal(hub.sent.length, 0, 'nothing dispatched');
  const nx = await create('http', { ...body, target: 'http://nxdomain.invalid/' } as never, null).then(() => null, (e: unknown) => e);
  t.match(nx, { code: 'PROBE_TARGET_INVALID', details: { range: 'unresolved' } }, 'a name that does not resolve');
});
