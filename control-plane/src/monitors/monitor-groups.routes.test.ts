import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';

t.test('groups: create, plain-array list ordered by sort_order then name, read, patch, delete ungroups', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  const prod = await call(app, 'POST', '/v1/monitor-groups', { token: u.access_token, body: { name: 'Production', sort_order: 10 } });
  t.equal(prod.status, 201);
  t.match(prod.body.data, { name: 'Production', sort_order: 10, monitor_count: 0, user_id: u.user_id });
  t.match(prod.body.data.id, /^mg_/);
  const staging = await call(app, 'POST', '/v1/monitor-groups', { token: u.access_token, body: { name: 'Staging' } });
  t.equal(staging.body.data.sort_order, 0, 'sort_order defaults to 0');
  await call(app, 'POST', '/v1/monitor-groups', { token: u.access_token, body: { name: 'Alpha', sort_order: 10 } });

  const m = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'site', type: 'http', target: 'http://1.1.1.1/', group_id: prod.body.data.id } });
  t.equal(m.body.data.group_id, prod.body.data.id);

  const list = await call(app, 'GET', '/v1/monitor-groups', { token: u.access_token });
  t.ok(Array.isArray(list.body.data), 'a plain array');
  t.same(list.body.data.map((g: { name: string }) => g.name), ['Staging', 'Alpha', 'Production']);
  t.equal(list.body.data[2].monitor_count, 1);

  const renamed = await call(app, 'PATCH', `/v1/monitor-groups/${staging.body.data.id}`, { token: u.access_token, body: { name: 'QA', sort_order: 99 } });
  t.match(renamed.body.data, { name: 'QA', sort_order: 99 });
  const taken = await call(app, 'PATCH', `/v1/monitor-groups/${staging.body.data.id}`, { token: u.access_token, body: { name: 'Production' } });
  t.equal(taken.status, 409);
  t.equal(taken.body.error.code, 'CONFLICT');
  const dup = await call(app, 'POST', '/v1/monitor-groups', { token: u.access_token, body: { name: 'Production' } });
  t.equal(dup.status, 409, 'names are unique per account');
  for (const body of [{ name: '' }, { name: 'x'.repeat(201) }, { name: 'ok', sort_order: 1.5 }, { name: 'ok', colour: 'red' }]) {
    t.equal((await call(app, 'POST', '/v1/monitor-groups', { token: u.access_token, body })).body.error?.code, 'VALIDATION_FAILED', JSON.stringify(body));
  }

  t.equal((await call(app, 'GET', `/v1/monitor-groups/${prod.body.data.id}`, { token: u.access_token })).body.data.name, 'Production');
  t.equal((await call(app, 'DELETE', `/v1/monitor-groups/${prod.body.data.id}`, { token: u.access_token })).status, 200);
  const after = await call(app, 'GET', `/v1/monitors/${m.body.data.id}`, { token: u.access_token });
  t.equal(after.status, 200, 'the monitor survives its group');
  t.equal(after.body.data.group_id, null, 'and is ungrouped');
  t.equal((await call(app, 'GET', `/v1/monitor-groups/${prod.body.data.id}`, { token: u.access_token })).status, 404);
});

t.test("another account's group: 404 on its routes, refused as a monitor's group_id", async (t) => {
  const { app } = await testApp(t);
  const owner = await registerUser(app);
  const other = await registerUser(app);
  const g = (await call(app, 'POST', '/v1/monitor-groups', { token: owner.access_token, body: { name: 'mine' } })).body.data;
  for (const [method, body] of [['GET'], ['PATCH', { name: 'x' }], ['DELETE']] as Array<[string, unknown?]>) {
    const r = await call(app, method, `/v1/monitor-groups/${g.id}`, { token: other.access_token, body });
    t.equal(r.status, 404, method);
    t.equal(r.body.error.code, 'NOT_FOUND');
  }
  t.same((await call(app, 'GET', '/v1/monitor-groups', { token: other.access_token })).body.data, []);
  const theirs = await call(app, 'POST', '/v1/monitors', { token: other.access_token, body: { name: 's', type: 'http', target: 'http://1.1.1.1/', group_id: g.id } });
  t.equal(theirs.status, 400);
  t.equal(theirs.body.error.code, 'VALIDATION_FAILED');
  t.match(theirs.body.error.details.fields, [{ path: 'group_id' }]);
  const own = await call(app, 'POST', '/v1/monitors', { token: other.access_token, body: { name: 's', type: 'http', target: 'http://1.1.1.1/' } });
  const patch = await call(app, 'PATCH', `/v1/monitors/${own.body.data.id}`, { token: other.access_token, body: { group_id: g.id } });
  t.equal(patch.body.error.code, 'VALIDATION_FAILED', 'nor on PATCH');
  t.equal((await call(app, 'GET', `/v1/monitor-groups/${g.id}`, { token: owner.access_token })).body.data.name, 'mine', 'untouched');
  t.equal((await call(app, 'GET', '/v1/monitor-groups')).status, 401);
});
