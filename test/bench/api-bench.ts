/**
 * Benchmark (not a test): requests/s and latency of an authenticated GET /v1/account/profile with
 * an API key, against a real listening control plane on 127.0.0.1 and the real Postgres at
 * TEST_DATABASE_URL (a scratch database, dropped afterwards). Each request runs identify (key
 * lookup), the Postgres rate-limit UPSERT and the profile query.
 *
 *   npx tsx test/bench/api-bench.ts [--connections 20] [--duration 10]
 */
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { call, createApiKey, registerUser, testApp } from '../../control-plane/src/test-support/app.js';

// autocannon is a dev dependency of the control plane (no type declarations are installed).
const autocannon = createRequire(new URL('../../control-plane/package.json', import.meta.url))('autocannon') as (opts: Record<string, unknown>) => Promise<any>;

const { values } = parseArgs({ options: { connections: { type: 'string', default: '20' }, duration: { type: 'string', default: '10' } } });
const connections = Number(values.connections);
const duration_s = Number(values.duration);

const teardowns: Array<() => unknown> = [];
const t = { teardown: (fn: () => unknown) => void teardowns.unshift(fn) };
try {
  const { app, url } = await testApp(t, { generic_plans: true, config: { rate_limit_keyed: 100_000_000, rate_limit_anonymous: 100_000_000 } });
  const user = await registerUser(app);
  const { key } = await createApiKey(app, user.access_token, ['read']);
  const check = await call(app, 'GET', '/v1/account/profile', { token: key });
  if (check.status !== 200) throw new Error(`warm-up failed: ${check.status}`);

  const result = await autocannon({
    url: `${url}/v1/account/profile`,
    headers: { authorization: `Bearer ${key}` },
    connections,
    duration: duration_s,
  });
  const non2xx = result.non2xx + result.errors + result.timeouts;
  console.log(JSON.stringify({
    endpoint: 'GET /v1/account/profile (API key)',
    connections,
    duration_s,
    requests: result.requests.total,
    requests_per_s: Math.round(result.requests.average),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    latency_max_ms: result.latency.max,
    failed: non2xx,
  }, null, 2));
} finally {
  for (const fn of teardowns) await fn();
}
