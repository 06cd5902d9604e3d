import t from 'tap';
import { enrollNode, helloNode, makeToken, waitFor } from '../hub/test-harness.js';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * A monitor stored before the API checked request headers (docs/api/conventions.md "Request
 * headers") may hold a header its node refuses. It is left out of assignments, so the node still
 * takes the rest of its set, and a PATCH names the header until it is fixed.
 */

t.test('a stored monitor whose headers break the rule is left out of its node\'s set; a PATCH names the header', async (t) => {
  const { app, sql, url } = await testApp(t, { config: { probe_allow_cidrs: ['198.18.0.0/15'], plan: 'business' } });
  const user = await registerUser(app);
  const api = (method: string, path: string, body?: unknown) => call(app, method, path, { token: user.access_token, body });
  // The owner's own node: trusted with the monitor's header secrets.
  const { node, node_id, credential } = await enrollNode(url, await makeToken(sql, { country_code: 'DE', user_id: user.user_id }), 'probe-de');
  await node.next('assignments.full');
  const good = await api('POST', '/v1/monitors', { name: 'good', type: 'http', target: 'http://198.18.1.10/', node_count: 1, config: { headers: { Accept: 'text/html' } } });
  const bad = await api('POST', '/v1/monitors', { name: 'bad', type: 'http', target: 'http://198.18.1.11/', node_count: 1 });
  t.equal(good.status, 201);
  t.equal(bad.status, 201);
  t.same(bad.body.data.node_ids, [node_id]);
  // As an earlier version stored it: an illegal name and a value that injects another header.
  await sql`UPDATE monitors SET config = jsonb_set(config, '{headers}', ${sql.json({ 'X Foo:': 'a\r\nInjected: 1' })}) WHERE id = ${bad.body.data.id}`;
  node.close();
  await waitFor(async () => (await sql`SELECT status FROM nodes WHERE id = ${node_id}`)[0]!.status !== 'online');

  const again = await helloNode(url, credential, node_id); // TestNode refuses any frame parseServerMessage refuses
  t.teardown(() => again.close());
  const full = await again.next('assignments.full');
  t.same(full.assignments.map((a) => a.monitor_id), [good.body.data.id], 'the node gets the rest of its set');
  again.send({ type: 'assignments.ack', version: full.version });

  const renamed = await api('PATCH', `/v1/monitors/${bad.body.data.id}`, { name: 'still bad' });
  t.equal(renamed.status, 400);
  t.match(renamed.body.error, { code: 'VALIDATION_FAILED', details: { fields: [{ path: 'config.headers.X Foo:', message: /not an HTTP header name/ }] } });
  const fixed = await api('PATCH', `/v1/monitors/${bad.body.data.id}`, { config: { headers: { 'X-Foo': 'a' } } });
  t.equal(fixed.status, 200);
  // Deltas that came before the fix (the stored change bumped the version) leave it out too.
  let upsert: string[] = [];
  while (!upsert.includes(bad.body.data.id)) {
    const delta = await again.next('assignments.delta');
    again.send({ type: 'assignments.ack', version: delta.version });
    upsert = delta.upsert.map((a) => a.monitor_id);
  }
  t.same(upsert, [bad.body.data.id], 'fixed, it reaches the node');
});
