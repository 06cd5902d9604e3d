import { mkdirSync } from 'node:fs';
import t from 'tap';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { check, DIST, ensureBuilt, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// The signing keys page in Chromium against a real control plane on real Postgres: signed out, the
// empty list (the keys are public); an administrator's ceremonies from the page (the first key made
// with witnesses, evidence and notes, a rotation, an evidence URL the API refuses shown with the field it names
// with nothing changed, an emergency revocation of the rotated key), each read back through the
// API; the public keys shown are the API's; a plain account sees the keys and no administrators'
// part. axe-core on every page, also dark and in Chinese.

t.setTimeout(300_000);

t.test('console in Chromium: signing keys', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const { app, url } = await testApp(t, { config: { console_dir: DIST } });
  const admin = await registerUser(app, 'root@example.test');
  const user = await registerUser(app, 'reader@example.test');
  const get = async (path: string, token = admin.access_token) => {
    const r = await call(app, 'GET', path, { token });
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data;
  };

  const { page, problems } = await openBrowser(t);
  await page.goto(`${url}/signing-keys`);
  await page.getByRole('heading', { name: 'Signing keys' }).waitFor({ timeout: 30_000 });
  await page.getByText('No signing key yet', { exact: false }).waitFor({ timeout: 30_000 });
  t.match(page.url(), /\/signing-keys$/, 'open signed out: not sent to the login page');
  t.equal(await page.getByRole('button', { name: 'Carry out' }).count(), 0, 'no ceremony form signed out');
  await check(t, page, 'signing-keys-empty');

  // The administrator: the first key, with witnesses, evidence and notes.
  await loginInBrowser(page, url, admin.email, admin.password);
  await page.getByRole('link', { name: 'Signing keys', exact: true }).click();
  await page.getByRole('heading', { name: 'Key ceremony' }).waitFor({ timeout: 30_000 });
  await page.getByText('No ceremony yet.').waitFor({ timeout: 30_000 });
  await page.getByLabel('Witnesses').fill('Jane Roe, security officer\nJohn Doe');
  await page.getByLabel('Evidence URL').fill('https://tickets.example.test/42');
  await page.getByLabel('Notes').fill('first key of the test deployment');
  await page.getByRole('button', { name: 'Carry out' }).click();
  await page.getByTestId('ceremony-done').getByText('Version 1 is now the active key.').waitFor({ timeout: 30_000 });
  const [first] = await get('/v1/attest/keys');
  t.match(first, { key_version: 1, status: 'active', algorithm: 'Ed25519' }, 'the first key, made from the page');
  const [made] = (await get('/v1/attest/ceremonies')).ceremonies;
  t.match(made, {
    action: 'root_gen', key_id: first.key_id, evidence_url: 'https://tickets.example.test/42', notes: 'first key of the test deployment',
    actors: [{ identity: 'root@example.test', role: 'administrator' }, { identity: 'Jane Roe', role: 'security officer' }, { identity: 'John Doe', role: 'witness' }],
  }, 'the ceremony names the administrator and the witnesses typed');
  t.equal(await page.getByLabel('Witnesses').inputValue(), '', 'the form is emptied once done');

  // A rotation with nothing filled in: version 2 active, version 1 rotated.
  await page.getByRole('button', { name: 'Carry out' }).click();
  await page.getByTestId('ceremony-done').getByText('Version 2 is now the active key.').waitFor({ timeout: 30_000 });
  const rotated = await get('/v1/attest/keys');
  t.same(rotated.map((k: { key_version: number; status: string }) => [k.key_version, k.status]), [[2, 'active'], [1, 'rotated']], 'rotated through the page');
  await page.getByTestId('signing-keys').locator('tbody tr').nth(1).getByText('rotated', { exact: true }).waitFor({ timeout: 30_000 });

  // An evidence URL the API refuses (not http or https): the field it names shown, nothing changed.
  await page.getByLabel('Evidence URL').fill('ftp://tickets.example.test/42');
  await page.getByRole('button', { name: 'Carry out' }).click();
  await page.locator('#ceremony-error').getByText('evidence_url', { exact: true }).waitFor({ timeout: 30_000 });
  t.equal((await get('/v1/attest/keys')).length, 2, 'no key made');
  t.equal((await get('/v1/attest/ceremonies')).total, 2, 'no ceremony logged');

  // An emergency revocation of the rotated key, confirmed (the test accepts the dialog).
  await page.getByLabel('Evidence URL').fill('');
  await page.getByLabel('What to do').selectOption(first.key_id);
  await page.getByLabel('Notes').fill('laptop lost');
  await page.getByRole('button', { name: 'Carry out' }).click();
  await page.getByTestId('ceremony-done').getByText('Version 1 is revoked.').waitFor({ timeout: 30_000 });
  const after = await get('/v1/attest/keys');
  t.same(after.map((k: { key_version: number; status: string }) => [k.key_version, k.status]), [[2, 'active'], [1, 'revoked']], 'revoked; the active key stays');
  t.match((await get('/v1/attest/ceremonies')).ceremonies[0], { action: 'emergency_revoke', key_id: first.key_id, notes: 'laptop lost' });
  await page.getByTestId('ceremonies').getByText('Emergency revocation').waitFor({ timeout: 30_000 });
  t.equal(await page.getByLabel('What to do').locator('option').count(), 2, 'only the unrevoked key can be revoked, besides rotating');
  await page.getByTestId('signing-keys').locator('tbody tr').first().getByText('Public key (PEM)').click();
  t.equal((await page.getByTestId('pem-2').textContent())?.trim(), after[0].public_key_pem.trim(), 'the public key is the API\'s');
  await check(t, page, 'signing-keys-admin');
  await page.getByLabel('Theme').selectOption('dark');
  await check(t, page, 'signing-keys-admin-dark');
  await page.getByLabel('Theme').selectOption('system');
  await page.getByLabel('Language').selectOption('cn');
  await page.getByRole('heading', { name: '密钥仪式' }).waitFor({ timeout: 30_000 });
  await page.getByText('紧急吊销', { exact: true }).waitFor({ timeout: 30_000 });
  await check(t, page, 'signing-keys-admin-cn');
  await page.getByLabel('语言').selectOption('en');

  // A plain account: the keys, and no administrators' part (the API says it is none; the ceremony log is 403 to it).
  t.equal((await call(app, 'GET', '/v1/attest/ceremonies', { token: user.access_token })).status, 403);
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL('**/login', { timeout: 30_000 });
  await loginInBrowser(page, url, user.email, user.password);
  await page.goto(`${url}/signing-keys`);
  await page.getByText('Rotation and revocation are for this deployment’s administrators.').waitFor({ timeout: 30_000 });
  // The notice renders before the key list has loaded: wait for the rows, then count them.
  const rows = page.getByTestId('signing-keys').locator('tbody tr');
  await rows.nth(1).waitFor({ timeout: 30_000 });
  t.equal(await rows.count(), 2, 'both keys listed');
  t.equal(await page.getByRole('button', { name: 'Carry out' }).count(), 0, 'no ceremony form');
  await check(t, page, 'signing-keys-reader');
  t.same(problems, ['Failed to load resource: the server responded with a status of 400 (Bad Request)'], 'no script error or CSP violation (but the refusal the test provoked)');
});
