import t from 'tap';
import { enrollNode, makeToken, waitFor } from '../hub/test-harness.js';
import { call, registerUser, testApp } from '../test-support/app.js';

/* POST /v1/monitors/{id}/run (one round now, as an ad-hoc probe) and the nodes' clock offset. */

const { app, sql, url } = await testApp(t, { config: { probe_allow_cidrs: ['198.18.0.0/15'], plan: 'business' } });
const user = await registerUser(app);
const api = (method: string, path: string, body?: unknown, token = user.access_token) => call(app, method, path, { token, body });

t.test('run: one ad-hoc task per online node of the monitor, returned like a probe', async (t) => {
  // The account's own nodes: the https monitor's `x-probe` header counts as a secret.
  const de = await enrollNode(url, await makeToken(sql, { user_id: user.user_id, country_code: 'DE' }), 'probe-de');
  const fr = await enrollNode(url, await makeToken(sql, { user_id: user.user_id, country_code: 'FR' }), 'probe-fr');
  t.teardown(() => { de.node.close(); fr.node.close(); });
  const m = (await api('POST', '/v1/monitors', { name: 'tcp', type: 'tcp', target: '198.18.1.10:443', interval_s: 300, node_count: 2, config: { timeout_ms: 3000 } })).body.data;
  t.same([...m.node_ids].sort(), [de.node_id, fr.node_id].sort());

  const run = await api('POST', `/v1/monitors/${m.id}/run`);
  t.equal(run.status, 202);
  t.match(run.body.data, { task_id: /^pt_/, status: 'queued' });
  t.equal(run.body.data.task_ids.length, 2);
  for (const node of [de.node, fr.node]) {
    const task = await node.next('task.run');
    t.ok(run.body.data.task_ids.includes(task.task_id));
    t.match(task.check, { type: 'tcp', target: '198.18.1.10:443', params: { timeout_ms: 3000 } }, 'the monitor\'s check as a probe');
  }
  const poll = await call(app, 'GET', `/v1/probe/tasks/${run.body.data.task_id}`);
  t.equal(poll.status, 200, 'polled like any probe');

  const tasks = async () => (await sql`SELECT count(*)::int AS n FROM probe_tasks`)[0]!.n as number;
  t.equal((await api('POST', `/v1/monitors/${m.id}/pause`)).status, 200);
  const queued = await tasks();
  const paused = await api('POST', `/v1/monitors/${m.id}/run`);
  t.equal(paused.status, 409, 'a paused monitor does not run');
  t.match(paused.body.error, { code: 'MONITOR_PAUSED', message: /paused.*resume/ });
  t.equal(await tasks(), queued, 'no task queued for it');
  t.equal((await api('POST', `/v1/monitors/${m.id}/resume`)).status, 200);

  const https = (await api('POST', '/v1/monitors', { name: 'https', type: 'https', target: 'https://198.18.1.10/health', node_count: 1, config: { method: 'HEAD', headers: { 'x-probe': '1' } } })).body.data;
  t.equal((await api('POST', `/v1/monitors/${https.id}/run`)).status, 202);
  const node = https.node_ids[0] === de.node_id ? de.node : fr.node;
  t.match((await node.next('task.run')).check, { type: 'http', target: 'https://198.18.1.10/health', params: { method: 'HEAD', headers: { 'x-probe': '1' } } });

  const hb = (await api('POST', '/v1/monitors', { name: 'hb', type: 'heartbeat' })).body.data;
  t.match((await api('POST', `/v1/monitors/${hb.id}/run`)).body.error, { code: 'CONFLICT' }, 'a heartbeat has no probe');
  const other = await registerUser(app);
  t.equal((await api('POST', `/v1/monitors/${m.id}/run`, undefined, other.access_token)).status, 404, 'another account\'s monitor');
  t.equal((await api('POST', '/v1/monitors/m_nope/run')).status, 404);

  de.node.close();
  fr.node.close();
  await waitFor(async () => (await sql`SELECT count(*)::int AS n FROM nodes WHERE status = 'online'`)[0]!.n === 0);
  const offline = await api('POST', `/v1/monitors/${m.id}/run`);
  t.equal(offline.status, 503, 'its nodes are offline (within their grace: still placed)');
  t.equal(offline.body.error.code, 'NODE_OFFLINE');
  const unplaced = (await api('POST', '/v1/monitors', { name: 'nowhere', type: 'tcp', target: '198.18.1.10:22', node_count: 1 })).body.data;
  t.same(unplaced.node_ids, [], 'no online node: not placed');
  t.equal((await api('POST', `/v1/monitors/${unplaced.id}/run`)).body.error.code, 'PROBE_TOO_FEW_NODES');
});

t.test('clock offset: reported in heartbeats, shown on the node, flagged beyond 1 s', async (t) => {
  const { node, node_id } = await enrollNode(url, await makeToken(sql), 'probe-clock');
  t.teardown(() => node.close());
  const detail = async () => (await call(app, 'GET', `/v1/nodes/${node_id}`)).body.data;
  t.match(await detail(), { clock_offset_ms: null, clock_skewed: false, clock_reported_at: null }, 'nothing until the node reports');
  node.send({ type: 'heartbeat', sent_at: Date.now(), clock_offset_ms: 1500, rtt_ms: 2 });
  await waitFor(async () => (await detail()).clock_offset_ms === 1500);
  t.match(await detail(), { clock_offset_ms: 1500, clock_skewed: true, clock_reported_at: /Z$/ }, 'more than 1 s off: flagged');
  node.send({ type: 'heartbeat', sent_at: Date.now(), clock_offset_ms: -20, rtt_ms: 2 });
  await waitFor(async () => (await detail()).clock_offset_ms === -20);
  t.equal((await detail()).clock_skewed, false, 'back within 1 s');
  node.send({ type: 'heartbeat', sent_at: Date.now(), clock_offset_ms: 'soon' });
  t.match(await node.next('error'), { code: 'VALIDATION_FAILED' }, 'a malformed report costs only its frame');
});
