import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { setCertificateStatus } from './certificates.db.js';
import { claimHealthChecks, setDnsCredentialHealth } from './dns-credentials.db.js';
import { runExpiryNotices, type ExpiryNoticeDeps } from './expiry-notices.js';
import { changeOrder, claimDueOrders, type OrderRow } from './orders.db.js';
import { OrderFailure, runStep, type StepConfig } from './order-steps.js';
import { dnsProvider } from './providers/dns-provider.js';

/*
 * The certificate jobs: due order steps claimed (FOR UPDATE SKIP LOCKED, then a lease) and run
 * with retries; DNS credentials' periodic health checks; issued certificates' expiry notices
 * (expiry-notices.ts). Any number of instances may run them.
 */

/** How long a claimed step may run before another instance may claim it again, ms. */
const STEP_LEASE_MS = 15 * 60_000;
/** Steps one pass claims at most. */
const STEPS_PER_PASS = 4;
/** Credentials one health pass checks at most. */
const HEALTH_PER_PASS = 20;

export type JobConfig = StepConfig & Pick<Config, 'certificates_jobs_interval_ms' | 'certificates_max_attempts' | 'certificates_retry_base_ms' | 'certificates_dns_health_interval_s'>;
export interface JobDeps { sql: Sql; config: JobConfig; box: SecretBox; log: Logger }

/** What a failed step leaves: retried later (attempts left), or the order failed (a revocation falls back to issued). */
async function afterFailure(deps: JobDeps, order: OrderRow, err: unknown): Promise<void> {
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 2000);
  const attempt = order.attempt + 1;
  const permanent = err instanceof OrderFailure || attempt >= deps.config.certificates_max_attempts;
  if (!permanent) {
    const wait_ms = deps.config.certificates_retry_base_ms * 2 ** (attempt - 1);
    await changeOrder(deps.sql, order.id, { attempt, retry_count: order.retry_count + 1, last_error: message, due_at: new Date(Date.now() + wait_ms), lease_until: null }, 'step_failed', message);
    return;
  }
  if (order.status === 'revoking') {
    await deps.sql.begin(async (tx) => {
      if (order.cert_id !== null) await setCertificateStatus(tx, order.cert_id, { status: 'issued', revoke_reason: null });
      await changeOrder(tx, order.id, { status: 'issued', attempt: 0, last_error: message, due_at: null, lease_until: null }, 'revoke_failed', message);
    });
    return;
  }
  // A new ACME order is made on retry: this one's authorizations may be invalid.
  await changeOrder(deps.sql, order.id, { status: 'failed', attempt, last_error: message, acme_order_url: null, due_at: null, lease_until: null }, 'failed', message);
}

/**
 * Claim and run the due order steps once. @returns how many steps ran
 */
export async function runDueOrders(deps: JobDeps): Promise<number> {
  const orders = await claimDueOrders(deps.sql, STEPS_PER_PASS, STEP_LEASE_MS);
  await Promise.all(orders.map(async (order) => {
    try {
      await runStep(deps, order);
    } catch (err) {
      deps.log.warn({ err, order_id: order.id, status: order.status }, 'certificate order step failed');
      await afterFailure(deps, order, err).catch((e) => deps.log.error({ err: e, order_id: order.id }, 'cannot record a failed order step'));
    }
  }));
  return orders.length;
}

/** Check due credentials' health (a harmless call to the provider). @returns how many were checked */
export async function runHealthChecks(deps: JobDeps): Promise<number> {
  const due = await claimHealthChecks(deps.sql, deps.config.certificates_dns_health_interval_s, HEALTH_PER_PASS);
  await Promise.all(due.map((cred) => checkCredential(deps, cred)));
  return due.length;
}

/** One credential's health check, recorded. @returns the status found */
export async function checkCredential(deps: Pick<JobDeps, 'sql' | 'config' | 'box'>, cred: { id: number; provider: Parameters<typeof dnsProvider>[1]; settings: Record<string, unknown>; secret_sealed: string }): Promise<{ status: 'valid' | 'invalid'; error: string | null }> {
  let error: string | null = null;
  try {
    await dnsProvider(deps.config, cred.provider, cred.settings, deps.box.open(cred.secret_sealed, `dns-credential:${cred.id}`)).check();
  } catch (err) {
    error = (err as Error).message.slice(0, 500);
  }
  const status = error === null ? 'valid' : 'invalid';
  await setDnsCredentialHealth(deps.sql, cred.id, status, error);
  return { status, error };
}

/** Handle on the running certificate jobs (main.ts). */
export interface CertificateJobs { stop(): Promise<void> }

/**
 * Run the order steps, health checks and expiry notices every `certificates_jobs_interval_ms`;
 * errors are logged and retried on the next pass.
 */
export function startCertificateJobs(deps: JobDeps & Pick<ExpiryNoticeDeps, 'events' | 'mail'> & { config: ExpiryNoticeDeps['config'] }): CertificateJobs {
  const log = deps.log.child({ module: 'certificates.jobs' });
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  const tick = () => {
    running = Promise.all([
      runDueOrders({ ...deps, log }).catch((err) => log.error({ err }, 'certificate order pass failed')),
      runHealthChecks({ ...deps, log }).catch((err) => log.error({ err }, 'DNS credential health pass failed')),
      runExpiryNotices(deps).then((n) => { if (n > 0) log.info({ noticed: n }, 'certificate expiry notices queued'); })
        .catch((err) => log.error({ err }, 'certificate expiry notice pass failed')),
    ]).finally(() => { if (!stopped) timer = setTimeout(tick, deps.config.certificates_jobs_interval_ms); });
  };
  timer = setTimeout(tick, 0);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
