import t from 'tap';
import { seedMonitor } from '../checks/test-support.js';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';

/*
 * The owner's view of a status page's subscribers (docs/api/status-pages.md "Subscribers"): the
 * list (newest first, paged, filtered by state, never a webhook's secret), removal, and nothing
 * of it for anyone else (404 as for the page itself).
 */

t.test('the owner lists and removes a page\'s subscribers; nobody else sees them', async (t) => {
  const { app, sql } = await testApp(t, { config: { delivery_allow_cidrs: ['127.0.0.0/8'] } });
  const alice = await registerUser(app);
  const bob = await registerUser(app);
  const monitor = (await seedMonitor(sql, { user_id: alice.user_id, nodes: 0, state: 'up' })).monitor_id;
  const body = (slug: string) => ({ slug, title: slug, components: [{ monitor_id: monitor, display_name: 'API' }] });
  const page = (await call(app, 'POST', '/v1/status-pages', { token: alice.access_token, body: body('owned') })).body.data;
  const other = (await call(app, 'POST', '/v1/status-pages', { token: alice.access_token, body: body('other') })).body.data;
  const subscribe = async (slug: string, b: object) => {
    const r = await call(app, 'POST', `/v1/public/status-pages/${slug}/subscribers`, { body: b });
    t.equal(r.status, 202, JSON.stringify(r.body));
    return r.body.data;
  };
  await subscribe('owned', { email: 'Ops@Example.test' });
  const hook = await subscribe('owned', { webhook_url: 'http://127.0.0.1:9/status' });
  await subscribe('other', { email: 'elsewhere@example.test' });

  const list = (token: string, query = '', id = page.id) => call(app, 'GET', `/v1/status-pages/${id}/subscribers${query}`, { token });
  let r = await list(alice.access_token);
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.match(r.body.data, { total: 2, page: 1, page_size: 20, has_more: false });
  t.same(r.body.data.items.map((s: { kind: string; address: string; state: string }) => [s.kind, s.address, s.state]),
    [['webhook', 'http://127.0.0.1:9/status', 'confirmed'], ['email', 'ops@example.test', 'pending']], 'newest first; the address as stored');
  t.notOk(JSON.stringify(r.body).includes(hook.secret), 'a webhook\'s secret is never shown again');
  t.notOk('secret' in r.body.data.items[0], 'no secret field at all');
  t.match(r.body.data.items[0], { id: hook.id, created_at: String, confirmed_at: String });
  t.equal(r.body.data.items[1].confirmed_at, null, 'a pending address was never confirmed');

  r = await list(alice.access_token, '?state=pending');
  t.same(r.body.data.items.map((s: { address: string }) => s.address), ['ops@example.test'], 'filtered by state');
  r = await list(alice.access_token, '?page_size=1&page=2');
  t.match(r.body.data, { total: 2, page: 2, page_size: 1, has_more: false });
  t.equal(r.body.data.items.length, 1);
  r = await list(alice.access_token, '?page=5');
  t.match(r.body.data, { items: [], total: 2, has_more: false }, 'past the end: empty, with the total');
  r = await list(alice.access_token, '?state=gone');
  t.equal(r.body.error.code, 'VALIDATION_FAILED', 'an unknown state');
  r = await list(alice.access_token, '?page_size=500');
  t.equal(r.body.error.code, 'VALIDATION_FAILED', 'page_size above 200');

  // Anyone else: 404 as for the page itself; a key without status:read: 403.
  r = await list(bob.access_token);
  t.equal(r.status, 404);
  t.equal(r.body.error.code, 'STATUS_PAGE_NOT_FOUND');
  t.equal((await call(app, 'GET', `/v1/status-pages/${page.id}/subscribers`)).status, 401, 'anonymous');
  const narrow = await createApiKey(app, alice.access_token, ['monitor:read']);
  t.equal((await list(narrow.key)).status, 403, 'a key without status:read');
  r = await call(app, 'DELETE', `/v1/status-pages/${page.id}/subscribers/${hook.id}`, { token: bob.access_token });
  t.equal(r.body.error.code, 'STATUS_PAGE_NOT_FOUND', 'another account cannot remove one either');

  // Removal: the row goes; another page's subscriber id is not this page's.
  const otherSub = (await list(alice.access_token, '', other.id)).body.data.items[0];
  r = await call(app, 'DELETE', `/v1/status-pages/${page.id}/subscribers/${otherSub.id}`, { token: alice.access_token });
  t.equal(r.status, 404);
  t.equal(r.body.error.code, 'NOT_FOUND', 'a subscriber of another page');
  t.equal((await list(alice.access_token, '', other.id)).body.data.total, 1, 'and it stays');
  r = await call(app, 'DELETE', `/v1/status-pages/${page.id}/subscribers/${hook.id}`, { token: alice.access_token });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.equal(r.body.data, null);
  r = await call(app, 'DELETE', `/v1/status-pages/${page.id}/subscribers/${hook.id}`, { token: alice.access_token });
  t.equal(r.body.error.code, 'NOT_FOUND', 'removed once');
  t.equal((await list(alice.access_token)).body.data.total, 1);

  // A removed address may subscribe again, starting over with the opt-in.
  const email = (await list(alice.access_token)).body.data.items[0];
  t.equal((await call(app, 'DELETE', `/v1/status-pages/${page.id}/subscribers/${email.id}`, { token: alice.access_token })).status, 200);
  await subscribe('owned', { email: 'ops@example.test' });
  r = await list(alice.access_token);
  t.match(r.body.data.items, [{ kind: 'email', address: 'ops@example.test', state: 'pending' }]);
  t.not(r.body.data.items[0].id, email.id, 'a new subscription');
});
