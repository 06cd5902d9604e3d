import t from 'tap';
import { enrollNode, makeToken, waitFor } from '../hub/test-harness.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { recordAssignments, type TestNode } from '../test-support/test-node.js';
import { seedTeam } from '../teams/test-support.js';
import { createMaintenanceCalendar } from '../alerting/maintenance-calendar.js';

/*
 * "The owner's nodes" is the same owner (docs/api/nodes.md "Sharing", "Teams"): a team monitor's
 * private targets and secret headers go to the team's nodes, whichever member enrolled them, never
 * to its creator's personal node; a personal monitor does not use a node of its creator's team
 * unless that node is shared; a teammate's run of a team monitor runs on the team's nodes; the
 * team's maintenance windows hold the team's monitors. Real hub, real Postgres.
 */

const BEARER = 'Bearer a-team-secret-0123456789abcdef';
const { app, url, sql } = await testApp(t, { config: { plan: 'business', probe_allow_cidrs: ['198.18.0.0/15'] } });
const creator = await registerUser(app);
const enroller = await registerUser(app);
const team_id = await seedTeam(sql, { owner: creator, member: enroller });
const api = (u: { access_token: string }) => (method: string, path: string, body?: unknown) => call(app, method, path, { token: u.access_token, body });
const asCreator = api(creator);
const asEnroller = api(enroller);


/** Every assignments frame `node` receives, acked as an agent would; `holds(id)`: its current set has monitor `id`. */
async function record(node: TestNode) {
  const { frames, holds } = await recordAssignments(node);
  return { holds, leaked: () => JSON.stringify(frames).includes(BEARER) };
}

/** Enroll a node (not shared) with a token of `user_id` (and `team`), allowing private targets. */
async function node(user_id: string, team: string | null, country_code: string, name: string) {
  const n = await enrollNode(url, await makeToken(sql, { user_id, team_id: team, shared: false, country_code }), name);
  t.teardown(() => n.node.close());
  const rec = await record(n.node);
  const patched = await call(app, 'PATCH', `/v1/nodes/${n.node_id}`, { token: user_id === creator.user_id ? creator.access_token : enroller.access_token, body: { allow_private: true } });
  if (patched.status !== 200) throw new Error(`allow_private: ${patched.status} ${JSON.stringify(patched.body)}`);
  return { id: n.node_id, rec };
}

// The team's nodes: one enrolled by another member, one by the creator himself; and the
// creator's personal node. None is shared; all allow private targets.
const teamByEnroller = await node(enroller.user_id, team_id, 'DE', 'team-by-enroller');
const teamByCreator = await node(creator.user_id, team_id, 'FR', 'team-by-creator');
const personal = await node(creator.user_id, null, 'US', 'personal-of-creator');
const teamNodes = [teamByEnroller.id, teamByCreator.id].sort();

const privateMonitor = {
  name: 'intranet', type: 'https', target: 'https://10.20.30.40/health', interval_s: 60, node_count: 3,
  config: { headers: { Authorization: BEARER } },
};

t.test('a team monitor with a private target and a secret header runs on the team\'s nodes only', async (t) => {
  const created = await asCreator('POST', '/v1/monitors', { ...privateMonitor, team_id });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const m = created.body.data;
  t.equal(m.private_target, true);
  t.match(m.placement?.message, /2 of 3 nodes.*the team's own nodes that allow private targets/, 'short of a third: it names the team\'s nodes');
  t.same([...m.node_ids].sort(), teamNodes, 'on both team nodes, the one another member enrolled included; not on the creator\'s personal node');
  await waitFor(async () => teamByEnroller.rec.holds(m.id) && teamByCreator.rec.holds(m.id));
  t.ok(teamByEnroller.rec.leaked(), 'the secret header reached the team node another member enrolled');
  t.notOk(personal.rec.holds(m.id), 'the creator\'s personal node never holds it');
  t.notOk(personal.rec.leaked(), 'nor ever saw its secret');

  // A teammate (who did not create it) runs it: the run uses the team's nodes, private allowed.
  const run = await asEnroller('POST', `/v1/monitors/${m.id}/run`);
  t.equal(run.status, 202, JSON.stringify(run.body));
  const tasks = await sql<{ node_id: string; allow_private: boolean; requester_user_id: string }[]>`
    SELECT node_id, allow_private, requester_user_id FROM probe_tasks WHERE id = ANY(${run.body.data.task_ids}::text[]) ORDER BY node_id`;
  t.same(tasks.map((x) => x.node_id), teamNodes, 'one task per team node');
  t.ok(tasks.every((x) => x.allow_private && x.requester_user_id === enroller.user_id), 'each may reach the private target; the teammate requested it');
});

t.test('a personal monitor does not use a node of its creator\'s team unless it is shared', async (t) => {
  const created = await asCreator('POST', '/v1/monitors', { ...privateMonitor, name: 'mine' });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const m = created.body.data;
  t.same(m.node_ids, [personal.id], 'the creator\'s personal node only, not the team node he enrolled');
  await waitFor(async () => personal.rec.holds(m.id));
  t.notOk(teamByCreator.rec.holds(m.id));

  const plain = { name: 'public', type: 'https', target: 'https://198.18.1.10/', interval_s: 60, node_count: 3 };
  const before = (await asCreator('POST', '/v1/monitors', plain)).body.data;
  t.same(before.node_ids, [personal.id], 'a public personal monitor: not on unshared team nodes either');
  t.equal((await asCreator('PATCH', `/v1/nodes/${teamByCreator.id}`, { shared: true })).status, 200, 'the team shares its node');
  const after = (await asCreator('POST', '/v1/monitors', { ...plain, name: 'public 2' })).body.data;
  t.same([...after.node_ids].sort(), [personal.id, teamByCreator.id].sort(), 'a shared team node serves it');
  const secret = (await asCreator('POST', '/v1/monitors', { ...plain, name: 'secret', config: { headers: { Authorization: BEARER } } })).body.data;
  t.same(secret.node_ids, [personal.id], 'but its secrets still stay off the team\'s node');
  t.equal((await asCreator('PATCH', `/v1/nodes/${teamByCreator.id}`, { shared: false })).status, 200);

  // Moved into the team, the private monitor moves to the team's nodes; into a team without a
  // node that allows private targets, the move is refused and changes nothing.
  const bare = await seedTeam(sql, { owner: creator });
  const refused = await asCreator('PATCH', `/v1/monitors/${m.id}`, { team_id: bare });
  t.equal(refused.status, 422);
  t.match(refused.body.error, { code: 'MONITOR_INVALID_TARGET', message: /one of the team's nodes that allows private targets/ });
  t.match((await asCreator('GET', `/v1/monitors/${m.id}`)).body.data, { team_id: null, node_ids: [personal.id] }, 'still personal, where it was');
  const moved = await asCreator('PATCH', `/v1/monitors/${m.id}`, { team_id });
  t.equal(moved.status, 200, JSON.stringify(moved.body));
  t.same([...moved.body.data.node_ids].sort(), teamNodes, 'now on the team\'s nodes, off the personal one');
  await waitFor(async () => !personal.rec.holds(m.id) && teamByEnroller.rec.holds(m.id));
});

t.test('a team\'s maintenance window holds the team\'s monitors, and only them', async (t) => {
  const plain = { type: 'https', target: 'https://198.18.1.10/', interval_s: 60, node_count: 1 };
  const teamMonitor = (await asCreator('POST', '/v1/monitors', { ...plain, name: 'team', team_id })).body.data;
  const personalMonitor = (await asCreator('POST', '/v1/monitors', { ...plain, name: 'personal' })).body.data;
  const teamWindow = await asEnroller('POST', '/v1/maintenance-windows', { team_id, scope_type: 'all', starts_at: '2026-12-01T02:00:00Z', ends_at: '2026-12-01T03:00:00Z' });
  t.equal(teamWindow.status, 201, JSON.stringify(teamWindow.body));
  t.equal(teamWindow.body.data.team_id, team_id, 'made by another member for the team');
  const personalWindow = await asCreator('POST', '/v1/maintenance-windows', { scope_type: 'all', starts_at: '2026-12-02T02:00:00Z', ends_at: '2026-12-02T03:00:00Z' });
  t.equal(personalWindow.status, 201, JSON.stringify(personalWindow.body));

  const calendar = createMaintenanceCalendar();
  const inTeam = new Date('2026-12-01T02:30:00Z');
  const inPersonal = new Date('2026-12-02T02:30:00Z');
  const covered = await calendar.covered(sql, [
    { monitor_id: teamMonitor.id, at: inTeam }, { monitor_id: teamMonitor.id, at: inPersonal },
    { monitor_id: personalMonitor.id, at: inTeam }, { monitor_id: personalMonitor.id, at: inPersonal },
  ]);
  t.same([...covered].sort(), [`${teamMonitor.id}/${inTeam.getTime()}`, `${personalMonitor.id}/${inPersonal.getTime()}`].sort(),
    'the team window holds the team monitor, the creator\'s own window his personal monitor; neither crosses over');
});
