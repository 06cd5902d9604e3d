import { mkdirSync } from 'node:fs';
import t from 'tap';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { check, DIST, ensureBuilt, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// The noise rules page in Chromium against a real control plane on real Postgres: the empty
// state, a flap rule for one monitor and a minimum-outage rule for a tag made through the form and
// read back through the API, one disabled, one deleted; a refused rule's message. axe-core on the page.

t.test('console in Chromium: noise rules', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const { app, url } = await testApp(t, { config: { console_dir: DIST } });
  const user = await registerUser(app);
  const monitor = await call(app, 'POST', '/v1/monitors', { token: user.access_token, body: { name: 'Edge router', type: 'http', target: 'https://1.1.1.1/' } });
  t.equal(monitor.status, 201, 'monitor created');
  const rules = async () => (await call(app, 'GET', '/v1/alert-noise-rules', { token: user.access_token })).body.data.items as Array<Record<string, any>>;
  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, user.email, user.password);

  await page.getByRole('link', { name: 'Alerting', exact: true }).click();
  await page.getByRole('link', { name: 'Noise rules', exact: true }).click();
  await page.getByText('No noise rules.').waitFor({ timeout: 30_000 });
  await check(t, page, 'alert-noise-empty');

  await page.getByLabel('Rule name').fill('Flappy router');
  await page.getByLabel('Monitor', { exact: true }).selectOption({ label: 'Edge router' });
  await page.getByLabel('State changes').fill('3');
  await page.getByLabel('Within (s)').fill('900');
  await page.getByRole('button', { name: 'Create rule' }).click();
  await page.getByText('3 changes within 900 s').waitFor({ timeout: 30_000 });

  await page.getByLabel('Rule name').fill('Short blips');
  await page.getByLabel('Kind').selectOption('min_duration');
  await page.getByLabel('Or monitors with these tags').fill('edge');
  await page.getByLabel('Page after down for (s)').fill('180');
  await page.getByRole('button', { name: 'Create rule' }).click();
  await page.getByText('down for 180 s').waitFor({ timeout: 30_000 });
  t.match(await rules(), [
    { name: 'Flappy router', kind: 'flap', flap_changes: 3, flap_window_s: 900, monitor_ids: [monitor.body.data.id], enabled: true },
    { name: 'Short blips', kind: 'min_duration', min_down_s: 180, tags: ['edge'] },
  ], 'the API has both rules as the form made them');
  await check(t, page, 'alert-noise');

  // A value out of range: the API's message, nothing made.
  await page.getByLabel('Rule name').fill('Too fast');
  await page.getByLabel('Kind').selectOption('min_duration');
  await page.getByLabel('Page after down for (s)').evaluate((el: { removeAttribute(n: string): void }) => el.removeAttribute('max'));
  await page.getByLabel('Page after down for (s)').fill('999999');
  await page.getByRole('button', { name: 'Create rule' }).click();
  await page.locator('#noise-form-error').waitFor({ timeout: 30_000 });
  t.equal((await rules()).length, 2, 'the refused rule was not made');

  await page.getByRole('button', { name: 'Disable rule Flappy router' }).click();
  await page.getByRole('button', { name: 'Enable rule Flappy router' }).waitFor({ timeout: 30_000 });
  t.equal((await rules())[0]!.enabled, false, 'disabled through the API');
  await page.getByRole('button', { name: 'Delete rule Short blips' }).click();
  await page.getByText('down for 180 s').waitFor({ state: 'detached', timeout: 30_000 });
  t.equal((await rules()).length, 1, 'deleted through the API');
  t.same(problems.filter((p) => !/status of 400/.test(p)), [], 'no script error or CSP violation (but the refusal the test provoked)');
});
