import { randomBytes } from 'node:crypto';
import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';
import type { ServerMessage } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import { enrollNode, makeToken } from '../hub/test-harness.js';
import { createLogger } from '../log.js';
import { createSecretBox, secretBoxOf } from '../secrets/secret-box.js';
import type { TestNode } from '../test-support/test-node.js';
import { sweepHeaderSecrets } from './secrets-sweep.js';

/*
 * Header secrets of HTTP-like monitors through the API and the assignment feed, on a real
 * database: sealed in the row, masked in every read, kept by a PATCH or import that sends the
 * mask back, opened only in what a node receives.
 */

const TOKEN = 'sk-test-0123456789abcdefLAST';
const API_KEY = 'k-98765432';
const CONFIG: Partial<Config> = { probe_allow_cidrs: ['198.18.0.0/15'], plan: 'business' };
const TARGET = 'https://198.18.1.10/v1/chat/completions';

async function setup(t: { teardown(fn: () => unknown): void }, config: Partial<Config> = {}) {
  const ctx = await testApp(t, { config: { ...CONFIG, ...config } });
  const user = await registerUser(ctx.app);
  const api = (method: string, path: string, body?: unknown) => call(ctx.app, method, path, { token: user.access_token, body });
  const stored = async (id: string) => (await ctx.sql<{ config: string }[]>`SELECT config::text AS config FROM monitors WHERE id = ${id}`)[0]!.config;
  return { ...ctx, user, api, stored };
}

const create = (extra: Record<string, unknown> = {}) => ({
  name: 'llm', type: 'llm_endpoint', target: TARGET, interval_s: 60, node_count: 1,
  config: { headers: { Authorization: `Bearer ${TOKEN}`, 'X-Api-Key': API_KEY, 'Content-Type': 'application/json' }, model_name: 'm', ...extra },
});

type Assignments = Extract<ServerMessage, { type: 'assignments.full' | 'assignments.delta' }>;
/** The headers of `monitor_id` in the next assignments frame that carries it (frames acked as an agent would). */
async function assignedHeaders(node: TestNode, monitor_id: string): Promise<Record<string, string>> {
  for (;;) {
    const m = await node.next() as Assignments;
    if (m.type !== 'assignments.full' && m.type !== 'assignments.delta') continue;
    node.send({ type: 'assignments.ack', version: m.version });
    const list = m.type === 'assignments.full' ? m.assignments : m.upsert;
    const a = list.find((x) => x.monitor_id === monitor_id);
    if (a) return (a.check.config as { headers: Record<string, string> }).headers;
  }
}

t.test('stored sealed, read masked, sent to the node in plain text, kept by a PATCH with the mask', async (t) => {
  const s = await setup(t);
  // The owner's own node: the only kind (with platform nodes) that may receive its secrets.
  const node = await enrollNode(s.url, await makeToken(s.sql, { user_id: s.user.user_id, country_code: 'DE' }), 'probe-secrets');
  t.teardown(() => node.node.close());

  const created = await s.api('POST', '/v1/monitors', create());
  t.equal(created.status, 201, JSON.stringify(created.body));
  const m = created.body.data;
  t.same(m.config.headers, { Authorization: '••••LAST', 'X-Api-Key': '••••••••', 'Content-Type': 'application/json' }, 'create answers masks');
  t.same(m.node_ids, [node.node_id], 'placed on the node');

  const row = await s.stored(m.id);
  t.notMatch(row, TOKEN, 'the row holds no plaintext token');
  t.notMatch(row, API_KEY, 'the row holds no plaintext key');
  t.match(row, /"Authorization": "vsec1:[0-9a-f]{8}:/, 'the token is sealed');
  t.match(row, /"Content-Type": "application\/json"/, 'a public header is stored as sent');

  for (const res of [await s.api('GET', `/v1/monitors/${m.id}`), await s.api('GET', '/v1/monitors'), await s.api('GET', '/v1/monitors/export')]) {
    const text = JSON.stringify(res.body);
    t.equal(res.status, 200);
    t.notMatch(text, TOKEN);
    t.notMatch(text, API_KEY);
    t.match(text, '••••LAST');
  }

  t.same(await assignedHeaders(node.node, m.id), { Authorization: `Bearer ${TOKEN}`, 'X-Api-Key': API_KEY, 'Content-Type': 'application/json' }, 'the node gets the plaintext');

  // PATCH with what was read (masks): the secrets stay; other fields change.
  const read = (await s.api('GET', `/v1/monitors/${m.id}`)).body.data;
  const kept = await s.api('PATCH', `/v1/monitors/${m.id}`, { config: { ...read.config, model_name: 'm2' } });
  t.equal(kept.status, 200, JSON.stringify(kept.body));
  t.same(await assignedHeaders(node.node, m.id), { Authorization: `Bearer ${TOKEN}`, 'X-Api-Key': API_KEY, 'Content-Type': 'application/json' }, 'the mask kept the secrets');
  t.notMatch(await s.stored(m.id), TOKEN);

  // A PATCH without config keeps them too; header names are matched case-insensitively.
  t.equal((await s.api('PATCH', `/v1/monitors/${m.id}`, { name: 'llm-2' })).status, 200);
  t.equal((await assignedHeaders(node.node, m.id)).Authorization, `Bearer ${TOKEN}`, 'a PATCH without config keeps them');
  const renamed = await s.api('PATCH', `/v1/monitors/${m.id}`, { config: { headers: { authorization: '••••LAST', 'x-api-key': 'k-new-value' } } });
  t.equal(renamed.status, 200, JSON.stringify(renamed.body));
  t.same(await assignedHeaders(node.node, m.id), { authorization: `Bearer ${TOKEN}`, 'x-api-key': 'k-new-value' }, 'a new value replaces the secret');

  // A mask that is not the stored secret's, or for a header without a stored secret: refused, nothing changes.
  const before = await s.stored(m.id);
  for (const headers of [{ authorization: '••••XXXX' }, { 'x-other': '••••LAST' }]) {
    const bad = await s.api('PATCH', `/v1/monitors/${m.id}`, { config: { headers } });
    t.equal(bad.status, 400);
    t.equal(bad.body.error.code, 'VALIDATION_FAILED');
    t.match(bad.body.error.details.fields[0].path, /^config\.headers\./);
  }
  t.equal(await s.stored(m.id), before, 'refused PATCHes changed nothing');
});

t.test('import: real values are sealed; an exported mask cannot be imported', async (t) => {
  const s = await setup(t);
  const doc = {
    monitors: [
      { name: 'a', type: 'http', target: 'https://198.18.1.11/', interval_s: 300, node_count: 1, tags: [], group: '', config: { headers: { Cookie: 'session=abcdefghijklmnop' } } },
      { name: 'b', type: 'http', target: 'https://198.18.1.11/', interval_s: 300, node_count: 1, tags: [], group: '', config: { headers: { Cookie: '••••mnop' } } },
    ],
  };
  const res = await s.api('POST', '/v1/monitors/import', doc);
  t.equal(res.status, 200, JSON.stringify(res.body));
  t.match(res.body.data.items, [{ status: 'created' }, { status: 'failed', error: { code: 'VALIDATION_FAILED', details: { fields: [{ path: 'config.headers.Cookie' }] } } }]);
  const id = res.body.data.items[0].monitor_id;
  t.notMatch(await s.stored(id), 'abcdefghijklmnop');
  const exported = await s.api('GET', '/v1/monitors/export');
  t.same(exported.body.data.monitors[0].config.headers, { Cookie: '••••mnop' });
});

t.test('a secret sealed with a key this instance lacks: masked reads, a clear error, the monitor left out of assignments', async (t) => {
  const s = await setup(t);
  const node = await enrollNode(s.url, await makeToken(s.sql, { user_id: s.user.user_id, country_code: 'FR' }), 'probe-wrong-key');
  t.teardown(() => node.node.close());
  const m = (await s.api('POST', '/v1/monitors', create())).body.data;
  t.same(m.node_ids, [node.node_id]);
  t.same((await assignedHeaders(node.node, m.id)).Authorization, `Bearer ${TOKEN}`);
  // As sealed by an instance with another VANTAGE_SECRETS_KEY (not given to this one, not even as previous).
  const foreign = createSecretBox({ current: randomBytes(32).toString('base64') });
  const sealed = foreign.seal(`Bearer ${TOKEN}`, `monitor:${m.id}:header:authorization`);
  await s.sql`UPDATE monitors SET config = jsonb_set(config, '{headers,Authorization}', to_jsonb(${sealed}::text)) WHERE id = ${m.id}`;

  const read = await s.api('GET', `/v1/monitors/${m.id}`);
  t.equal(read.status, 200, 'reads still work');
  t.equal(read.body.data.config.headers.Authorization, '••••••••', 'shown as a bare mask');
  t.equal((await s.api('GET', '/v1/monitors')).status, 200);

  const run = await s.api('POST', `/v1/monitors/${m.id}/run`);
  t.equal(run.status, 500);
  t.equal(run.body.error.code, 'INTERNAL_ERROR');
  t.match(run.body.error.message, `sealed with key ${foreign.key_id}, which is not configured`);
  t.notMatch(JSON.stringify(run.body), TOKEN);

  // Sending the bare mask back keeps what is stored (the other header is sealed anew); the node is
  // told of the change without the monitor it cannot be given, and the feed goes on.
  const kept = await s.api('PATCH', `/v1/monitors/${m.id}`, { config: read.body.data.config });
  t.equal(kept.status, 200, JSON.stringify(kept.body));
  t.match(await s.stored(m.id), sealed);
  const frame = await node.node.next() as Assignments;
  node.node.send({ type: 'assignments.ack', version: frame.version });
  t.match(frame, { type: 'assignments.delta', upsert: [] }, 'left out, not sent half-opened');
  // A new value makes it usable again.
  t.equal((await s.api('PATCH', `/v1/monitors/${m.id}`, { config: { ...read.body.data.config, headers: { ...read.body.data.config.headers, Authorization: 'Bearer fresh-token-0000' } } })).status, 200);
  t.equal((await assignedHeaders(node.node, m.id)).Authorization, 'Bearer fresh-token-0000');
});

t.test('sweep: plaintext rows from before sealing keep working and get sealed; rotation re-seals', async (t) => {
  const s = await setup(t);
  const m = (await s.api('POST', '/v1/monitors', create())).body.data;
  // As a row written before sealing existed.
  await s.sql`UPDATE monitors SET config = jsonb_set(config, '{headers}', ${s.sql.json({ Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' })}) WHERE id = ${m.id}`;
  t.match(await s.stored(m.id), TOKEN);
  const read = await s.api('GET', `/v1/monitors/${m.id}`);
  t.same(read.body.data.config.headers, { Authorization: '••••LAST', 'Content-Type': 'application/json' }, 'a plaintext row reads masked');

  const log = createLogger('silent');
  t.same(await sweepHeaderSecrets(s.sql, secretBoxOf(s.deps.config), log), { resealed: 1, failed: 0 });
  t.notMatch(await s.stored(m.id), TOKEN, 'sealed by the sweep');
  t.same(await sweepHeaderSecrets(s.sql, secretBoxOf(s.deps.config), log), { resealed: 0, failed: 0 }, 'nothing left to do');

  // Rotation: a new key with the old one as previous re-seals under the new key id.
  const next = randomBytes(32).toString('base64');
  const rotated = createSecretBox({ current: next, previous: [s.deps.config.secrets_key!] });
  t.same(await sweepHeaderSecrets(s.sql, rotated, log), { resealed: 1, failed: 0 });
  t.match(await s.stored(m.id), `vsec1:${rotated.key_id}:`);
  // A key set without the old key cannot open it: counted, logged, left as it is.
  const before = await s.stored(m.id);
  t.same(await sweepHeaderSecrets(s.sql, createSecretBox({ current: randomBytes(32).toString('base64') }), log), { resealed: 0, failed: 1 });
  t.equal(await s.stored(m.id), before);
});
