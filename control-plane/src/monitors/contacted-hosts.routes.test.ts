import t from 'tap';
import { addNode } from '../probes/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * The DNS server of an rbl or dns monitor is a host its nodes contact: it is judged at save by the
 * address policy of probe targets (shared-protocol rblServerHost for rbl), the rule its nodes
 * apply again before querying, and a refusal names `config.server`.
 */

t.test('a private rbl or dns server is refused at save naming config.server, unless allowed', async (t) => {
  const { app, sql } = await testApp(t, { config: { probe_allow_cidrs: ['198.18.0.0/15'] } });
  const u = await registerUser(app);
  const create = (body: Record<string, unknown>) => call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: `m${Math.random()}`, ...body } });
  const refused = [
    { type: 'rbl', target: '1.1.1.1', config: { server: '127.0.0.1:5353' }, range: 'loopback' },
    { type: 'rbl', target: 'example.com', config: { server: 'localhost' }, range: 'loopback' },
    { type: 'rbl', target: '1.1.1.1', config: { server: '[::1]:53' }, range: 'loopback' },
    { type: 'rbl', target: '1.1.1.1', config: { server: '10.0.0.53' }, range: 'private' },
    { type: 'dns', target: 'example.com', config: { server: '192.168.1.1' }, range: 'private' },
  ];
  for (const { range, ...body } of refused) {
    const r = await create(body);
    t.equal(r.status, 422, `${body.type} server ${body.config.server}`);
    t.equal(r.body.error.code, 'MONITOR_INVALID_TARGET');
    t.match(r.body.error.details, { range, fields: [{ path: 'config.server', message: new RegExp(`^config\\.server .* is a ${range} address`) }] });
  }
  t.equal((await sql`SELECT 1 FROM monitors`).length, 0, 'nothing stored');

  const inAllowList = await create({ type: 'rbl', target: '1.1.1.1', config: { server: '198.18.0.53' } });
  t.equal(inAllowList.status, 201, 'the deployment allow list (probe_allow_cidrs) opens it');
  t.equal(inAllowList.body.data.private_target, false);
  const noServer = await create({ type: 'rbl', target: '10.0.0.1' });
  t.equal(noServer.status, 201, 'the rbl target itself is looked up, not contacted');

  const toLoopback = await call(app, 'PATCH', `/v1/monitors/${inAllowList.body.data.id}`, { token: u.access_token, body: { config: { server: '127.0.0.1' } } });
  t.equal(toLoopback.status, 422);
  t.equal(toLoopback.body.error.details.fields[0].path, 'config.server');
  const kept = await call(app, 'GET', `/v1/monitors/${inAllowList.body.data.id}`, { token: u.access_token });
  t.equal(kept.body.data.config.server, '198.18.0.53', 'a refused PATCH changes nothing');

  await addNode(sql, { owner_user_id: u.user_id, allow_private: true });
  const own = await create({ type: 'rbl', target: '1.1.1.1', config: { server: '127.0.0.1:5353' } });
  t.equal(own.status, 201, 'with a node of the owner that allows private targets');
  t.equal(own.body.data.private_target, true, 'then it runs only on such nodes, whose policy lets the check reach the server');
});
