import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve, type ServerType } from '@hono/node-server';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AccountKeyScope } from '@vantage/shared-protocol';
import { createApp } from '../app.js';
import { loadConfig, type Config } from '../config/index.js';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { createLogger } from '../log.js';
import { genericPlanClient, type Sql } from '../db/sql.js';
import type { NodeHub, ResultSink } from '../contracts.js';
import { createHub, isHub } from '../hub/hub.js';
import { createResultSink } from '../probes/sink.js';
import { createOutbound, type Outbound } from '../outbound.js';
import { createAssignmentFeed } from '../monitors/assignment-feed.js';
import { createCheckStore } from '../checks/ingest.js';
import { withAgentObs } from '../agent-obs/ingest.js';
import { createPlacementEngine } from '../monitors/placement-engine.js';
import { createVerdictWake, type VerdictWake } from '../checks/verdict-wake.js';
import { withCertificateEvents } from '../checks/certificate-events.js';
import { testDatabase } from './db.js';
import { createMetrics } from '../metrics/registry.js';
import { createOpsState } from '../metrics/ops-state.js';
import { withResultMetrics } from '../metrics/result-metrics.js';
import { registerScrapeGauges } from '../metrics/scrape-gauges.js';

interface Teardown { teardown(fn: () => unknown): void }

/** What testApp builds the hub and result sink from. */
export type TestBase = Pick<AppDeps, 'config' | 'sql' | 'log'>;

/**
 * The whole app on a fresh migrated test database (test-support/db.ts), also listening on
 * 127.0.0.1:0 for tests that need a real socket (source IPs, WebSocket upgrades, autocannon).
 * Deps are built as main.ts builds them: the real result sink (probes/sink.ts) and node hub
 * (hub/hub.ts, attached to the server for WebSocket upgrades, with the monitor assignment feed;
 * monitor results are accepted per placement), unless `overrides.results` /
 * `overrides.hub` give factories for others. `config.database_url` is the test database's URL.
 * Logs are silent unless TEST_LOG_LEVEL is set; rate limits default high (100000 per window) so
 * only tests that set `rate_limit_*` meet them; registration is open unless `registration` is given. `config.port` is the port the server got (unless
 * `overrides.config.port` is given), so links built without a public URL reach it. Everything is
 * closed at teardown. `overrides.metrics`: Prometheus metrics (deps.metrics, the result sink
 * wrapped) and readiness state (deps.ops, listening once the server is) as main.ts builds them.
 * `overrides.generic_plans`: node picks and uptime answers on their own generic-plan client
 * (deps.generic_sql, db/sql.ts genericPlanClient) as main.ts builds it; without it they run on `sql`.
 *
 * @returns `{ app, deps, sql, url, server, outbound, verdict_wake }`: `url` like `http://127.0.0.1:41234` (no trailing slash);
 *   `verdict_wake` is what the default check store wakes (give it to startCheckJobs as `wake`, as main.ts does)
 */
export async function testApp(
  t: Teardown,
  overrides: { config?: Partial<Config>; results?: (base: TestBase) => ResultSink; hub?: (base: TestBase & { results: ResultSink }) => NodeHub; delivery?: boolean; metrics?: boolean; generic_plans?: boolean } = {},
): Promise<{ app: OpenAPIHono<AppEnv>; deps: AppDeps; sql: Sql; url: string; server: ServerType; outbound: Outbound; verdict_wake: VerdictWake }> {
  // Cleanup runs last-in first-out (server, hub, then the database), all in one teardown.
  const cleanups: Array<() => unknown> = [];
  t.teardown(async () => { for (const fn of cleanups) await fn(); });
  const { sql, url: database_url } = await testDatabase({ teardown: (fn) => void cleanups.unshift(fn) });
  const config = loadConfig({}, {
    database_url,
    log_level: (process.env.TEST_LOG_LEVEL as Config['log_level']) ?? 'silent',
    rate_limit_anonymous: 100_000,
    rate_limit_keyed: 100_000,
    rate_limit_invalid_credentials: 100_000,
    rate_limit_upgrades: 100_000,
    // Tests register as many accounts as they need; the registration modes have their own tests.
    registration: 'open',
    // Monitor header secrets are sealed with a key of this app's own (main.ts reads it once at start).
    secrets_key: randomBytes(32).toString('base64'),
    // Tests probe anonymously unless they set it (production default: accounts, config/probes.ts).
    public_probes: 'anonymous',
    ...overrides.config,
  });
  const base: TestBase = { config, sql, log: createLogger(config.log_level) };
  const generic_sql = overrides.generic_plans ? genericPlanClient(database_url, base.log) : undefined;
  if (generic_sql) cleanups.unshift(() => generic_sql.end({ timeout: 5 }));
  // Outbound delivery (events, e-mail): the worker runs only when `overrides.delivery` is true.
  const outbound = createOutbound(base);
  cleanups.unshift(() => outbound.close(0));
  const verdict_wake = createVerdictWake();
  // Prometheus metrics and readiness as main.ts builds them, when `overrides.metrics` is true.
  const metrics = overrides.metrics ? createMetrics(config) : undefined;
  const ops = overrides.metrics ? createOpsState() : undefined;
  const sink = (overrides.results ?? ((b: TestBase) => createResultSink({
    ...b,
    checks: withAgentObs(withCertificateEvents(createCheckStore({ ...b, wake: verdict_wake }), outbound.events),
      { ...b, mail: outbound.mail, placeNow: (id) => createPlacementEngine(b).placeNow(id) }),
  })))(base);
  const results = metrics ? withResultMetrics(sink, metrics) : sink;
  // Monitor assignments reach the nodes this app's hub holds (started below, stopped at teardown).
  const feed = createAssignmentFeed(base);
  await feed.start();
  cleanups.unshift(() => feed.stop());
  const hub = (overrides.hub ?? ((b: TestBase & { results: ResultSink }) => createHub({ ...b, assignments: feed })))({ ...base, results });
  if (metrics) registerScrapeGauges(metrics, { sql, hub, pools: { main: 10 }, log: base.log });
  const deps = { ...base, ...(generic_sql ? { generic_sql } : {}), results, hub, events: outbound.events, mail: outbound.mail, connector: outbound.connector, ...(metrics ? { metrics, ops } : {}) };
  const app = createApp(deps);
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const detach = isHub(hub) ? hub.attach(server as Server) : undefined;
  cleanups.unshift(async () => {
    detach?.();
    await hub.close();
    (server as Server).closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  if (isHub(hub)) await hub.ready();
  if (overrides.delivery) await outbound.start();
  if (ops) ops.listening = true;
  const { port } = server.address() as AddressInfo;
  // The listening address is what links fall back to without a public URL (config/public-url.ts):
  // the port the server really got, unless the test chose one.
  if (overrides.config?.port === undefined) config.port = port;
  return { app, deps, sql, url: `http://127.0.0.1:${port}`, server, outbound, verdict_wake };
}

type Requester = { request: OpenAPIHono<AppEnv>['request'] };

async function json(res: Response, expected: number, what: string): Promise<any> {
  const body = await res.json();
  if (res.status !== expected) throw new Error(`${what}: expected ${expected}, got ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/**
 * Register a user through `POST /v1/auth/register` (a unique email unless given).
 * @returns `{ user_id, access_token, refresh_token, email, password }`
 */
export async function registerUser(app: Requester, email?: string): Promise<{ user_id: string; access_token: string; refresh_token: string; email: string; password: string }> {
  const address = email ?? `user-${randomBytes(6).toString('hex')}@example.test`;
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  const res = await app.request('/v1/auth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: address, password }) });
  const { data } = await json(res, 201, 'register');
  return { user_id: data.user_id, access_token: data.access_token, refresh_token: data.refresh_token, email: address, password };
}

/**
 * Create an account API key through `POST /v1/account/api-keys` with a session token.
 * @param scopes e.g. `['read']`; omitted = read and write
 * @returns `{ key, id }`: the `sk_live_` secret and the `key_` id
 */
export async function createApiKey(app: Requester, access_token: string, scopes?: AccountKeyScope[]): Promise<{ key: string; id: string }> {
  const res = await app.request('/v1/account/api-keys', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
    body: JSON.stringify({ name: 'test key', ...(scopes ? { scopes } : {}) }),
  });
  const { data } = await json(res, 201, 'create api key');
  return { key: data.key, id: data.id };
}

/**
 * A caller of `app` as `token`: `(method, path, body?)` resolves to the envelope's `data`.
 * @throws Error naming the call, its status and body, for any status from 300 up
 */
export function callerAs(app: Requester, token: string) {
  return async (method: string, path: string, body?: unknown): Promise<any> => {
    const r = await call(app, method, path, { token, body });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data;
  };
}

/**
 * One JSON call through `app.request()`: `body` is JSON-encoded unless a string; `token` becomes
 * `Authorization: Bearer …`. @returns `{ status, body, headers }` with the parsed JSON body
 */
export async function call(
  app: Requester, method: string, path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...opts.headers };
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await app.request(path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = JSON.parse(text); } catch { /* not JSON: keep the text */ }
  return { status: res.status, body: parsed, headers: res.headers };
}
