import { mkdirSync } from 'node:fs';
import t from 'tap';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { check, DIST, ensureBuilt, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// The status page and incident pages in Chromium against a real control plane on real Postgres:
// the empty list, a password-protected page with a monitor and a group made through the form
// (read back through the API), its components reordered and saved, its public address; an
// incident reported on it with an affected component, an update, resolved, a postmortem
// published (each seen through the API); the incident list; the page deleted. axe-core on every
// page (the incident page also in the dark theme, the incident list also in Chinese), screenshots
// to .tap/console/.

t.test('console in Chromium: status pages and incidents', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const { app, url } = await testApp(t, { config: { console_dir: DIST } });
  const user = await registerUser(app);
  const api = async (method: string, path: string, body?: unknown) => (await call(app, method, path, { token: user.access_token, ...(body ? { body } : {}) })).body;
  const monitor = await api('POST', '/v1/monitors', { name: 'Checkout API', type: 'http', target: 'https://1.1.1.1/' });
  const group = await api('POST', '/v1/monitor-groups', { name: 'Edge' });
  t.ok(monitor.data?.id && group.data?.id, 'a monitor and a group to show');
  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, user.email, user.password);

  await page.getByRole('link', { name: 'Status pages', exact: true }).click();
  await page.getByText('No status pages yet.').waitFor({ timeout: 30_000 });
  await check(t, page, 'status-pages-empty');

  await page.getByRole('link', { name: 'New status page' }).click();
  await page.getByLabel('Slug').fill('acme');
  await page.getByLabel('Title').fill('Acme status');
  await page.getByLabel('Description').fill('How our services are doing');
  await page.getByLabel('Days of uptime history (1-365)').fill('30');
  await page.getByRole('button', { name: 'Add component' }).click();
  await page.getByLabel('Monitor or group').selectOption({ label: 'Checkout API' });
  await page.getByLabel('Display name (blank: its own name)').fill('Checkout');
  await page.getByLabel('Section').fill('Core');
  await page.getByRole('button', { name: 'Add component' }).click();
  await page.getByLabel('Monitor or group').nth(1).selectOption({ label: 'Edge' });
  await page.getByLabel('Visitors with the password').check();
  await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
  await check(t, page, 'status-page-new');
  await page.getByRole('button', { name: 'Create status page' }).click();
  await page.waitForURL(/\/status-pages\/sp_/, { timeout: 30_000 });
  await page.getByRole('heading', { name: 'Acme status' }).waitFor({ timeout: 30_000 });
  const made = (await api('GET', '/v1/status-pages')).data.items as Array<Record<string, any>>;
  t.match(made, [{
    slug: 'acme', title: 'Acme status', description: 'How our services are doing', is_public: false, password_protected: true, history_days: 30,
    components: [{ monitor_id: monitor.data.id, display_name: 'Checkout', section: 'Core' }, { group_id: group.data.id, display_name: 'Edge' }],
  }], 'the API has the page as the form made it');
  const sp = made[0]!;
  t.equal(await page.getByRole('link', { name: /Open the public page/ }).getAttribute('href'), '/status/acme', 'a link to the public page');
  const publicPage = await fetch(`${url}/status/acme`, { headers: { accept: 'text/html' } });
  t.equal(publicPage.status, 200, 'the public address answers (its password form)');
  await publicPage.arrayBuffer();

  // Reorder: the group first; the page keeps its password (blank field).
  await page.getByRole('button', { name: 'Move Edge up' }).click();
  await page.getByLabel('Title').fill('Acme service status');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Saved.').waitFor({ timeout: 30_000 });
  const saved = (await api('GET', `/v1/status-pages/${sp.id}`)).data;
  t.match(saved, { title: 'Acme service status', password_protected: true, components: [{ group_id: group.data.id }, { monitor_id: monitor.data.id }] }, 'reordered and renamed, password kept');
  t.equal(saved.components[1].id, sp.components[0].id, 'a component keeps its id across the save');
  await check(t, page, 'status-page-edit');

  // A refused slug: the API's message, nothing changed.
  await api('POST', '/v1/status-pages', { slug: 'taken', title: 'Other' });
  await page.getByLabel('Slug').fill('taken');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.locator('#sp-form-error').waitFor({ timeout: 30_000 });
  t.equal((await api('GET', `/v1/status-pages/${sp.id}`)).data.slug, 'acme', 'the refused slug was not saved');
  await page.getByLabel('Slug').fill('acme');

  // An incident on this page, from its "report" link.
  await page.getByRole('link', { name: 'Report an incident on this page' }).click();
  await page.getByText('No incidents.').waitFor({ timeout: 30_000 });
  await page.getByLabel('Checkout', { exact: true }).waitFor({ timeout: 30_000 });
  await check(t, page, 'incidents-empty');
  await page.getByLabel('Title').fill('Checkout errors');
  await page.getByLabel('Impact').selectOption('major');
  await page.getByLabel('First update (what visitors read)').fill('We are looking into failed payments.');
  await page.getByLabel('Checkout', { exact: true }).check();
  await page.getByRole('button', { name: 'Report incident' }).click();
  await page.waitForURL(/\/incidents\/inc_/, { timeout: 30_000 });
  await page.getByText('We are looking into failed payments.').waitFor({ timeout: 30_000 });
  const incidentId = page.url().split('/').pop()!;
  t.match((await api('GET', `/v1/incidents/${incidentId}`)).data, {
    title: 'Checkout errors', impact: 'major', status: 'investigating', status_page_ids: [sp.id], component_ids: [sp.components[0].id],
    updates: [{ status: 'investigating', message: 'We are looking into failed payments.' }],
  }, 'the API has the incident on the page, its component affected');

  // An update (the next status is preselected), then resolved.
  await page.getByLabel('Message').fill('A bad deploy; rolling back.');
  await page.getByRole('button', { name: 'Post update' }).click();
  await page.getByText('A bad deploy; rolling back.').nth(0).waitFor({ timeout: 30_000 });
  await page.locator('.timeline li').nth(1).waitFor({ timeout: 30_000 });
  t.equal((await api('GET', `/v1/incidents/${incidentId}`)).data.status, 'identified', 'the update moved it to identified');
  await page.getByLabel('New status').selectOption('resolved');
  await page.getByLabel('Message').fill('Payments work again.');
  await page.getByRole('button', { name: 'Resolve incident' }).click();
  await page.locator('.timeline li').nth(2).waitFor({ timeout: 30_000 });
  const resolved = (await api('GET', `/v1/incidents/${incidentId}`)).data;
  t.ok(resolved.status === 'resolved' && resolved.resolved_at, 'resolved, with its end time');

  // The postmortem: a draft, then published.
  await page.getByText('No postmortem yet.').waitFor({ timeout: 30_000 });
  await page.getByLabel('Postmortem (Markdown)').fill('## What happened\n\nA deploy broke the payment client.');
  await page.getByRole('button', { name: 'Save draft' }).click();
  await page.getByText(/^Draft, saved/).waitFor({ timeout: 30_000 });
  t.equal((await api('GET', `/v1/incidents/${incidentId}/postmortem`)).data.status, 'draft', 'saved as a draft');
  await page.getByRole('button', { name: 'Publish' }).click();
  await page.getByText(/^Published/).waitFor({ timeout: 30_000 });
  t.match((await api('GET', `/v1/incidents/${incidentId}/postmortem`)).data, { status: 'published', body_md: /A deploy broke/ }, 'published through the API');
  await check(t, page, 'incident');
  await page.getByLabel('Theme').selectOption('dark');
  await check(t, page, 'incident-dark');
  await page.getByLabel('Theme').selectOption('light');

  await page.getByRole('link', { name: 'Incidents', exact: true }).click();
  await page.getByRole('link', { name: 'Checkout errors' }).waitFor({ timeout: 30_000 });
  await page.getByLabel('Show').selectOption('open');
  await page.getByText('No incidents match this filter.').waitFor({ timeout: 30_000 });
  await page.getByLabel('Show').selectOption('resolved');
  await page.getByRole('link', { name: 'Checkout errors' }).waitFor({ timeout: 30_000 });
  await check(t, page, 'incidents');
  await page.getByLabel('Language').selectOption('cn');
  await page.getByRole('heading', { name: '事件', exact: true }).waitFor({ timeout: 30_000 });
  await page.getByRole('cell', { name: '已解决', exact: true }).waitFor({ timeout: 30_000 });
  await check(t, page, 'incidents-cn');
  await page.getByLabel('语言').selectOption('en');
  await page.getByRole('heading', { name: 'Incidents', exact: true }).waitFor({ timeout: 30_000 });

  // The list, then the page deleted.
  await page.getByRole('link', { name: 'Status pages', exact: true }).click();
  await page.getByRole('link', { name: 'Acme service status' }).click();
  await page.getByRole('button', { name: 'Delete status page' }).click();
  await page.waitForURL('**/status-pages', { timeout: 30_000 });
  await page.getByRole('link', { name: 'Other' }).waitFor({ timeout: 30_000 });
  await check(t, page, 'status-pages');
  t.same((await api('GET', '/v1/status-pages')).data.items.map((p: { slug: string }) => p.slug), ['taken'], 'deleted through the API');
  t.same(problems.filter((p) => !/status of (400|404|409)/.test(p)), [], 'no script error or CSP violation (but the refusals the test provoked)');
});
