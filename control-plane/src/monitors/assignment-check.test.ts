import t from 'tap';
import { enrollNode, helloNode, makeToken, waitFor } from '../hub/test-harness.js';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * The assignment feed sends a node only assignments it will take (assignment-check.ts: the
 * node-protocol assignmentSchema the node parses each one with, the request header rule, the
 * frame's depth bound). A monitor stored before a rule was added (an expected_fields JSONPath using
 * match(), illegal headers, a regex assertion that compiles too large) is withheld, with its
 * field in the log; the rest of the set is sent. TestNode fails on any assignment a node would refuse.
 */

t.test('stored monitors the nodes would refuse are withheld; the others are sent, in full sets and deltas', async (t) => {
  const { app, sql, url } = await testApp(t, { config: { probe_allow_cidrs: ['198.18.0.0/15'], plan: 'business' } });
  const user = await registerUser(app);
  const api = (method: string, path: string, body?: unknown) => call(app, method, path, { token: user.access_token, body });
  const { node, node_id, credential } = await enrollNode(url, await makeToken(sql, { country_code: 'DE', user_id: user.user_id }), 'probe-de');
  await node.next('assignments.full');
  const create = async (body: Record<string, unknown>) => {
    const r = await api('POST', '/v1/monitors', { node_count: 1, ...body });
    t.equal(r.status, 201, `${String(body.name)} created`);
    t.same(r.body.data.node_ids, [node_id]);
    return r.body.data.id as string;
  };
  const good = await create({ name: 'good', type: 'http', target: 'http://198.18.1.10/' });
  const other = await create({ name: 'other', type: 'http', target: 'http://198.18.1.13/' });
  const path = await create({ name: 'path', type: 'llm_endpoint', target: 'https://198.18.1.11/v1/chat/completions', config: { expected_fields: ['$.choices[0]'] } });
  const header = await create({ name: 'header', type: 'http', target: 'http://198.18.1.12/' });
  const regex = await create({ name: 'regex', type: 'http', target: 'http://198.18.1.14/', config: { assertions: [{ type: 'body_regex', op: 'regex', value: 'ok' }] } });
  // As earlier versions stored them, before the API refused these.
  await sql`UPDATE monitors SET config = jsonb_set(config, '{expected_fields}', ${sql.json(["$[?match(@.a,'x')]"])}) WHERE id = ${path}`;
  await sql`UPDATE monitors SET config = jsonb_set(config, '{headers}', ${sql.json({ 'X Foo:': 'a\r\nInjected: 1' })}) WHERE id = ${header}`;
  await sql`UPDATE monitors SET config = jsonb_set(config, '{assertions,0,value}', ${sql.json('x{1000}'.repeat(140))}) WHERE id = ${regex}`;
  node.close();
  await waitFor(async () => (await sql`SELECT status FROM nodes WHERE id = ${node_id}`)[0]!.status !== 'online');

  const again = await helloNode(url, credential, node_id);
  t.teardown(() => again.close());
  const full = await again.next('assignments.full');
  t.same(full.assignments.map((a) => a.monitor_id).sort(), [good, other].sort(), 'the full set holds the monitors nodes take, and only them');
  again.send({ type: 'assignments.ack', version: full.version });

  // A monitor the node holds whose new revision it would refuse leaves it in the delta; the
  // others' changes still arrive.
  await sql`UPDATE monitors SET config = jsonb_set(config, '{headers}', ${sql.json({ 'Bad Name': 'x' })}), revision = revision + 1 WHERE id = ${good}`;
  t.equal((await api('PATCH', `/v1/monitors/${other}`, { interval_s: 300 })).status, 200);
  const removed = new Set<string>();
  const upserted = new Map<string, number>();
  while (!removed.has(good) || upserted.get(other) !== 300) {
    const delta = await again.next('assignments.delta');
    again.send({ type: 'assignments.ack', version: delta.version });
    for (const id of delta.remove) removed.add(id);
    for (const a of delta.upsert) upserted.set(a.monitor_id, a.interval_s);
  }
  t.notOk(upserted.has(good), 'the refused revision is never sent');
  t.same([...upserted.keys()], [other], 'the other change arrives');

  // Edited to pass, it is sent again.
  t.equal((await api('PATCH', `/v1/monitors/${path}`, { config: { expected_fields: ['$.choices[0].message'] } })).status, 200);
  let upsert: string[] = [];
  while (!upsert.includes(path)) {
    const delta = await again.next('assignments.delta');
    again.send({ type: 'assignments.ack', version: delta.version });
    upsert = delta.upsert.map((a) => a.monitor_id);
  }
  t.same(upsert, [path], 'fixed, it reaches the node');
});
