import t from 'tap';
import { MONITOR_LIMITS } from '@vantage/shared-protocol';
import { checkRetention } from '../checks/retention.js';
import { loadConfig } from '../config/index.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { planLimits } from './plans.js';

/*
 * The deployment's plan (docs/api/monitors.md "Plans"): without VANTAGE_PLAN every account is on
 * self_hosted (no monitor quota, up to 100 nodes per monitor, raw checks 90 days), not on the
 * hosted service's free tier; VANTAGE_PLAN and VANTAGE_PLAN_* still choose and override.
 */

const HTTPS = { type: 'https', target: 'https://1.1.1.1/health' };

t.test('the default plan is self_hosted, its numbers follow it, and the settings still apply', async (t) => {
  const config = loadConfig({}, { database_url: 'postgres://unused' });
  t.equal(config.plan, 'self_hosted');
  t.same(planLimits(config), { plan: 'self_hosted', monitors_max: 1_000_000, node_count_default: 3, node_count_max: MONITOR_LIMITS.node_count_max });
  t.equal(checkRetention(config).raw_days, 90, 'raw checks 90 days, not the free tier\'s 30');

  const free = loadConfig({ VANTAGE_PLAN: 'free' }, { database_url: 'postgres://unused' });
  t.same(planLimits(free), { plan: 'free', monitors_max: 20, node_count_default: 3, node_count_max: 5 });
  t.equal(checkRetention(free).raw_days, 30);
  const capped = loadConfig({ VANTAGE_PLAN_MONITORS_MAX: '50', VANTAGE_PLAN_NODE_COUNT_MAX: '7', VANTAGE_CHECKS_RETENTION_DAYS: '14' }, { database_url: 'postgres://unused' });
  t.match(planLimits(capped), { plan: 'self_hosted', monitors_max: 50, node_count_max: 7 });
  t.equal(checkRetention(capped).raw_days, 14);
  t.throws(() => loadConfig({ VANTAGE_PLAN: 'gold' }, { database_url: 'postgres://unused' }), /VANTAGE_PLAN:/, 'an unknown plan is refused at start');
  t.throws(() => loadConfig({ VANTAGE_PLAN_NODE_COUNT_MAX: '101' }, { database_url: 'postgres://unused' }), /VANTAGE_PLAN_NODE_COUNT_MAX:/, 'no more nodes than a monitor may ask for');
});

t.test('an account on the default plan is not held to the free tier', async (t) => {
  const { app } = await testApp(t, { config: { probe_allow_cidrs: [] } });
  const u = await registerUser(app);
  const wide = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { ...HTTPS, name: 'wide', node_count: 50 } });
  t.equal(wide.status, 201, JSON.stringify(wide.body));
  t.equal(wide.body.data.node_count, 50, 'more than the free tier\'s 5 nodes');
  for (let i = 0; i < 20; i++) {
    const r = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { ...HTTPS, name: `m${i}` } });
    t.equal(r.status, 201, `monitor ${i + 2}`);
  }
  t.equal((await call(app, 'GET', '/v1/monitors', { token: u.access_token })).body.data.total, 21, 'past the free tier\'s 20');
  const over = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { ...HTTPS, name: 'too wide', node_count: 101 } });
  t.equal(over.status, 400, 'still bounded by what a monitor may ask for');
});
