import t from 'tap';
import { PROTOCOL_VERSION, enrollProof } from '@vantage/shared-protocol';
import { TestNode } from '../test-support/test-node.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { seedTeam as teamOf } from '../teams/test-support.js';

/*
 * Nodes of teams (docs/api/nodes.md "Teams"): an enrollment token created for a team enrolls a
 * node of that team, which the team's members manage by role through the one authorization
 * function (a viewer reads its owner-only facts, a member changes it).
 */

const { app, url, sql } = await testApp(t, { config: { instance_id: 'nodes-teams-test', heartbeat_interval_ms: 1000 } });
type User = Awaited<ReturnType<typeof registerUser>>;

async function enroll(token: string): Promise<{ node: TestNode; node_id: string }> {
  const node = await TestNode.connect(url, token);
  node.send({ type: 'enroll', protocol_version: PROTOCOL_VERSION, agent_version: '0.1.0', hostname: 'probe' });
  const w = await node.next('welcome');
  node.send({ type: 'enroll.confirm', node_id: w.node_id, proof: enrollProof(w.credential!, w.node_id) });
  await node.next('enroll.confirmed');
  return { node, node_id: w.node_id };
}

const users = { owner: await registerUser(app), admin: await registerUser(app), member: await registerUser(app), viewer: await registerUser(app) };
const outsider = await registerUser(app);
const team_id = await teamOf(sql, users);

t.test('enrollment tokens for a team: member creates, viewer 403, non-member 404; the team lists and revokes them', async (t) => {
  const byViewer = await call(app, 'POST', '/v1/enrollment-tokens', { token: users.viewer.access_token, body: { team_id } });
  t.equal(byViewer.status, 403);
  t.match(byViewer.body.error, { code: 'FORBIDDEN', details: { team_id, role: 'viewer', required_role: 'member' } });
  const byOutsider = await call(app, 'POST', '/v1/enrollment-tokens', { token: outsider.access_token, body: { team_id } });
  t.equal(byOutsider.status, 404);
  t.equal(byOutsider.body.error.code, 'TEAM_NOT_FOUND');
  const created = await call(app, 'POST', '/v1/enrollment-tokens', { token: users.member.access_token, body: { team_id, label: 'team-1' } });
  t.equal(created.status, 201);
  const listed = await call(app, 'GET', '/v1/enrollment-tokens', { token: users.viewer.access_token });
  t.match(listed.body.data.tokens, [{ id: created.body.data.id, team_id }], 'a viewer lists the team\'s token');
  t.same((await call(app, 'GET', '/v1/enrollment-tokens', { token: outsider.access_token })).body.data.tokens, [], 'an outsider lists nothing');
  t.equal((await call(app, 'DELETE', `/v1/enrollment-tokens/${created.body.data.id}`, { token: users.viewer.access_token })).status, 403, 'a viewer cannot revoke');
  t.equal((await call(app, 'DELETE', `/v1/enrollment-tokens/${created.body.data.id}`, { token: outsider.access_token })).status, 404, 'an outsider: not found');
  t.equal((await call(app, 'DELETE', `/v1/enrollment-tokens/${created.body.data.id}`, { token: users.admin.access_token })).status, 200, 'an admin revokes it');
});

t.test("a team token's node is the team's: members manage it by role, a viewer reads, others are refused", async (t) => {
  const token = (await call(app, 'POST', '/v1/enrollment-tokens', { token: users.member.access_token, body: { team_id } })).body.data.token;
  const { node, node_id } = await enroll(token);
  t.teardown(() => node.close());
  const detail = await call(app, 'GET', `/v1/nodes/${node_id}`, { token: users.viewer.access_token });
  t.match(detail.body.data, { is_owner: true, team_id }, 'a viewer sees the owner-only facts');
  t.match((await call(app, 'GET', `/v1/nodes/${node_id}`, { token: outsider.access_token })).body.data, { is_owner: false, team_id: null, ip_address: null });
  const mine = await call(app, 'GET', `/v1/nodes?mine=true&team_id=${team_id}`, { token: users.owner.access_token });
  t.same(mine.body.data.items.map((n: { id: string }) => n.id), [node_id], 'mine=true&team_id= lists the team\'s node for any member');
  t.equal((await call(app, 'GET', '/v1/nodes?mine=true', { token: outsider.access_token })).body.data.total, 0);

  for (const [role, u] of Object.entries(users)) {
    const r = await call(app, 'PATCH', `/v1/nodes/${node_id}`, { token: u.access_token, body: { name: `by-${role}` } });
    if (role === 'viewer') {
      t.equal(r.status, 403, 'a viewer cannot rename it');
      t.match(r.body.error, { code: 'FORBIDDEN', details: { team_id, role: 'viewer', required_role: 'member' } });
    } else t.equal(r.status, 200, `${role} renames it`);
  }
  const byOutsider = await call(app, 'POST', `/v1/nodes/${node_id}/disable`, { token: outsider.access_token });
  t.equal(byOutsider.status, 403, 'another account cannot change the public node');
  await sql`DELETE FROM team_members WHERE team_id = ${team_id} AND user_id = ${users.member.user_id}`;
  t.equal((await call(app, 'PATCH', `/v1/nodes/${node_id}`, { token: users.member.access_token, body: { name: 'gone' } })).status, 403, 'a removed member loses it at once');
  t.equal((await call(app, 'POST', `/v1/nodes/${node_id}/disable`, { token: users.admin.access_token })).body.data?.status, 'disabled', 'an admin disables it');
  t.equal((await call(app, 'DELETE', `/v1/nodes/${node_id}`, { token: users.owner.access_token })).status, 200, 'the owner removes it');
});
