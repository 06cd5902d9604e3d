import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';
import { seedTeam } from '../teams/test-support.js';

t.test('GET /v1/monitors: paging, filters and their validation', async (t) => {
  const { app, sql } = await testApp(t, { config: { plan_monitors_max: 100 } });
  const u = await registerUser(app);
  const other = await registerUser(app);
  const group = (await call(app, 'POST', '/v1/monitor-groups', { token: u.access_token, body: { name: 'web' } })).body.data;
  const ids: string[] = [];
  for (let i = 0; i < 25; i++) {
    const body = i % 5 === 0
      ? { name: `API ${i}`, type: 'ping', target: '1.1.1.1', tags: ['Core'] }
      : { name: `site ${i}`, type: 'http', target: 'http://1.1.1.1/', group_id: i % 2 ? group.id : null, tags: i % 3 ? ['web'] : [] };
    const r = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body });
    t.equal(r.status, 201);
    ids.push(r.body.data.id);
  }
  await call(app, 'POST', '/v1/monitors', { token: other.access_token, body: { name: 'site 99', type: 'http', target: 'http://1.1.1.1/' } });
  await call(app, 'POST', `/v1/monitors/${ids[3]}/pause`, { token: u.access_token });
  await sql`UPDATE monitors SET state = 'down' WHERE id = ${ids[4]!}`;

  const first = await call(app, 'GET', '/v1/monitors', { token: u.access_token });
  t.match(first.body.data, { total: 25, page: 1, limit: 20 });
  t.equal(first.body.data.items.length, 20);
  t.equal(first.body.data.items[0].id, ids[24], 'newest first');
  const second = await call(app, 'GET', '/v1/monitors?page=2&limit=20', { token: u.access_token });
  t.same(second.body.data.items.map((m: { id: string }) => m.id), ids.slice(0, 5).reverse(), 'the rest on page 2');
  const beyond = await call(app, 'GET', '/v1/monitors?page=9', { token: u.access_token });
  t.match(beyond.body.data, { items: [], total: 25, page: 9 }, 'the total also past the last page');
  t.equal((await call(app, 'GET', '/v1/monitors?limit=100', { token: u.access_token })).body.data.items.length, 25);

  const count = async (query: string) => {
    const r = await call(app, 'GET', `/v1/monitors?limit=100&${query}`, { token: u.access_token });
    t.equal(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
    return r.body.data.total as number;
  };
  t.equal(await count('type=ping'), 5);
  t.equal(await count('status=paused'), 1);
  t.equal(await count('status=active'), 24);
  t.equal(await count('state=paused'), 1);
  t.equal(await count('state=down'), 1);
  t.equal(await count('state=pending'), 23);
  t.equal(await count(`group_id=${group.id}`), 10);
  t.equal(await count('group_id=none'), 15);
  t.equal(await count('tag=core'), 5);
  t.equal(await count('tag=CORE'), 5, 'tags are matched lower-cased');
  t.equal(await count('q=api'), 5, 'q is a case-insensitive substring of the name');
  t.equal(await count('q=site%202'), 5, 'site 2, 21, 22, 23, 24');
  t.equal(await count('q=%25'), 0, 'no wildcard characters');
  t.equal(await count('type=http&tag=web&status=active'), 13);

  for (const bad of ['page=0', 'limit=0', 'limit=101', 'status=gone', 'state=sideways', 'type=smtp', 'page=x']) {
    const r = await call(app, 'GET', `/v1/monitors?${bad}`, { token: u.access_token });
    t.equal(r.status, 400, bad);
    t.equal(r.body.error.code, 'VALIDATION_FAILED');
  }
});

t.test('GET /v1/monitors over personal and team monitors: one newest-first order across owners, paged, with its total', async (t) => {
  const { app, sql } = await testApp(t, { config: { plan: 'business' } });
  const [u, mate] = [await registerUser(app), await registerUser(app)];
  const [team_a, team_b] = [await seedTeam(sql, [[u, 'member'], [mate, 'member']]), await seedTeam(sql, [[u, 'viewer']])];
  const teamless = await seedTeam(sql, [[mate, 'owner']]);
  // 12 monitors, owners taking turns (personal, team a by a teammate, team b), created in this order.
  const owners = [null, team_a, team_b];
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) {
    const team_id = owners[i % 3]!;
    const tags = i % 2 ? ['odd'] : [];
    if (team_id === team_b) {
      // u only views team b: its monitors are made by SQL, as a teammate's (the list only reads them).
      const id = `m_${String(i).padStart(26, '0')}`;
      await sql`INSERT INTO monitors (id, user_id, team_id, name, type, target, config, interval_s, node_count, tags)
        VALUES (${id}, ${mate.user_id}, ${team_id}, ${`m${i}`}, 'http', 'http://1.1.1.1/', '{}', 60, 1, ${tags})`;
      ids.push(id);
    } else {
      // Team a's made by u and its teammate in turn.
      const by = team_id === team_a && i % 2 ? mate : u;
      const r = await call(app, 'POST', '/v1/monitors', { token: by.access_token, body: { name: `m${i}`, type: 'http', target: 'http://1.1.1.1/', tags, ...(team_id ? { team_id } : {}) } });
      t.equal(r.status, 201);
      ids.push(r.body.data.id);
    }
    // Distinct creation times, in creation order.
    await sql`UPDATE monitors SET created_at = now() - make_interval(secs => ${100 - i}) WHERE id = ${ids[i]!}`;
  }
  await call(app, 'POST', '/v1/monitors', { token: mate.access_token, body: { name: 'not shared', type: 'http', target: 'http://1.1.1.1/', team_id: teamless } });
  await call(app, 'POST', '/v1/monitors', { token: mate.access_token, body: { name: 'mate personal', type: 'http', target: 'http://1.1.1.1/' } });

  const newest = [...ids].reverse();
  const seen: string[] = [];
  for (let page = 1; page <= 5; page++) {
    const r = await call(app, 'GET', `/v1/monitors?limit=5&page=${page}`, { token: u.access_token });
    t.equal(r.status, 200);
    t.equal(r.body.data.total, 12, `page ${page}: the total over every owner`);
    seen.push(...r.body.data.items.map((m: { id: string }) => m.id));
  }
  t.same(seen, newest, 'every page in one newest-first order across the personal and both teams\' monitors, none twice, none missing');
  const odd = await call(app, 'GET', '/v1/monitors?limit=2&page=2&tag=odd', { token: u.access_token });
  t.same(odd.body.data.items.map((m: { id: string }) => m.id), newest.filter((_, k) => (11 - k) % 2 === 1).slice(2, 4), 'a filter applies to every owner');
  t.equal(odd.body.data.total, 6);
  const onlyB = await call(app, 'GET', `/v1/monitors?limit=100&team_id=${team_b}`, { token: u.access_token });
  t.same(onlyB.body.data.items.map((m: { id: string }) => m.id), newest.filter((_, k) => (11 - k) % 3 === 2), 'team_id: that team\'s alone');
  const past = await call(app, 'GET', '/v1/monitors?limit=5&page=4', { token: u.access_token });
  t.match(past.body.data, { items: [], total: 12 }, 'past the last page: no items, the total still');
});
