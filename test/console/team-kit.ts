import type { Test } from 'tap';
import type { Page } from 'playwright-core';
import { callerAs, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { DIST, LOOPBACK, loginInBrowser } from './browser-kit.js';

// What the team-move browser tests share: a control plane serving the console, two verified
// accounts and three teams joined through the API's invitations.

type User = Awaited<ReturnType<typeof registerUser>>;

/**
 * A control plane with the console build (probes of loopback allowed) and two verified accounts:
 * ada owns Ops; bob owns Lab, where ada is a member, and Field, where ada is a viewer (joined
 * through the API's invitations). `a` and `b` call the API as each (the `data` of a 2xx answer).
 */
export async function threeTeams(t: Test) {
  const { app, sql, url } = await testApp(t, { config: { console_dir: DIST, probe_allow_cidrs: LOOPBACK } });
  const [ada, bob] = await Promise.all([registerUser(app), registerUser(app)]) as [User, User];
  await sql`UPDATE users SET email_verified = true WHERE id IN ${sql([ada.user_id, bob.user_id])}`;
  const a = callerAs(app, ada.access_token);
  const b = callerAs(app, bob.access_token);
  const ops = await a('POST', '/v1/teams', { name: 'Ops' });
  const lab = await b('POST', '/v1/teams', { name: 'Lab' });
  const field = await b('POST', '/v1/teams', { name: 'Field' });
  for (const [team, role] of [[lab, 'member'], [field, 'viewer']] as const) {
    const invite = await b('POST', `/v1/teams/${team.id}/invites`, { email: ada.email, role });
    await a('POST', '/v1/teams/invites/accept', { token: invite.token });
  }
  return { app, url, ada, bob, a, b, ops, lab, field };
}

/** Log out through the navigation, then log in as `user`. */
export async function switchUser(page: Page, origin: string, user: { email: string; password: string }): Promise<void> {
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL('**/login', { timeout: 30_000 });
  await loginInBrowser(page, origin, user.email, user.password);
}
