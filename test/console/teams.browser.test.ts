import { mkdirSync } from 'node:fs';
import t from 'tap';
import { startSmtpServer, type ReceivedMail } from '../../control-plane/src/email/test-support.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { check, DIST, ensureBuilt, loginInBrowser, mailConfig, openBrowser, SHOTS, skip } from './browser-kit.js';

// The teams and on-call pages and the team switcher in Chromium against a real control plane on
// real Postgres, with its delivery worker and a real SMTP server on loopback: an owner creates a
// team and invites a second account; the invitation e-mail's link opens the console's accept page
// for the invitee, who joins; the owner sees the member and makes it admin; a schedule with a
// daily rotation shows who is on call (the API's own answer) and the coming handoffs; the switcher
// chosen on the team (kept across a reload) makes a new monitor the team's, as the API then lists
// it. axe-core on every new page; screenshots to .tap/console/.

t.setTimeout(300_000);

t.test('console in Chromium: teams, invitations, on-call schedules, the team switcher', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const smtp = await startSmtpServer(t);
  const { app, sql, url } = await testApp(t, { config: { console_dir: DIST, ...mailConfig(smtp.smtp_url) }, delivery: true });
  const [owner, invitee] = await Promise.all([registerUser(app), registerUser(app)]);
  // Accepting an invitation takes a verified address (docs/api/teams.md "Invitations"); the verification link has its own tests.
  await sql`UPDATE users SET email_verified = true WHERE id IN ${sql([owner!.user_id, invitee!.user_id])}`;
  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, owner!.email, owner!.password);

  // Teams: none yet; create one, which opens its page.
  await page.getByRole('link', { name: 'Teams', exact: true }).click();
  await page.getByText('You are in no team yet.').waitFor({ timeout: 30_000 });
  await check(t, page, 'teams-empty');
  await page.getByLabel('Team name').fill('Night shift');
  await page.getByRole('button', { name: 'Create team' }).click();
  await page.getByRole('heading', { name: 'Night shift' }).waitFor({ timeout: 30_000 });
  const team_id = /\/teams\/(team_[0-9a-z]+)$/.exec(page.url())?.[1];
  t.ok(team_id, 'the new team\'s page is open');

  // Invite the second account as a member: the e-mail goes out over SMTP.
  await page.getByLabel('E-mail address').fill(invitee!.email);
  await page.getByLabel('Role', { exact: true }).selectOption('member');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await page.getByText(`Invitation e-mailed to ${invitee!.email}.`).waitFor({ timeout: 30_000 });
  await page.getByRole('cell', { name: 'Pending', exact: true }).waitFor({ timeout: 30_000 });
  await check(t, page, 'team-owner');
  let mail: ReceivedMail | undefined;
  for (let n = 1; !mail; n++) mail = (await smtp.waitFor(n, 60_000)).find((m) => m.parsed.subject?.includes('Night shift'));
  const link = /https?:\/\/\S+\/teams\/accept#token=tit_[0-9A-Za-z_-]+/.exec(String(mail.parsed.text))?.[0];
  t.ok(link, 'the invitation e-mail links to the console\'s accept page');

  // The invitee opens the link signed out: the page sends it to log in and back, the token kept
  // (in the fragment); accepting joins the team.
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL('**/login', { timeout: 30_000 });
  await page.goto(`${url}${new URL(link!).pathname}${new URL(link!).hash}`);
  await page.getByRole('link', { name: 'Log in to accept' }).click();
  await page.getByLabel('Email or username').fill(invitee!.email);
  await page.getByLabel('Password').fill(invitee!.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Accept a team invitation' }).waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Accept invitation' }).waitFor({ timeout: 30_000 });
  t.match(await page.getByLabel('Invitation token').inputValue(), /^tit_/, 'the token comes from the link');
  await check(t, page, 'team-accept');
  await page.getByRole('button', { name: 'Accept invitation' }).click();
  await page.getByText('You joined the team as Member:').waitFor({ timeout: 30_000 });
  // A member sees the team, but the controls of admins and owners are disabled.
  await page.getByRole('link', { name: 'Night shift' }).click();
  await page.getByText('Only admins and owners invite people and see the invitations.').waitFor({ timeout: 30_000 });
  t.ok(await page.getByRole('button', { name: 'Delete team' }).isDisabled(), 'a member cannot delete the team');
  t.ok(await page.getByRole('button', { name: `Remove ${owner!.email}` }).isDisabled(), 'nor remove the owner');
  await check(t, page, 'team-member');

  // The owner sees the new member and makes it admin.
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL('**/login', { timeout: 30_000 });
  await loginInBrowser(page, url, owner!.email, owner!.password);
  await page.goto(`${url}/teams/${team_id}`);
  const row = page.locator(`tr[data-member="${invitee!.user_id}"]`);
  await row.getByRole('cell', { name: invitee!.email, exact: true }).waitFor({ timeout: 30_000 });
  await row.getByLabel(`Role of ${invitee!.email}`, { exact: true }).selectOption('admin');
  await row.getByRole('button', { name: `Change role of ${invitee!.email}` }).click();
  // Saved and read back: the row shows the new role, and its change button waits for another choice.
  await row.locator('button:disabled', { hasText: 'Change role' }).waitFor({ timeout: 30_000 });
  t.equal(await row.getByLabel(`Role of ${invitee!.email}`, { exact: true }).inputValue(), 'admin', 'the page shows the new role');
  const members = await call(app, 'GET', `/v1/teams/${team_id}/members`, { token: owner!.access_token });
  t.match(members.body.data, [{ user_id: owner!.user_id, role: 'owner' }, { user_id: invitee!.user_id, role: 'admin' }], 'the API has the new role');

  // On-call: no schedule yet; create one for the team, then a daily rotation of both, started two days ago.
  await page.getByRole('link', { name: 'On-call', exact: true }).click();
  await page.getByText('No on-call schedules.').waitFor({ timeout: 30_000 });
  await check(t, page, 'oncall-empty');
  await page.getByLabel('Schedule name').fill('Primary');
  await page.getByLabel('Time zone').fill('UTC');
  await page.getByRole('button', { name: 'Create schedule' }).click();
  await page.getByRole('heading', { name: 'Primary' }).waitFor({ timeout: 30_000 });
  const schedule_id = /\/oncall\/(ocs_[0-9a-z]+)$/.exec(page.url())?.[1];
  await page.getByText('No rotations: nobody is on call until one is added.').waitFor({ timeout: 30_000 });
  await page.getByTestId('oncall-now').getByText('Nobody').waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Add rotation' }).click();
  const adder = page.getByLabel('Add to Participants');
  await adder.selectOption({ label: owner!.email });
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await adder.selectOption({ label: invitee!.email });
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  // Handoffs at a UTC hour about 12 hours away, so the page and the API's lookup below see the same shift.
  const handoff = new Date(Date.now() + 12 * 3_600_000);
  await page.getByLabel('First shift on').fill(new Date(handoff.getTime() - 2 * 86_400_000).toISOString().slice(0, 10));
  await page.getByLabel('Handoff time').fill(`${String(handoff.getUTCHours()).padStart(2, '0')}:00`);
  await page.getByLabel('Shift length').fill('1');
  await page.getByLabel('Unit', { exact: true }).selectOption('days');
  await page.getByRole('button', { name: 'Save rotation' }).click();
  await page.getByRole('cell', { name: `${owner!.email} → ${invitee!.email}` }).waitFor({ timeout: 30_000 });
  // Who is on call: the page says what the API's lookup says, then the coming handoffs.
  const now = await call(app, 'GET', `/v1/oncall/schedules/${schedule_id}/on-call`, { token: owner!.access_token });
  const on_call = now.body.data.user_id === owner!.user_id ? owner! : invitee!;
  t.equal(now.body.data.source, 'rotation', 'the API says a rotation decides');
  await page.getByTestId('oncall-now').getByText(on_call.email).waitFor({ timeout: 30_000 });
  t.ok(await page.locator('table').filter({ hasText: 'Rotation' }).locator('tbody tr').count() >= 13, 'about 14 daily handoffs ahead are listed');
  await check(t, page, 'oncall-schedule');
  await page.getByRole('link', { name: 'All schedules' }).click();
  await page.getByRole('link', { name: 'Primary' }).waitFor({ timeout: 30_000 });
  await check(t, page, 'oncall');
  await page.getByRole('link', { name: 'How you are paged' }).click();
  await page.getByText('No channels chosen: pages go to your account e-mail address.').waitFor({ timeout: 30_000 });
  await check(t, page, 'oncall-contacts');

  // The switcher: choose the team; it stays across a reload and is in the list's URL; the list shows
  // the team's monitors only (none yet: not the owner's personal one).
  t.equal((await call(app, 'POST', '/v1/monitors', { token: owner!.access_token, body: { name: 'Own site', type: 'http', target: 'https://1.0.0.1/' } })).status, 201, 'a personal monitor');
  await page.getByLabel('Workspace').selectOption({ label: 'Night shift' });
  await page.goto(`${url}/monitors`);
  await page.waitForURL(`**/monitors?team_id=${team_id}`, { timeout: 30_000 });
  await page.getByLabel('Workspace').locator('option', { hasText: 'Night shift' }).waitFor({ state: 'attached', timeout: 30_000 });
  t.equal(await page.getByLabel('Workspace').inputValue(), team_id, 'the choice is kept across a reload');
  await page.getByText('No monitors yet').first().waitFor({ timeout: 30_000 });
  await page.getByRole('link', { name: 'New monitor' }).first().click();
  await page.getByLabel('Name').fill('Team site');
  await page.getByLabel(/^Target/).fill('https://1.1.1.1/');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await page.waitForURL(/\/monitors\/m_/, { timeout: 30_000 });
  const listed = await call(app, 'GET', `/v1/monitors?team_id=${team_id}`, { token: owner!.access_token });
  t.match(listed.body.data.items, [{ name: 'Team site', team_id }], 'the API lists the new monitor under the team');
  await page.getByRole('link', { name: 'Monitors', exact: true }).click();
  await page.getByRole('link', { name: 'Team site' }).waitFor({ timeout: 30_000 });
  t.match(page.url(), new RegExp(`team_id=${team_id}`), 'the list\'s URL names the team');
  // Back to personal: the URL has no team, and the list shows everything the owner can read (the API has no personal-only filter).
  await page.getByLabel('Workspace').selectOption({ label: 'Personal' });
  await page.waitForURL((u) => !u.search.includes('team_id'), { timeout: 30_000 });
  await page.getByRole('link', { name: 'Own site' }).waitFor({ timeout: 30_000 });
  await page.getByRole('link', { name: 'Team site' }).waitFor({ timeout: 30_000 });

  t.same(problems, [], 'no script errors');
});
