import t from 'tap';
import type { CheckSpec } from '@vantage/shared-protocol';
import { enrollNode, helloNode, makeToken, waitFor } from '../hub/test-harness.js';
import { createSecretBox, SecretKeyError } from '../secrets/secret-box.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { openTaskCheck, sealTaskCheck } from './task-secrets.js';

/* Secret request headers of probe tasks: sealed in probe_tasks, plain on the wire to the node. */

const KEY = Buffer.alloc(32, 7).toString('base64');
const http = (headers: Record<string, string>): CheckSpec =>
  ({ type: 'http', target: 'https://198.18.1.10/', params: { method: 'GET', timeout_ms: 5000, headers, follow_redirects: true, ip_version: 'auto' } }) as CheckSpec;

t.test('seal and open: secret values only, bound to their group', async (t) => {
  const box = createSecretBox({ current: KEY });
  const plain = http({ Authorization: 'Bearer abc', Accept: 'text/html' });
  const sealed = sealTaskCheck(box, 'pt_1', plain);
  const headers = (sealed.params as { headers: Record<string, string> }).headers;
  t.notMatch(headers.Authorization, /abc/, 'the credential is sealed');
  t.equal(headers.Accept, 'text/html', 'a public header stays as sent');
  t.same(openTaskCheck(box, 'pt_1', sealed), plain, 'opens back to what was asked');
  t.throws(() => openTaskCheck(box, 'pt_2', sealed), SecretKeyError, 'a value copied to another group does not open');
  t.same(sealTaskCheck(box, 'pt_1', http({ Accept: 'text/html' })), http({ Accept: 'text/html' }), 'no secret: unchanged');
  const tcp = { type: 'tcp', target: '198.18.1.10:443', params: { timeout_ms: 1000 } } as unknown as CheckSpec;
  t.equal(sealTaskCheck(box, 'pt_1', tcp), tcp, 'other types: unchanged');
  t.equal(sealTaskCheck(createSecretBox({}), 'pt_1', plain), plain, 'no key configured: stored as is');
});

t.test('an HTTP probe\'s Authorization is never stored in plain text, and a node that reconnects still gets it', async (t) => {
  const { app, sql, url } = await testApp(t, { config: { probe_allow_cidrs: ['198.18.0.0/15'] } });
  const user = await registerUser(app);
  // The requester's own node: only such nodes (and platform nodes) receive its secret headers.
  const enrolled = await enrollNode(url, await makeToken(sql, { user_id: user.user_id, country_code: 'DE' }), 'probe-de');
  const secret = 'Bearer token-that-must-not-be-stored';
  const created = await call(app, 'POST', '/v1/probe/http', {
    token: user.access_token,
    body: { target: 'https://198.18.1.10/health', params: { headers: { Authorization: secret, Accept: 'text/html' } }, node_ids: [enrolled.node_id] },
  });
  t.equal(created.status, 202);
  const task = await enrolled.node.next('task.run');
  t.match(task.check, { params: { headers: { Authorization: secret, Accept: 'text/html' } } }, 'the node receives the header as asked');
  const [row] = await sql<{ check: string }[]>`SELECT "check"::text AS check FROM probe_tasks WHERE id = ${task.task_id}`;
  t.notMatch(row!.check, /token-that-must-not-be-stored/, 'the stored task holds no plain text');
  t.match(row!.check, /text\/html/, 'public headers are stored as sent');
  // An automatic pick: the node is chosen among those trusted with the requester's secrets, then the task stored sealed.
  const auto = await call(app, 'POST', '/v1/probe/http', {
    token: user.access_token,
    body: { target: 'https://198.18.1.10/health', params: { headers: { Authorization: secret } }, nodes: { count: 1 } },
  });
  t.equal(auto.status, 202);
  const auto_task = await enrolled.node.next('task.run');
  t.equal(auto_task.task_id, auto.body.data.task_id);
  t.match(auto_task.check, { params: { headers: { Authorization: secret } } }, 'sent as asked');
  const [auto_row] = await sql<{ check: string }[]>`SELECT "check"::text AS check FROM probe_tasks WHERE id = ${auto_task.task_id}`;
  t.notMatch(auto_row!.check, /token-that-must-not-be-stored/, 'stored sealed');
  t.match(auto_row!.check, /Authorization/);

  // Unacknowledged: the task is sent again when the node says hello on a new connection.
  enrolled.node.close();
  await waitFor(async () => (await sql`SELECT count(*)::int AS n FROM nodes WHERE status = 'online'`)[0]!.n === 0);
  const again = await helloNode(url, enrolled.credential, enrolled.node_id);
  t.teardown(() => again.close());
  const resent = await again.next('task.run');
  t.equal(resent.task_id, task.task_id);
  t.match(resent.check, { params: { headers: { Authorization: secret } } }, 'the re-sent task carries the opened header');
});
