import t from 'tap';
import { seedMonitor } from '../checks/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * /v1/status-pages and /v1/incidents through the app on a real database: every error code of both
 * (STATUS_PAGE_NOT_FOUND, _SLUG_TAKEN, _DOMAIN_INVALID, _DOMAIN_TAKEN, INCIDENT_NOT_FOUND,
 * POSTMORTEM_NOT_FOUND), validation that changes nothing, another owner's ids as 404, and the
 * status:read / status:write key scopes.
 */

const count = async (sql: any, table: string) => (await sql`SELECT count(*)::int AS n FROM ${sql(table)}`)[0].n as number;

t.test('status pages: CRUD, validation, addresses and ownership', async (t) => {
  const { app, sql } = await testApp(t);
  const [alice, bob] = [await registerUser(app), await registerUser(app)];
  const api = (await seedMonitor(sql, { user_id: alice.user_id, nodes: 0, state: 'up' })).monitor_id;
  const bobs = (await seedMonitor(sql, { user_id: bob.user_id, nodes: 0 })).monitor_id;
  const [group] = await sql`INSERT INTO monitor_groups (id, user_id, name) VALUES ('mg_01jd3k6w9z4q8r2t7v5x1y3b6c', ${alice.user_id}, 'Edge') RETURNING id`;

  const body = { slug: 'acme', title: 'Acme status', components: [{ monitor_id: api, display_name: 'API', section: 'Core' }, { group_id: group!.id }] };
  let r = await call(app, 'POST', '/v1/status-pages', { token: alice.access_token, body });
  t.equal(r.status, 201, JSON.stringify(r.body));
  const page = r.body.data;
  t.match(page, {
    id: /^sp_/, slug: 'acme', title: 'Acme status', description: '', custom_domain: null, theme: 'system', is_public: true, password_protected: false,
    history_days: 90, team_id: null, created_by: alice.user_id, page_url: /\/status\/acme$/,
    components: [{ id: /^spc_/, monitor_id: api, group_id: null, display_name: 'API', section: 'Core', position: 0 }, { group_id: group!.id, display_name: 'Edge', section: '', position: 1 }],
  });

  // Refusals: each with its code, nothing written.
  const pages = await count(sql, 'status_pages');
  for (const [what, bad, status, code] of [
    ['slug taken', { ...body, components: [] }, 409, 'STATUS_PAGE_SLUG_TAKEN'],
    ['bad slug', { ...body, slug: 'Acme!' }, 400, 'VALIDATION_FAILED'],
    ['no title', { slug: 'x1' }, 400, 'VALIDATION_FAILED'],
    ['domain is one label', { ...body, slug: 'x2', custom_domain: 'localhost' }, 400, 'STATUS_PAGE_DOMAIN_INVALID'],
    ['domain is an address', { ...body, slug: 'x3', custom_domain: '192.0.2.1' }, 400, 'STATUS_PAGE_DOMAIN_INVALID'],
    ['domain with a bad label', { ...body, slug: 'x4', custom_domain: 'status_.example.com' }, 400, 'STATUS_PAGE_DOMAIN_INVALID'],
    ['another owner\'s monitor', { ...body, slug: 'x5', components: [{ monitor_id: bobs }] }, 400, 'VALIDATION_FAILED'],
    ['both monitor and group', { ...body, slug: 'x6', components: [{ monitor_id: api, group_id: group!.id }] }, 400, 'VALIDATION_FAILED'],
    ['a monitor twice', { ...body, slug: 'x9', components: [{ monitor_id: api }, { monitor_id: api }] }, 400, 'VALIDATION_FAILED'],
    ['private without password', { ...body, slug: 'x7', is_public: false }, 400, 'VALIDATION_FAILED'],
    ['history too long', { ...body, slug: 'x8', history_days: 400 }, 400, 'VALIDATION_FAILED'],
  ] as const) {
    r = await call(app, 'POST', '/v1/status-pages', { token: alice.access_token, body: bad });
    t.equal(r.status, status, `${what}: ${status}`);
    t.equal(r.body.error?.code, code, what);
  }
  t.equal(await count(sql, 'status_pages'), pages, 'nothing written');
  t.same((await call(app, 'POST', '/v1/status-pages', { token: alice.access_token, body: { ...body, slug: 'x5', components: [{ monitor_id: bobs }] } })).body.error.details.fields,
    [{ path: 'components[0].monitor_id', message: 'no such monitor of the page\'s owner' }]);

  // Custom domains: normalised, unique.
  r = await call(app, 'PATCH', `/v1/status-pages/${page.id}`, { token: alice.access_token, body: { custom_domain: 'Status.Acme.example.' } });
  t.equal(r.status, 200);
  t.equal(r.body.data.custom_domain, 'status.acme.example', 'lower case, no trailing dot');
  r = await call(app, 'POST', '/v1/status-pages', { token: bob.access_token, body: { slug: 'bob', title: 'Bob', custom_domain: 'status.acme.example' } });
  t.equal(r.status, 409);
  t.equal(r.body.error.code, 'STATUS_PAGE_DOMAIN_TAKEN');
  r = await call(app, 'POST', '/v1/status-pages', { token: bob.access_token, body: { slug: 'bob', title: 'Bob' } });
  t.equal(r.status, 201);
  const bobPage = r.body.data.id as string;
  r = await call(app, 'PATCH', `/v1/status-pages/${bobPage}`, { token: bob.access_token, body: { slug: 'acme' } });
  t.equal(r.body.error.code, 'STATUS_PAGE_SLUG_TAKEN', 'a rename onto a taken slug');
  r = await call(app, 'PATCH', `/v1/status-pages/${bobPage}`, { token: bob.access_token, body: { custom_domain: 'bad domain' } });
  t.equal(r.body.error.code, 'STATUS_PAGE_DOMAIN_INVALID');
  r = await call(app, 'POST', `/v1/status-pages/${bobPage}/domain-check`, { token: bob.access_token });
  t.equal(r.status, 400, 'no custom domain to check');
  t.equal(r.body.error.code, 'VALIDATION_FAILED');

  // Another owner's page is 404, like an unknown one.
  for (const [method, path] of [['GET', `/v1/status-pages/${page.id}`], ['PATCH', `/v1/status-pages/${page.id}`], ['DELETE', `/v1/status-pages/${page.id}`], ['GET', '/v1/status-pages/sp_nope']] as const) {
    r = await call(app, method, path, { token: bob.access_token, body: method === 'PATCH' ? { title: 'x' } : undefined });
    t.equal(r.status, 404, `${method} ${path}`);
    t.equal(r.body.error.code, 'STATUS_PAGE_NOT_FOUND');
  }
  r = await call(app, 'GET', '/v1/status-pages', { token: bob.access_token });
  t.same(r.body.data.items.map((p: { id: string }) => p.id), [bobPage], 'the list shows the caller\'s pages only');

  // Components replaced: a component showing the same monitor keeps its id; password pages.
  const apiComponent = page.components[0].id as string;
  r = await call(app, 'PATCH', `/v1/status-pages/${page.id}`, { token: alice.access_token, body: { components: [{ monitor_id: api, display_name: 'Public API' }], is_public: false, password: 'correct horse' } });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.match(r.body.data, { is_public: false, password_protected: true, components: [{ id: apiComponent, display_name: 'Public API', section: '' }] });
  t.notOk('password' in r.body.data || 'password_hash' in r.body.data, 'the password is never returned');
  r = await call(app, 'PATCH', `/v1/status-pages/${page.id}`, { token: alice.access_token, body: { is_public: true } });
  t.match(r.body.data, { is_public: true, password_protected: false });

  r = await call(app, 'DELETE', `/v1/status-pages/${bobPage}`, { token: bob.access_token });
  t.equal(r.status, 200);
  r = await call(app, 'GET', `/v1/status-pages/${bobPage}`, { token: bob.access_token });
  t.equal(r.body.error.code, 'STATUS_PAGE_NOT_FOUND', 'deleted');
});

t.test('incidents: updates, postmortems, links and every error code', async (t) => {
  const { app, sql } = await testApp(t);
  const [alice, bob] = [await registerUser(app), await registerUser(app)];
  const api = (await seedMonitor(sql, { user_id: alice.user_id, nodes: 0 })).monitor_id;
  const page = (await call(app, 'POST', '/v1/status-pages', { token: alice.access_token, body: { slug: 'inc', title: 'Inc', components: [{ monitor_id: api }] } })).body.data;
  const bobPage = (await call(app, 'POST', '/v1/status-pages', { token: bob.access_token, body: { slug: 'bob', title: 'Bob' } })).body.data;
  const component = page.components[0].id as string;

  let r = await call(app, 'POST', '/v1/incidents', { token: alice.access_token, body: { title: 'Errors', status_page_ids: [bobPage.id] } });
  t.equal(r.status, 404);
  t.equal(r.body.error.code, 'STATUS_PAGE_NOT_FOUND', 'another owner\'s page');
  r = await call(app, 'POST', '/v1/incidents', { token: alice.access_token, body: { title: 'Errors', status_page_ids: [page.id], component_ids: ['spc_nope'] } });
  t.equal(r.status, 400);
  t.same(r.body.error.details.fields, [{ path: 'component_ids[0]', message: 'not a component of the incident\'s status pages' }]);
  r = await call(app, 'POST', '/v1/incidents', { token: alice.access_token, body: { title: 'Errors', impact: 'apocalyptic' } });
  t.equal(r.body.error.code, 'VALIDATION_FAILED');
  t.equal(await count(sql, 'incidents'), 0, 'nothing written');

  r = await call(app, 'POST', '/v1/incidents', { token: alice.access_token, body: { title: 'Errors', impact: 'major', message: 'Looking into it.', status_page_ids: [page.id], component_ids: [component] } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  const inc = r.body.data;
  t.match(inc, { id: /^inc_/, status: 'investigating', impact: 'major', status_page_ids: [page.id], component_ids: [component], resolved_at: null, alert_event_id: null, updates: [{ status: 'investigating', message: 'Looking into it.' }] });

  r = await call(app, 'POST', `/v1/incidents/${inc.id}/updates`, { token: alice.access_token, body: { status: 'resolved', message: 'Fixed.' } });
  t.equal(r.status, 201);
  t.match(r.body.data, { status: 'resolved', resolved_at: /Z$/, updates: [{ status: 'resolved', message: 'Fixed.' }, { status: 'investigating' }] });
  r = await call(app, 'POST', `/v1/incidents/${inc.id}/updates`, { token: alice.access_token, body: { status: 'fixed', message: '' } });
  t.equal(r.body.error.code, 'VALIDATION_FAILED');

  r = await call(app, 'GET', `/v1/incidents/${inc.id}/postmortem`, { token: alice.access_token });
  t.equal(r.status, 404);
  t.equal(r.body.error.code, 'POSTMORTEM_NOT_FOUND');
  r = await call(app, 'PUT', `/v1/incidents/${inc.id}/postmortem`, { token: alice.access_token, body: { body_md: '# What happened\n<script>x</script>' } });
  t.match(r.body.data, { status: 'draft', published_at: null });
  r = await call(app, 'PUT', `/v1/incidents/${inc.id}/postmortem`, { token: alice.access_token, body: { body_md: '# What happened', status: 'published' } });
  t.match(r.body.data, { status: 'published', published_at: /Z$/ });

  for (const [method, path, body] of [
    ['GET', `/v1/incidents/${inc.id}`], ['PATCH', `/v1/incidents/${inc.id}`, { title: 'x' }], ['DELETE', `/v1/incidents/${inc.id}`],
    ['POST', `/v1/incidents/${inc.id}/updates`, { status: 'monitoring', message: 'x' }], ['GET', `/v1/incidents/${inc.id}/postmortem`],
    ['PUT', `/v1/incidents/${inc.id}/postmortem`, { body_md: 'x' }], ['GET', '/v1/incidents/inc_nope'],
  ] as const) {
    r = await call(app, method, path, { token: bob.access_token, body });
    t.equal(r.status, 404, `${method} ${path} by another account`);
    t.equal(r.body.error.code, 'INCIDENT_NOT_FOUND');
  }
  r = await call(app, 'GET', '/v1/incidents?status=resolved', { token: alice.access_token });
  t.match(r.body.data, { total: 1, items: [{ id: inc.id }], page: 1, has_more: false });
  r = await call(app, 'GET', '/v1/incidents?status=open', { token: alice.access_token });
  t.equal(r.body.data.total, 0);

  // Deleting the page unlinks it from the incident.
  await call(app, 'DELETE', `/v1/status-pages/${page.id}`, { token: alice.access_token });
  r = await call(app, 'GET', `/v1/incidents/${inc.id}`, { token: alice.access_token });
  t.same(r.body.data.status_page_ids, []);
  r = await call(app, 'DELETE', `/v1/incidents/${inc.id}`, { token: alice.access_token });
  t.equal(r.status, 200);
  t.equal(await count(sql, 'postmortems'), 0, 'its postmortem went with it');
});

t.test('keys: status:read reads, status:write changes, other scopes are refused', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  const key = async (scopes: string[]) => (await call(app, 'POST', '/v1/account/api-keys', { token: u.access_token, body: { name: scopes.join(','), scopes } })).body.data.key as string;
  const [reader, writer, monitors] = [await key(['status:read']), await key(['status:write']), await key(['monitor:read', 'monitor:write'])];
  let r = await call(app, 'POST', '/v1/status-pages', { token: writer, body: { slug: 'k', title: 'K' } });
  t.equal(r.status, 201);
  r = await call(app, 'POST', '/v1/incidents', { token: writer, body: { title: 'I' } });
  t.equal(r.status, 201);
  for (const path of ['/v1/status-pages', '/v1/incidents']) {
    t.equal((await call(app, 'GET', path, { token: reader })).status, 200, `status:read lists ${path}`);
    r = await call(app, 'GET', path, { token: writer });
    t.equal(r.status, 403, `status:write does not read ${path}`);
    t.match(r.body.error, { code: 'FORBIDDEN', details: { required_scope: 'status:read' } });
    t.equal((await call(app, 'GET', path, { token: monitors })).status, 403, `monitor scopes do not read ${path}`);
  }
  r = await call(app, 'POST', '/v1/status-pages', { token: reader, body: { slug: 'k2', title: 'K' } });
  t.match(r.body.error, { code: 'FORBIDDEN', details: { required_scope: 'status:write' } });
  r = await call(app, 'POST', '/v1/incidents', { token: monitors, body: { title: 'I' } });
  t.equal(r.status, 403);
});

t.test('an address looked up before its page exists (a remembered miss) shows the page once it is made or renamed there', async (t) => {
  const { app } = await testApp(t);
  const alice = await registerUser(app);
  t.equal((await call(app, 'GET', '/v1/public/status-pages/later')).status, 404);
  t.equal((await call(app, 'GET', '/v1/public/status-pages/renamed')).status, 404);
  const made = await call(app, 'POST', '/v1/status-pages', { token: alice.access_token, body: { slug: 'later', title: 'Later' } });
  t.equal(made.status, 201);
  t.equal((await call(app, 'GET', '/v1/public/status-pages/later')).status, 200, 'made: shown at once');
  t.equal((await call(app, 'PATCH', `/v1/status-pages/${made.body.data.id}`, { token: alice.access_token, body: { slug: 'renamed' } })).status, 200);
  t.equal((await call(app, 'GET', '/v1/public/status-pages/renamed')).status, 200, 'renamed: shown at once');
  t.equal((await call(app, 'GET', '/v1/public/status-pages/later')).status, 404, 'the old address is gone');
});
