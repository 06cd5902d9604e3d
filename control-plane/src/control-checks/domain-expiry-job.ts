import { roundPhaseMs, type DomainExpiryCheckOutput } from '@vantage/shared-protocol';
import type { EventPublisher } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { lookupDomain, type DomainLookupOptions } from '../lookups/whois-lookup.js';
import { claimDomainChecks, scheduleDomainCheck } from './domain-expiry.db.js';
import { publishDomainExpiring } from './domain-expiry-events.js';
import { storeControlCheck } from './results.db.js';

/** Monitors one pass claims. */
const BATCH = 20;

/** The start of the round of a monitor that contains `now`, and the next one (monitors' wall-clock rounds). */
function roundOf(monitor_id: string, interval_s: number, now: Date): { start: Date; next: Date } {
  const interval_ms = interval_s * 1000;
  const phase = roundPhaseMs(monitor_id, interval_s);
  const k = Math.floor((now.getTime() - phase) / interval_ms);
  return { start: new Date(phase + k * interval_ms), next: new Date(phase + (k + 1) * interval_ms) };
}

const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isInteger(v) ? v : fallback);

/**
 * One pass of domain_expiry checks at `now` (docs/api/checks.md "domain_expiry"): each due active
 * monitor is claimed by one instance (SKIP LOCKED, leased for the look-up), looked up (RDAP, then
 * WHOIS), and its result stored for the round containing `now` (idempotent); down (class
 * `assertion`) when fewer than `min_days_remaining` (or `critical_days`) whole days remain, down
 * (class `target`) when no registry gave an expiry date (a registry the outbound policy refuses
 * included: the error gives the policy's reason). The next run is the next round.
 * With `events`, a registration with fewer days left than the monitor's `warn_days` or
 * `critical_days` queues `domain.expiring` in the transaction that stores the check, once per
 * threshold crossed (domain-expiry-events.ts).
 * Once `signal` aborts (shutdown), the look-up under way is dropped, not stored, and the monitors
 * not yet checked are released (due now, for any instance).
 * @returns checks stored
 */
export async function runDomainChecks(sql: Sql, lookup: DomainLookupOptions, now: () => Date = () => new Date(), signal?: AbortSignal, events?: EventPublisher): Promise<number> {
  const t0 = now();
  const lease_ms = 3 * (lookup.timeout_ms ?? 10_000) * BATCH;
  const claimed = await sql.begin((tx) => claimDomainChecks(tx, t0, lease_ms, BATCH));
  /** Make the monitors from the i-th on due again at once (for whichever instance claims next). */
  const releaseFrom = (i: number) => sql.begin(async (tx) => { for (const left of claimed.slice(i)) await scheduleDomainCheck(tx, left.monitor_id, t0); });
  let stored = 0;
  for (const [i, m] of claimed.entries()) {
    if (signal?.aborted) {
      await releaseFrom(i);
      break;
    }
    const round = roundOf(m.monitor_id, m.interval_s, t0);
    const started_at = now();
    let output: DomainExpiryCheckOutput | null = null;
    let error: string | null = null;
    try {
      output = await lookupDomain(m.target, lookup, now, signal);
    } catch (err) {
      error = (err as Error).message.slice(0, 2000);
    }
    if (signal?.aborted) {
      await releaseFrom(i);
      break;
    }
    const min_days = Math.max(num(m.config.min_days_remaining, 30), num(m.config.critical_days, 0));
    const days = output?.days_until_expiry ?? null;
    if (!error && days === null) error = `the registry publishes no expiry date for ${m.target}`;
    const low = days !== null && days < min_days;
    if (low) error = days! < 0 ? `${m.target} expired ${-days!} days ago (${output!.expires_at})` : `${m.target} expires in ${days} days (${output!.expires_at}), fewer than ${min_days}`;
    const finished_at = now();
    await sql.begin(async (tx) => {
      if (await storeControlCheck(tx, {
        monitor_id: m.monitor_id, interval_s: m.interval_s, scheduled_at: round.start, started_at, finished_at,
        success: error === null, error, error_class: error === null ? null : low ? 'assertion' : 'target',
        output,
      })) stored++;
      if (events && output) await publishDomainExpiring(tx, events, m, output);
      await scheduleDomainCheck(tx, m.monitor_id, round.next);
    });
  }
  return stored;
}

/**
 * Run domain_expiry passes every `every_ms` (default 15 s), one at a time, queueing
 * `domain.expiring` through `deps.events`.
 * @returns stop(): aborts the look-up under way (its monitors are released, nothing is stored
 *   for it) and resolves once the running pass has ended
 */
export function startDomainExpiryJob(deps: { sql: Sql; log: Logger; events: EventPublisher }, lookup: DomainLookupOptions, every_ms = 15_000): { stop(): Promise<void> } {
  const log = deps.log.child({ module: 'control-checks.domain-expiry' });
  let running: Promise<void> | null = null;
  const stopping = new AbortController();
  const timer = setInterval(() => {
    if (running) return;
    running = runDomainChecks(deps.sql, lookup, undefined, stopping.signal, deps.events)
      .then((n) => { if (n > 0) log.debug({ stored: n }, 'domain expiry checks stored'); })
      .catch((err) => log.warn({ err }, 'domain expiry pass failed'))
      .finally(() => { running = null; });
  }, every_ms);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}
