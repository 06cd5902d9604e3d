import t from 'tap';
import { connect } from '../db/sql.js';
import { createLogger } from '../log.js';
import { addNode } from '../probes/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { createPlacementEngine } from './placement-engine.js';

// Embedded mode runs on one database connection (main.ts): placing a monitor must not wait for a
// second connection while its transaction holds the only one (it did: POST /v1/monitors hung).

t.test('placeNow completes on a pool of one connection', async (t) => {
  const ctx = await testApp(t, { config: { probe_allow_cidrs: ['198.18.0.0/15'] } });
  const user = await registerUser(ctx.app);
  await ctx.sql`INSERT INTO hub_instances (instance_id, lease_at) VALUES ('test-instance', now() + interval '1 day')`;
  for (const country of ['DE', 'FR', 'JP']) await addNode(ctx.sql, { country, capabilities: ['http', 'tcp'] });
  const created = await call(ctx.app, 'POST', '/v1/monitors', { token: user.access_token, body: { name: 'one', type: 'tcp', target: '198.18.1.10:443', node_count: 1 } });
  t.equal(created.status, 201);
  await ctx.sql`UPDATE monitors SET node_count = 3 WHERE id = ${created.body.data.id}`;

  const one = connect(ctx.deps.config.database_url!, 1, createLogger('silent'));
  t.teardown(() => one.end({ timeout: 5 }));
  const engine = createPlacementEngine({ sql: one, log: createLogger('silent'), config: ctx.deps.config });
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<'stuck'>((resolve) => { timer = setTimeout(() => resolve('stuck'), 30_000); });
  const placed = await Promise.race([engine.placeNow(created.body.data.id), stuck]);
  clearTimeout(timer);
  t.not(placed, 'stuck', 'placeNow returned (no wait for a second connection)');
  t.equal((placed as string[]).length, 3, 'placed on the three nodes');
});
