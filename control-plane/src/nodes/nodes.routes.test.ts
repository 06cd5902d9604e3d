import t from 'tap';
import { CLOSE_CODES, PROTOCOL_VERSION, enrollProof, nodeListItemSchema } from '@vantage/shared-protocol';
import { TestNode } from '../test-support/test-node.js';
import { call, registerUser, testApp } from '../test-support/app.js';

// The real app on a real socket, with the real hub (testApp attaches it to the same server).
const { app, deps, url } = await testApp(t, { config: { instance_id: 'routes-test', heartbeat_interval_ms: 1000 } });

const alice = await registerUser(app);
const bob = await registerUser(app);

async function enroll(token: string, hostname = 'probe'): Promise<{ node: TestNode; node_id: string; credential: string }> {
  const node = await TestNode.connect(url, token);
  node.send({ type: 'enroll', protocol_version: PROTOCOL_VERSION, agent_version: '0.1.0', hostname });
  const w = await node.next('welcome');
  node.send({ type: 'enroll.confirm', node_id: w.node_id, proof: enrollProof(w.credential!, w.node_id) });
  await node.next('enroll.confirmed');
  return { node, node_id: w.node_id, credential: w.credential! };
}

async function newToken(body: object = {}, token = alice.access_token): Promise<string> {
  const res = await call(app, 'POST', '/v1/enrollment-tokens', { token, body });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data.token;
}

t.test('enrollment tokens: create checks every docs/api/nodes.md field', async (t) => {
  const res = await call(app, 'POST', '/v1/enrollment-tokens', {
    token: alice.access_token,
    body: { label: 'bj-1', country_code: 'cn', declared_province: 'cn-bj', city_id: 1, operator: 'chinatelecom', sponsor_user_id: alice.user_id, ttl_hours: 2 },
  });
  t.equal(res.status, 201);
  t.match(res.body.data, { id: /^et_/, token: /^ent_/, expires_at: String });
  const ttl_h = (Date.parse(res.body.data.expires_at) - Date.now()) / 3_600_000;
  t.ok(ttl_h > 1.9 && ttl_h <= 2, 'ttl_hours applied');

  const bad: Array<[object, number, string]> = [
    [{ label: 'x'.repeat(41) }, 400, 'label'],
    [{ country_code: 'CHN' }, 400, 'country_code'],
    [{ declared_province: 'CN-BEIJING' }, 400, 'declared_province'],
    [{ declared_province: 'CN-XX' }, 400, 'declared_province'],
    [{ country_code: 'CN', declared_province: 'DE-BE' }, 400, 'declared_province'],
    [{ city_id: 9999 }, 400, 'city_id'],
    [{ city_id: 0 }, 400, 'city_id'],
    [{ country_code: 'CN', city_id: 101 }, 400, 'city_id'],
    [{ declared_province: 'CN-SH', city_id: 1 }, 400, 'city_id'],
    [{ operator: 'att' }, 400, 'operator'],
    [{ sponsor_user_id: bob.user_id }, 403, 'sponsor_user_id'],
    [{ surprise: 1 }, 400, ''],
  ];
  for (const [body, status, path] of bad) {
    const r = await call(app, 'POST', '/v1/enrollment-tokens', { token: alice.access_token, body });
    t.equal(r.status, status, JSON.stringify(body));
    if (path) t.ok(JSON.stringify(r.body.error.details ?? {}).includes(path), `${JSON.stringify(body)} names ${path}`);
  }
  t.equal((await call(app, 'POST', '/v1/enrollment-tokens', { body: {} })).status, 401, 'auth required');
});

t.test('enrollment tokens: list shows masked previews and status; revoke; a used token names its node', async (t) => {
  const cityOnly = await call(app, 'POST', '/v1/enrollment-tokens', { token: bob.access_token, body: { city_id: 4 } });
  t.equal(cityOnly.status, 201);
  const token = cityOnly.body.data.token as string;
  let list = await call(app, 'GET', '/v1/enrollment-tokens', { token: bob.access_token });
  t.equal(list.body.data.tokens.length, 1, 'only the caller\'s tokens');
  const item = list.body.data.tokens[0];
  t.match(item, { status: 'active', consumed_node_id: null, country_code: 'CN', declared_province: 'CN-GD', city_id: 4 });
  t.notOk(JSON.stringify(list.body).includes(token), 'the secret never appears in the list');
  t.match(item.preview, /^ent_.{4}….{4}$/);

  const { node, node_id } = await enroll(token);
  t.teardown(() => node.close());
  list = await call(app, 'GET', '/v1/enrollment-tokens', { token: bob.access_token });
  t.match(list.body.data.tokens[0], { status: 'used', consumed_node_id: node_id });
  const n = await call(app, 'GET', `/v1/nodes/${node_id}`);
  t.match(n.body.data, { country: 'CN', region: 'CN-GD', city: 'Shenzhen', status: 'online' });

  const other = await call(app, 'POST', '/v1/enrollment-tokens', { token: bob.access_token, body: {} });
  await deps.sql`UPDATE enrollment_tokens SET expires_at = now() - interval '1 minute' WHERE id = ${other.body.data.id}`;
  list = await call(app, 'GET', '/v1/enrollment-tokens', { token: bob.access_token });
  t.equal(list.body.data.tokens.find((x: any) => x.id === other.body.data.id).status, 'expired');
  t.equal((await call(app, 'DELETE', `/v1/enrollment-tokens/${other.body.data.id}`, { token: alice.access_token })).status, 404, "not alice's");
  t.equal((await call(app, 'DELETE', `/v1/enrollment-tokens/${other.body.data.id}`, { token: bob.access_token })).status, 200);
  list = await call(app, 'GET', '/v1/enrollment-tokens', { token: bob.access_token });
  t.equal(list.body.data.tokens.length, 1);
});

t.test('city dictionary: filter by country and province', async (t) => {
  const gd = await call(app, 'GET', '/v1/geo/cities?country=cn&province=CN-GD');
  t.equal(gd.status, 200);
  t.same(gd.body.data.items.map((c: any) => c.name).sort(), ['Dongguan', 'Guangzhou', 'Shenzhen']);
  const all = await call(app, 'GET', '/v1/geo/cities');
  t.ok(all.body.data.items.length >= 60);
  t.equal((await call(app, 'GET', '/v1/geo/cities?province=nope')).status, 400);
});

t.test('node directory: public list with filters and paging; owner fields hidden from others', async (t) => {
  const de = await enroll(await newToken({ label: 'ber-1', country_code: 'DE', declared_province: 'DE-BE', city_id: 201 }));
  const jp = await enroll(await newToken({ label: 'tyo-1', city_id: 301, operator: 'other' }));
  t.teardown(() => { de.node.close(); jp.node.close(); });
  const all = await call(app, 'GET', '/v1/nodes');
  t.equal(all.status, 200);
  t.ok(all.body.data.total >= 2);
  const ber = all.body.data.items.find((n: any) => n.id === de.node_id);
  t.match(ber, { name: 'ber-1', country: 'DE', region: 'DE-BE', city: 'Berlin', status: 'online' });
  t.notOk('ip_address' in ber, 'the public list carries no addresses');
  t.same((await call(app, 'GET', '/v1/nodes?country=de')).body.data.items.map((n: any) => n.id), [de.node_id]);
  t.same((await call(app, 'GET', '/v1/nodes?region=JP-13')).body.data.items.map((n: any) => n.id), [jp.node_id]);
  const page = await call(app, 'GET', '/v1/nodes?page_size=1&status=online');
  t.match(page.body.data, { page: 1, page_size: 1, has_more: true });
  t.equal(page.body.data.items.length, 1);
  const total = page.body.data.total;
  const last = await call(app, 'GET', `/v1/nodes?page_size=1&status=online&page=${total}`);
  t.match(last.body.data, { page: total, total, has_more: false });
  t.equal(last.body.data.items.length, 1);
  const past = await call(app, 'GET', `/v1/nodes?page_size=1&status=online&page=${total + 1}`);
  t.match(past.body.data, { items: [], total, has_more: false }, 'a page past the end is empty and still tells the total');
  // Pages of one, walked to the end, are the whole list in id order: none skipped or repeated.
  const whole = (await call(app, 'GET', '/v1/nodes?status=online&page_size=200')).body.data.items.map((n: any) => n.id);
  const walked: string[] = [];
  for (let p = 1; p <= total; p++) walked.push(...(await call(app, 'GET', `/v1/nodes?page_size=1&status=online&page=${p}`)).body.data.items.map((n: any) => n.id));
  t.same(walked, whole, 'pages concatenate to the list');
  t.same(whole, [...whole].sort(), 'in id order');
  t.equal((await call(app, 'GET', '/v1/nodes?page_size=500')).status, 400);
  t.equal((await call(app, 'GET', '/v1/nodes?mine=true')).status, 401);
  const mine = await call(app, 'GET', '/v1/nodes?mine=true', { token: bob.access_token });
  t.notOk(mine.body.data.items.some((n: any) => n.id === de.node_id), "alice's nodes are not bob's");

  const asOther = await call(app, 'GET', `/v1/nodes/${de.node_id}`, { token: bob.access_token });
  t.match(asOther.body.data, { is_owner: false, ip_address: null, allow_private: null });
  // The list's items are written by Postgres, the read by the route: the same fields and values
  // (last_seen_at moves with the lease between the two requests, so only its form is compared).
  t.ok(nodeListItemSchema.safeParse(ber).success, 'a list item has the documented shape');
  const { last_seen_at: listed_seen, ...listed } = ber;
  const read = Object.fromEntries(Object.keys(listed).map((k) => [k, asOther.body.data[k]]));
  t.same(listed, read, 'a list item carries the values of the node read alone');
  t.equal(new Date(listed_seen).toISOString(), listed_seen, 'last_seen_at as Date#toISOString writes it');
  const asOwner = await call(app, 'GET', `/v1/nodes/${de.node_id}`, { token: alice.access_token });
  t.match(asOwner.body.data, { is_owner: true, ip_address: '127.0.0.1', allow_private: false, outbox: null });
  t.equal((await call(app, 'GET', '/v1/nodes/n_nope')).body.error.code, 'NODE_NOT_FOUND');

  // The node reports its outbox (drops counted and reported): the owner sees it.
  de.node.send({ type: 'outbox.stats', pending: 12, dropped_total: 3, oldest_pending_at: '2026-11-22T09:59:00.000Z' });
  let seen: any = null;
  for (let i = 0; i < 100 && !seen; i++) {
    const res = await call(app, 'GET', `/v1/nodes/${de.node_id}`, { token: alice.access_token });
    if (res.body.data.outbox) seen = res.body.data.outbox;
    else await new Promise((r) => setTimeout(r, 50));
  }
  t.match(seen, { pending: 12, dropped_total: 3, oldest_pending_at: '2026-11-22T09:59:00.000Z' }, 'outbox stats reach the owner');
  t.equal((await call(app, 'GET', `/v1/nodes/${de.node_id}`, { token: bob.access_token })).body.data.outbox, null, 'but nobody else');
});

t.test('owner management: rename/tag, disable closes the socket, enable, remove', async (t) => {
  const { node, node_id, credential } = await enroll(await newToken({ label: 'm-1' }));
  const path = `/v1/nodes/${node_id}`;
  t.equal((await call(app, 'PATCH', path, { token: bob.access_token, body: { name: 'mine now' } })).status, 403);
  const patched = await call(app, 'PATCH', path, { token: alice.access_token, body: { name: 'fra-1', tags: ['eu', 'edge'], allow_private: true } });
  t.match(patched.body.data, { name: 'fra-1', tags: ['eu', 'edge'], allow_private: true });
  t.equal((await call(app, 'PATCH', path, { token: alice.access_token, body: { tags: ['Bad Tag'] } })).status, 400);
  t.same((await call(app, 'GET', '/v1/nodes?tag=edge')).body.data.items.map((n: any) => n.id), [node_id]);

  t.equal((await call(app, 'POST', `${path}/disable`, { token: bob.access_token })).status, 403);
  const disabled = await call(app, 'POST', `${path}/disable`, { token: alice.access_token });
  t.same(disabled.body.data, { id: node_id, status: 'disabled' });
  t.equal((await node.closed).code, CLOSE_CODES.node_disabled.code, 'socket closed with node_disabled');
  t.equal((await call(app, 'POST', `${path}/disable`, { token: alice.access_token })).body.error.code, 'NODE_ALREADY_BANNED');
  t.equal((await TestNode.connect(url, credential).catch((e: { status?: number }) => e) as { status?: number }).status, 401, 'a disabled node cannot reconnect');
  t.same((await call(app, 'POST', `${path}/enable`, { token: alice.access_token })).body.data, { id: node_id, status: 'offline' });
  t.equal((await call(app, 'POST', `${path}/enable`, { token: alice.access_token })).body.error.code, 'NODE_NOT_BANNED');

  const back = await TestNode.connect(url, credential);
  back.send({ type: 'hello', protocol_version: PROTOCOL_VERSION, agent_version: '0.1.0', node_id });
  await back.next('welcome');
  t.equal((await call(app, 'DELETE', path, { token: alice.access_token })).status, 200);
  t.equal((await back.closed).code, CLOSE_CODES.node_removed.code, 'socket closed with node_removed');
  t.equal((await call(app, 'GET', path)).body.error.code, 'NODE_NOT_FOUND');
  t.notOk((await call(app, 'GET', '/v1/nodes')).body.data.items.some((n: any) => n.id === node_id), 'removed nodes are hidden');
  t.equal((await TestNode.connect(url, credential).catch((e: { status?: number }) => e) as { status?: number }).status, 401, 'credential revoked');
  const [row] = await deps.sql`SELECT removed_at FROM nodes WHERE id = ${node_id}`;
  t.ok(row?.removed_at, 'the row is kept for old results');
});

t.test('the OpenAPI document lists the node routes', async (t) => {
  const doc = (await call(app, 'GET', '/v1/openapi.json')).body;
  for (const p of ['/v1/nodes', '/v1/nodes/{id}', '/v1/nodes/{id}/disable', '/v1/nodes/{id}/enable', '/v1/enrollment-tokens', '/v1/enrollment-tokens/{id}', '/v1/geo/cities']) {
    t.ok(doc.paths?.[p], p);
  }
  t.ok(doc.paths?.['/v1/nodes/connect']?.get?.responses?.['101'], 'the node WebSocket upgrade is described too');
});
