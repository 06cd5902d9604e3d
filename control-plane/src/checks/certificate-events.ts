import { splitSslTarget, sslExpiryMonitorConfigSchema, type MonitorResultEnvelope } from '@vantage/shared-protocol';
import type { EventPublisher, MonitorResultStore, SqlExecutor } from '../contracts.js';
import { crossedThresholds, expiryThresholds, publishExpiryOnce, type ExpiryThresholds } from './expiry-events.js';
import { expiryMonitors } from './expiry-notices.db.js';
import { inTransaction } from '../db/transaction.js';

/*
 * `ssl.expiring` (docs/api/webhooks.md "Events") from the certificates nodes report in monitor
 * results: `ssl_expiry` checks at the monitor's `warn_days` and `critical_days`, `https` checks
 * (no thresholds of their own) at the ssl_expiry defaults.
 */

/** The ssl_expiry defaults (warn_days 14, critical_days 3): the thresholds of https monitors. */
export const CERTIFICATE_DEFAULT_THRESHOLDS: ExpiryThresholds = (({ warn_days, critical_days }) => ({ warn_days, critical_days }))(sslExpiryMonitorConfigSchema.parse({}));
/** Highest warn_days a monitor may set (config-network.ts): a certificate with more days left is no candidate. */
const WARN_DAYS_MAX = 365;

/** A certificate a node saw for a monitor. */
interface SeenCertificate {
  monitor_id: string;
  /** What expires (0042_expiry_notices.sql `subject`). */
  key: string;
  host: string | null;
  subject: string | null;
  issuer: string | null;
  expires_at: string;
  days_left: number;
}

const hostOfUrl = (url: string | null | undefined) => {
  try {
    return url ? new URL(url).hostname.replace(/^\[(.*)\]$/, '$1') : null;
  } catch {
    return null;
  }
};

/** The certificate a stored result reports (ssl_expiry, https), or null (other types, no certificate, no expiry). */
function certificateOf(r: MonitorResultEnvelope): SeenCertificate | null {
  let c: { fingerprint: string | null; host: string | null; subject: string | null; issuer: string | null; not_after: string | null; days_left: number | null };
  if (r.type === 'ssl_expiry' && r.output) {
    const o = r.output;
    c = { fingerprint: o.fingerprint_sha256, host: o.servername, subject: o.subject, issuer: o.issuer, not_after: o.not_after, days_left: o.days_until_expiry };
  } else if (r.type === 'https' && r.output?.certificate) {
    const cert = r.output.certificate;
    c = { fingerprint: null, host: hostOfUrl(r.output.final_url), subject: cert.subject, issuer: cert.issuer, not_after: cert.not_after, days_left: cert.days_left };
  } else {
    return null;
  }
  const expires = c.not_after === null ? NaN : Date.parse(c.not_after);
  if (c.days_left === null || Number.isNaN(expires) || c.days_left >= WARN_DAYS_MAX) return null;
  if (r.type === 'https' && c.days_left >= CERTIFICATE_DEFAULT_THRESHOLDS.warn_days) return null;
  const expires_at = new Date(expires).toISOString();
  return {
    monitor_id: r.monitor_id, key: c.fingerprint ? `cert:sha256:${c.fingerprint}` : `cert:${c.subject ?? ''}|${expires_at}`,
    host: c.host, subject: c.subject, issuer: c.issuer, expires_at, days_left: c.days_left,
  };
}


/**
 * Queue `ssl.expiring` for each certificate in `results` (stored monitor results) whose days left
 * fell below a threshold of its monitor not yet sent for that certificate (expiry-events.ts
 * publishExpiryOnce): the record of the crossing and the event commit together, in `ex` when it
 * is a transaction, else in one of their own (the check store writes a batch of monitor results
 * without one). Costs nothing for results without a candidate certificate (an https certificate
 * with 14 days or more left, none at all), one read of their monitors otherwise, and a
 * transaction only when a certificate is below a threshold.
 * @returns how many events were queued
 */
export async function publishCertificateEvents(ex: SqlExecutor, events: EventPublisher, results: MonitorResultEnvelope[]): Promise<number> {
  const seen = results.map(certificateOf).filter((c): c is SeenCertificate => c !== null);
  if (seen.length === 0) return 0;
  const monitors = new Map((await expiryMonitors(ex, [...new Set(seen.map((c) => c.monitor_id))])).map((m) => [m.id, m]));
  const below = seen.flatMap((c) => {
    const m = monitors.get(c.monitor_id);
    if (!m) return [];
    const thresholds = m.type === 'ssl_expiry' ? expiryThresholds(m.config, CERTIFICATE_DEFAULT_THRESHOLDS) : CERTIFICATE_DEFAULT_THRESHOLDS;
    return crossedThresholds(c.days_left, thresholds).length > 0 ? [{ c, m, thresholds }] : [];
  });
  if (below.length === 0) return 0;
  return inTransaction(ex, async (tx) => {
    let sent = 0;
    for (const { c, m, thresholds } of below) {
      const target = m.target === null ? null : splitSslTarget(m.target);
      const target_host = target && 'host' in target ? target.host : null;
      if (await publishExpiryOnce(tx, events, { monitor_id: m.id, subject: c.key, days_left: c.days_left, thresholds }, {
        type: 'ssl.expiring', user_id: m.user_id,
        data: {
          monitor: { id: m.id, name: m.name, type: m.type, target: m.target ?? '' },
          host: c.host ?? target_host ?? m.target ?? '', subject: c.subject, issuer: c.issuer, expires_at: c.expires_at, days_left: c.days_left,
        },
      })) sent++;
    }
    return sent;
  });
}

/**
 * The check store `store` that also sends `ssl.expiring` for the certificates of the results it
 * stored ({@link publishCertificateEvents}), after storing them: a failure to queue the event
 * fails the batch, which the node sends again (the results are stored once, the event is queued
 * once).
 */
export function withCertificateEvents(store: MonitorResultStore, events: EventPublisher): MonitorResultStore {
  return {
    async store(tx, node_id, results) {
      const outcome = await store.store(tx, node_id, results);
      if (outcome.stored.length > 0) {
        const stored = new Set(outcome.stored);
        await publishCertificateEvents(tx, events, results.filter((r) => stored.has(r.result_id)));
      }
      return outcome;
    },
  };
}
