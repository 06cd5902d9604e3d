import { mkdirSync } from 'node:fs';
import t from 'tap';
import { call } from '../../control-plane/src/test-support/app.js';
import { check, ensureBuilt, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';
import { switchUser, threeTeams } from './team-kit.js';

// Moving a monitor (and an alert channel, beside its edit form) into and out of teams from its page, in Chromium against a real control plane on
// real Postgres. Its creator is owner of one team, member of another and viewer of a third (joined
// through the API's invitations): from personal into a team, back out to personal, into the other
// team; there another account (that team's owner, not the creator) may move it only to a team of
// its own (no personal), and moves it to the team where the creator is a viewer, whose page then
// shows the control disabled with the reason. Each move read back through the API; axe on the
// page, also dark and in Chinese.

t.setTimeout(300_000);

t.test('console in Chromium: moving a monitor into and out of a team', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const { app, url, ada, bob, a, ops, lab, field } = await threeTeams(t);
  const channel = await a('POST', '/v1/alert-channels', { name: 'Ada mail', type: 'email', config: { to: [ada.email] } });
  const monitor = await a('POST', '/v1/monitors', { name: 'shop', type: 'http', target: 'http://127.0.0.1:9/', interval_s: 300 });
  const teamOf = async () => (await a('GET', `/v1/monitors/${monitor.id}`)).team_id;
  const options = async () => page.getByLabel('Move to').locator('option').allTextContents();

  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, ada.email, ada.password);
  await page.goto(`${url}/monitors/${monitor.id}`);
  await page.getByTestId('owner').getByText('Owned by: Personal (yours).').waitFor({ timeout: 30_000 });
  t.same(await options(), ['the team Ops', 'the team Lab'], 'the teams where the creator is member or above, not where it is a viewer');
  await check(t, page, 'monitor-owner-personal');

  await page.getByLabel('Move to').selectOption({ label: 'the team Ops' });
  await page.getByRole('button', { name: 'Move', exact: true }).click();
  await page.getByText('Moved: now owned by the team Ops.').waitFor({ timeout: 30_000 });
  t.equal(await teamOf(), ops.id, 'moved into Ops');
  await page.getByTestId('owner').getByText('Owned by: the team Ops.').waitFor({ timeout: 30_000 });
  t.same(await options(), ['Personal (its creator’s)', 'the team Lab'], 'now out to personal, or to the other team');

  await page.getByLabel('Move to').selectOption({ label: 'Personal (its creator’s)' });
  await page.getByRole('button', { name: 'Move', exact: true }).click();
  await page.getByTestId('owner').getByText('Owned by: Personal (yours).').waitFor({ timeout: 30_000 });
  t.equal(await teamOf(), null, 'out of the team, the creator\'s again');

  await page.getByLabel('Move to').selectOption({ label: 'the team Lab' });
  await page.getByRole('button', { name: 'Move', exact: true }).click();
  await page.getByTestId('owner').getByText('Owned by: the team Lab.').waitFor({ timeout: 30_000 });
  t.equal(await teamOf(), lab.id, 'moved into Lab');
  await page.getByLabel('Theme').selectOption('dark');
  await check(t, page, 'monitor-owner-team-dark');
  await page.getByLabel('Theme').selectOption('system');

  // An alert channel moved the same way, beside its edit form.
  await page.goto(`${url}/alerts/channels`);
  await page.getByRole('button', { name: 'Edit channel Ada mail' }).click();
  await page.getByTestId('owner').getByText('Owned by: Personal (yours).').waitFor({ timeout: 30_000 });
  await page.getByLabel('Move to').selectOption({ label: 'the team Ops' });
  await page.getByRole('button', { name: 'Move', exact: true }).click();
  await page.getByTestId('owner').getByText('Owned by: the team Ops.').waitFor({ timeout: 30_000 });
  t.equal((await a('GET', `/v1/alert-channels/${channel.id}`)).team_id, ops.id, 'the channel moved into Ops');
  await check(t, page, 'channel-owner');

  // Lab's owner, not the creator: no personal; moves it to Field, where the creator is a viewer.
  await switchUser(page, url, bob);
  await page.goto(`${url}/monitors/${monitor.id}`);
  await page.getByText('Only its creator may move it out of the team into personal resources.').waitFor({ timeout: 30_000 });
  t.same(await options(), ['the team Field'], 'only its own other team');
  await page.getByRole('button', { name: 'Move', exact: true }).click();
  await page.getByTestId('owner').getByText('Owned by: the team Field.').waitFor({ timeout: 30_000 });
  t.equal(await teamOf(), field.id, 'moved into Field by the team\'s owner');

  // The creator, a viewer in Field: the control is disabled, with the reason.
  await switchUser(page, url, ada);
  await page.goto(`${url}/monitors/${monitor.id}`);
  await page.getByText('Your role in Field (Viewer) cannot move it: it needs member or above.').waitFor({ timeout: 30_000 });
  t.ok(await page.getByRole('button', { name: 'Move', exact: true }).isDisabled(), 'no move for a viewer');
  t.ok(await page.getByLabel('Move to').isDisabled());
  t.equal((await call(app, 'PATCH', `/v1/monitors/${monitor.id}`, { token: ada.access_token, body: { team_id: ops.id } })).status, 403, 'as the API says');
  await page.getByLabel('Language').selectOption('cn');
  await page.getByText('所有者：团队 Field。').waitFor({ timeout: 30_000 });
  await check(t, page, 'monitor-owner-viewer-cn');
  await page.getByLabel('语言').selectOption('en');
  t.same(problems, [], 'no script error or CSP violation');
});
