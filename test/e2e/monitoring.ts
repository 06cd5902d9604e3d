import { randomBytes } from 'node:crypto';
import { connect, type Sql } from '../../control-plane/src/db/sql.js';
import { startSmtpServer } from '../../control-plane/src/email/test-support.js';
import { call } from './client.js';
import { createDatabase } from './control-plane.js';
import { startTestNetwork, type TestNetwork, type TestNetworkOptions } from './network.js';
import { startReceiver, type Receiver } from './receivers.js';

/**
 * The monitoring half of the e2e test network (docs/architecture/test-network.md "Switches and
 * receivers"): the network of network.ts, plus a real SMTP server and the HTTP receivers on the
 * control-plane side, the control plane configured to deliver to them, and short rounds.
 */

interface Teardown { teardown(fn: () => unknown): void }

/**
 * Rounds of the monitoring tests, s: besides 60, 300 and 1800 the API accepts the intervals of the
 * operator setting VANTAGE_MONITOR_EXTRA_INTERVALS_S (docs/api/monitors.md "Create and update"),
 * which the tests' control plane sets to this.
 */
export const ROUND_S = 10;

export interface MonitoringNetwork {
  net: TestNetwork;
  /** `method path` as the owner (the envelope's data). @throws ApiError */
  api<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  webhook: Receiver;
  slack: Receiver;
  pagerduty: Receiver;
  /** The control plane's database: used only by shortenBrowserRounds. */
  sql: Sql;
}

/**
 * Start the receivers, then the network with the control plane pointed at them:
 * VANTAGE_SMTP_URL, VANTAGE_DELIVERY_ALLOW_CIDRS=127.0.0.1/32 (the receivers' loopback is
 * private: the operator's list opens it, the check stays on), 10 s rounds allowed
 * (VANTAGE_MONITOR_EXTRA_INTERVALS_S), a 5 s round grace, and `env`.
 */
export async function startMonitoringNetwork(t: Teardown, env: Record<string, string> = {}, opts: TestNetworkOptions & { admin_url?: string } = {}): Promise<MonitoringNetwork> {
  const smtp = await startSmtpServer(t);
  const [webhook, slack, pagerduty] = await Promise.all([startReceiver(t, 'webhook'), startReceiver(t, 'slack'), startReceiver(t, 'pagerduty')]);
  // A fresh database on the test server, or on `opts.admin_url`'s (a test's own Postgres, which it may restart).
  const db = await createDatabase(opts.admin_url);
  const sql = connect(db.url, 2);
  // DROP … WITH (FORCE) also ends the control plane's connections, whichever teardown runs first.
  // (A test's own Postgres may already be gone at teardown: nothing is left to drop then.)
  t.teardown(async () => { await sql.end({ timeout: 2 }); await db.drop().catch(() => undefined); });
  const { admin_url: _admin, ...network_opts } = opts;
  const net = await startTestNetwork(t, {
    ...network_opts,
    database_url: db.url,
    control_plane_env: {
      VANTAGE_SMTP_URL: smtp.smtp_url, VANTAGE_DELIVERY_ALLOW_CIDRS: '127.0.0.1/32', VANTAGE_CHECKS_ROUND_GRACE_MS: '5000',
      VANTAGE_MONITOR_EXTRA_INTERVALS_S: String(ROUND_S),
      VANTAGE_PLAN: 'pro',
      // The pro plan's shortest interval is 60 s (docs/api/billing.md); this network runs 10 s rounds.
      VANTAGE_BILLING_PLAN_QUOTAS: JSON.stringify({ pro: { min_interval_s: ROUND_S } }),
      ...env,
    },
  });
  const api = <T = any>(method: string, path: string, body?: unknown) => call<T>(net.api_url, method, path, body, net.owner_token);
  return { net, api, smtp, webhook, slack, pagerduty, sql };
}

/**
 * Make browser monitors `monitor_ids` run every `interval_s` seconds: browser monitors keep their
 * 300 s minimum whatever VANTAGE_MONITOR_EXTRA_INTERVALS_S says, and a test cannot wait minutes
 * for a round. The one write the tests make outside the public API. It is the change a PATCH
 * makes (interval and revision bumped), so the placement trigger queues the monitors and their
 * nodes get the new interval as an assignments delta, as for an edit through the API.
 */
export async function shortenBrowserRounds(sql: Sql, monitor_ids: string[], interval_s: number): Promise<void> {
  await sql`UPDATE monitors SET interval_s = ${interval_s}, revision = revision + 1, updated_at = now() WHERE id = ANY(${monitor_ids}::text[]) AND type = 'browser'`;
}

/** Poll `check` every `every_ms` until it returns a value other than null/undefined/false; throw after `timeout_ms` naming `what`. */
export async function until<T>(what: string, check: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeout_ms = 120_000, every_ms = 500): Promise<T> {
  const deadline = Date.now() + timeout_ms;
  let last: unknown = null;
  for (;;) {
    try {
      const v = await check();
      if (v !== null && v !== undefined && v !== false) return v as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout_ms} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, every_ms));
  }
}

/** A `whsec_` secret for a webhook channel (Standard Webhooks: base64 of 32 random bytes). */
export function webhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A PagerDuty-style routing key (32 characters). */
export function routingKey(): string {
  return randomBytes(16).toString('hex');
}

/** A check as `GET /v1/monitors/{id}/checks` lists it. */
export interface CheckItem {
  node_id: string | null;
  scheduled_at: string;
  success: boolean;
  error: string | null;
  response_ms: number | null;
}

/** Every check of `monitor_id` in [from, to] (all pages), oldest round first. */
export async function allChecks(m: Pick<MonitoringNetwork, 'api'>, monitor_id: string, from: string, to = 'now'): Promise<CheckItem[]> {
  const out: CheckItem[] = [];
  for (let page = 1; ; page++) {
    const got = await m.api<{ items: CheckItem[]; has_more: boolean }>('GET', `/v1/monitors/${monitor_id}/checks?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&page=${page}&page_size=200`);
    out.push(...got.items);
    if (!got.has_more) break;
  }
  return out.sort((a, b) => Date.parse(a.scheduled_at) - Date.parse(b.scheduled_at));
}

/** Checks grouped by round (scheduled_at epoch ms), in order. */
export function byRound(checks: CheckItem[]): Map<number, CheckItem[]> {
  const rounds = new Map<number, CheckItem[]>();
  for (const c of checks) {
    const k = Date.parse(c.scheduled_at);
    rounds.set(k, [...(rounds.get(k) ?? []), c]);
  }
  return rounds;
}
